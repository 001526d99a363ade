/*
 * lossy.so — an LD_PRELOAD shim that makes a process's UDP lossy, for
 * the chaos test (tests/chaos/run.py).  A relay cannot stand in for a
 * lossy network: every message names its destination address, and a
 * datagram a relay forwarded arrives misaddressed and is dropped.  So
 * the faults are made in the process itself, around the two calls the
 * message endpoint uses (src/msg/msg_endpoint.c): sendto() and
 * recvmsg().  Only IPv4 and IPv6 datagrams are touched; a Unix socket
 * (sd_notify, privilege separation) passes through.
 *
 *   CILKNOW_LOSSY=loss=0.05,dup=0.02,reorder=0.05,delay=40,seed=N
 *
 * loss: a datagram sent or received is dropped.  dup: it is sent
 * twice, or received twice.  reorder: a datagram sent is held back for
 * up to delay milliseconds (default 40) and sent at a later sendto or
 * recvmsg of the process, after newer ones; a datagram received is
 * handed over after the next one.  The draws come from a generator
 * seeded with seed and the pid, so that the processes of one job do
 * not drop in step; threads share it under a lock.  Unset or empty:
 * nothing changes.  At exit it says on the standard error what it did.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HELD_MAX	64	/* datagrams held back for reordering */
#define DGRAM_MAX	2048	/* larger ones are never held */
#define CTRL_MAX	256

typedef ssize_t	sendto_fn(int, const void *, size_t, int,
		    const struct sockaddr *, socklen_t);
typedef ssize_t	recvmsg_fn(int, struct msghdr *, int);

struct held {			/* a datagram sent late */
	int			 h_fd;
	uint64_t		 h_due;	/* ms, CLOCK_MONOTONIC */
	struct sockaddr_storage	 h_to;
	socklen_t		 h_tolen;
	size_t			 h_len;
	uint8_t			 h_buf[DGRAM_MAX];
};

struct stash {			/* a datagram received, handed over late */
	int			 s_fd;	/* -1: empty */
	struct sockaddr_storage	 s_from;
	socklen_t		 s_fromlen;
	size_t			 s_len, s_ctrllen;
	int			 s_flags;
	uint8_t			 s_buf[DGRAM_MAX];
	uint8_t			 s_ctrl[CTRL_MAX];
};

static pthread_mutex_t	 mu = PTHREAD_MUTEX_INITIALIZER;
static int		 on;
static double		 p_loss, p_dup, p_reorder;
static unsigned		 delay_ms = 40;
static uint64_t		 rng;
static sendto_fn	*real_sendto;
static recvmsg_fn	*real_recvmsg;
static struct held	 held[HELD_MAX];
static int		 nheld;
static struct stash	 stash = { .s_fd = -1 };
static unsigned long	 n_seen, n_lost, n_dup, n_late;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* xorshift64*: enough for coin tosses, and the same for the same seed. */
static double
draw(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (double)((rng * 2685821657736338717ULL) >> 11) /
	    (double)(1ULL << 53);
}

static void
report(void)
{
	if (n_seen > 0)
		fprintf(stderr, "lossy[%ld]: %lu datagrams, %lu lost, "
		    "%lu doubled, %lu late\n", (long)getpid(), n_seen, n_lost,
		    n_dup, n_late);
}

__attribute__((constructor)) static void
lossy_init(void)
{
	const char *env = getenv("CILKNOW_LOSSY");
	char *copy, *item, *save = NULL;
	unsigned long long seed = 1;

	real_sendto = (sendto_fn *)dlsym(RTLD_NEXT, "sendto");
	real_recvmsg = (recvmsg_fn *)dlsym(RTLD_NEXT, "recvmsg");
	if (real_sendto == NULL || real_recvmsg == NULL) {
		fprintf(stderr, "lossy: dlsym: %s\n", dlerror());
		abort();
	}
	if (env == NULL || *env == '\0' || (copy = strdup(env)) == NULL)
		return;
	for (item = strtok_r(copy, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		if (strncmp(item, "loss=", 5) == 0)
			p_loss = strtod(item + 5, NULL);
		else if (strncmp(item, "dup=", 4) == 0)
			p_dup = strtod(item + 4, NULL);
		else if (strncmp(item, "reorder=", 8) == 0)
			p_reorder = strtod(item + 8, NULL);
		else if (strncmp(item, "delay=", 6) == 0)
			delay_ms = (unsigned)strtoul(item + 6, NULL, 10);
		else if (strncmp(item, "seed=", 5) == 0)
			seed = strtoull(item + 5, NULL, 10);
		else
			fprintf(stderr, "lossy: ignored '%s'\n", item);
	}
	free(copy);
	rng = (seed * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)getpid() ^
	    0x5DEECE66DULL;
	if (rng == 0)
		rng = 1;
	if (delay_ms == 0)
		delay_ms = 1;
	on = 1;
	atexit(report);
}

static int
is_inet(const struct sockaddr *sa, socklen_t len)
{
	return sa != NULL && len >= sizeof(sa_family_t) &&
	    (sa->sa_family == AF_INET || sa->sa_family == AF_INET6);
}

/* Sends what is due; the caller holds mu.  Errors are a network's. */
static void
flush_due(uint64_t now)
{
	int i = 0;

	while (i < nheld) {
		if (held[i].h_due > now) {
			i++;
			continue;
		}
		(void)real_sendto(held[i].h_fd, held[i].h_buf, held[i].h_len,
		    0, (struct sockaddr *)&held[i].h_to, held[i].h_tolen);
		held[i] = held[--nheld];
	}
}

ssize_t
sendto(int fd, const void *buf, size_t len, int flags,
    const struct sockaddr *to, socklen_t tolen)
{
	struct held *h;
	double r;

	if (!on || !is_inet(to, tolen))
		return real_sendto(fd, buf, len, flags, to, tolen);
	pthread_mutex_lock(&mu);
	flush_due(now_ms());
	n_seen++;
	r = draw();
	if (r < p_loss) {
		n_lost++;
		pthread_mutex_unlock(&mu);
		return (ssize_t)len;
	}
	if (r < p_loss + p_dup) {
		n_dup++;
		(void)real_sendto(fd, buf, len, flags, to, tolen);
	} else if (r < p_loss + p_dup + p_reorder && nheld < HELD_MAX &&
	    len <= DGRAM_MAX && tolen <= sizeof(h->h_to)) {
		n_late++;
		h = &held[nheld++];
		h->h_fd = fd;
		h->h_due = now_ms() + 1 + (uint64_t)(draw() * delay_ms);
		memcpy(&h->h_to, to, tolen);
		h->h_tolen = tolen;
		memcpy(h->h_buf, buf, len);
		h->h_len = len;
		pthread_mutex_unlock(&mu);
		return (ssize_t)len;
	}
	pthread_mutex_unlock(&mu);
	return real_sendto(fd, buf, len, flags, to, tolen);
}

/* Copies a received datagram out of, or into, the caller's msghdr. */
static int
stash_put(int fd, const struct msghdr *mh, size_t len)
{
	if (len > DGRAM_MAX || mh->msg_iovlen != 1 ||
	    mh->msg_namelen > sizeof(stash.s_from) ||
	    mh->msg_controllen > CTRL_MAX)
		return -1;
	stash.s_fd = fd;
	memcpy(&stash.s_from, mh->msg_name, mh->msg_namelen);
	stash.s_fromlen = mh->msg_namelen;
	memcpy(stash.s_buf, mh->msg_iov[0].iov_base, len);
	stash.s_len = len;
	memcpy(stash.s_ctrl, mh->msg_control, mh->msg_controllen);
	stash.s_ctrllen = mh->msg_controllen;
	stash.s_flags = mh->msg_flags;
	return 0;
}

static ssize_t
stash_take(struct msghdr *mh)
{
	size_t len = stash.s_len;

	stash.s_fd = -1;
	if (mh->msg_iovlen != 1 || mh->msg_iov[0].iov_len < len ||
	    mh->msg_namelen < stash.s_fromlen ||
	    mh->msg_controllen < stash.s_ctrllen) {
		errno = EAGAIN;		/* does not fit: lost */
		return -1;
	}
	memcpy(mh->msg_name, &stash.s_from, stash.s_fromlen);
	mh->msg_namelen = stash.s_fromlen;
	memcpy(mh->msg_iov[0].iov_base, stash.s_buf, len);
	memcpy(mh->msg_control, stash.s_ctrl, stash.s_ctrllen);
	mh->msg_controllen = stash.s_ctrllen;
	mh->msg_flags = stash.s_flags;
	return (ssize_t)len;
}

ssize_t
recvmsg(int fd, struct msghdr *mh, int flags)
{
	struct msghdr keep = *mh;
	ssize_t n;
	double r;
	int later = 0;

	if (!on)
		return real_recvmsg(fd, mh, flags);
	pthread_mutex_lock(&mu);
	flush_due(now_ms());
	if (stash.s_fd == fd && (flags & MSG_PEEK) == 0) {
		n = stash_take(mh);
		pthread_mutex_unlock(&mu);
		return n;
	}
	pthread_mutex_unlock(&mu);
	for (;;) {
		*mh = keep;
		/* A datagram held for later must not wait on a blocking read. */
		n = real_recvmsg(fd, mh, later ? flags | MSG_DONTWAIT : flags);
		if (n == -1 || (flags & MSG_PEEK) || (mh->msg_flags & MSG_TRUNC) ||
		    !is_inet(mh->msg_name, mh->msg_namelen)) {
			if (n == -1 && later && (errno == EAGAIN ||
			    errno == EWOULDBLOCK)) {
				pthread_mutex_lock(&mu);
				*mh = keep;
				n = stash_take(mh);
				pthread_mutex_unlock(&mu);
			}
			return n;
		}
		pthread_mutex_lock(&mu);
		n_seen++;
		r = draw();
		if (r < p_loss) {
			n_lost++;
			pthread_mutex_unlock(&mu);
			continue;
		}
		if (r < p_loss + p_dup && stash.s_fd == -1) {
			if (stash_put(fd, mh, (size_t)n) == 0)
				n_dup++;
		} else if (r < p_loss + p_dup + p_reorder && !later &&
		    stash.s_fd == -1 && stash_put(fd, mh, (size_t)n) == 0) {
			n_late++;
			later = 1;
			pthread_mutex_unlock(&mu);
			continue;	/* the next one first */
		}
		pthread_mutex_unlock(&mu);
		return n;
	}
}
