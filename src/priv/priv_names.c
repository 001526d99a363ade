/*
 * priv_names — the users' names and ids, for an unprivileged child whose
 * view of the files holds no /etc (priv_view): its parent looks them up
 * and answers, over a socketpair of their own, beside the channel.  The
 * child asks and waits (a munge credential's uid is checked in the
 * middle of a message's decode, which munged's own answer already
 * holds up); a few answers are kept for a few seconds.  Without a
 * parent (a daemon that did not split), the C library answers.
 *
 * A question (wire.h): u8 'u', u32 seq, u32 uid; or u8 'n', u32 seq,
 * str name.  An answer: u8 kind, u32 seq, u8 status (0 found, 1 no such
 * user, 2 the lookup failed), u32 uid, str name.  The parent trusts no
 * byte of a question; the child takes only the answer to the question
 * it asked.
 */
#include "priv.h"

#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "mono.h"
#include "wire.h"

#define NAMES_WAIT	2.0	/* s the parent has to answer */
#define NAMES_KEEP	10.0	/* s an answer is kept */
#define NAMES_CACHE	32
#define NAMES_BURST	16	/* questions answered a wakeup */
#define NAME_MAX_LEN	MSG_NAME_MAX	/* what a message may name */
#define Q_MAX		(1 + 4 + 2 + NAME_MAX_LEN)
#define A_MAX		(1 + 4 + 1 + 4 + 2 + NAME_MAX_LEN)

enum { NAMES_FOUND, NAMES_NONE, NAMES_FAILED };

struct names_entry {
	double	 ne_until;	/* 0: unused */
	int	 ne_status;
	uid_t	 ne_uid;
	char	 ne_name[NAME_MAX_LEN + 1];
};

static int			 names_fd = -1;	/* the child's end */
static uint32_t			 names_seq;
static struct names_entry	 names_cache[NAMES_CACHE];
static unsigned			 names_next;

/* The C library's answer, as the parent gives it. */
static int
lookup(int by_uid, uid_t *uid, char *name, size_t namesz)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int rc;

	errno = 0;
	rc = by_uid ? getpwuid_r(*uid, &pw, buf, sizeof(buf), &res) :
	    getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (res == NULL)
		/* "No such entry" comes in several ways (getpwnam(3)). */
		return rc == 0 || rc == ENOENT || rc == ESRCH ||
		    rc == EBADF || rc == EPERM ? NAMES_NONE : NAMES_FAILED;
	if (strlen(pw.pw_name) > NAME_MAX_LEN ||
	    strlcpy(name, pw.pw_name, namesz) >= namesz)
		return NAMES_FAILED;
	*uid = pw.pw_uid;
	return NAMES_FOUND;
}

static struct names_entry *
cache_find(int by_uid, uid_t uid, const char *name, double now)
{
	struct names_entry *e;
	size_t i;

	for (i = 0; i < NAMES_CACHE; i++) {
		e = &names_cache[i];
		if (e->ne_until <= now)
			continue;
		if (by_uid ? e->ne_uid == uid && (e->ne_status == NAMES_FOUND ||
		    e->ne_name[0] == '\0') : strcmp(e->ne_name, name) == 0)
			return e;
	}
	return NULL;
}

static void
cache_put(int status, uid_t uid, const char *name, double now)
{
	struct names_entry *e = &names_cache[names_next++ % NAMES_CACHE];

	e->ne_until = now + NAMES_KEEP;
	e->ne_status = status;
	e->ne_uid = uid;
	strlcpy(e->ne_name, name, sizeof(e->ne_name));
}

/* The parent's answer to our question; its status, or -1 (errno). */
static int
ask(int by_uid, uid_t *uid, char *name, size_t namesz)
{
	uint8_t q[Q_MAX], a[A_MAX + 1];
	char got[NAME_MAX_LEN + 1];
	struct wire_w w;
	struct wire_r r;
	struct pollfd pfd;
	double deadline = now_mono() + NAMES_WAIT, left;
	uint32_t seq, got_seq, got_uid;
	uint8_t kind, status;
	ssize_t n;

	seq = ++names_seq;
	wire_w_init(&w, q, sizeof(q));
	wire_put_u8(&w, by_uid ? 'u' : 'n');
	wire_put_u32(&w, seq);
	if (by_uid)
		wire_put_u32(&w, (uint32_t)*uid);
	else
		wire_put_str(&w, name);
	if (wire_w_ok(&w) == -1) {
		errno = EINVAL;
		return -1;
	}
	while ((n = send(names_fd, q, w.ww_len, MSG_NOSIGNAL)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1)
		return -1;
	for (;;) {
		if ((left = deadline - now_mono()) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		pfd.fd = names_fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		n = recv(names_fd, a, sizeof(a), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			errno = n == 0 ? EPIPE : errno;
			return -1;
		}
		wire_r_init(&r, a, (size_t)n);
		if (wire_get_u8(&r, &kind) == -1 ||
		    wire_get_u32(&r, &got_seq) == -1 ||
		    wire_get_u8(&r, &status) == -1 ||
		    wire_get_u32(&r, &got_uid) == -1 ||
		    wire_get_str(&r, got, sizeof(got)) == -1 ||
		    wire_get_end(&r) == -1 || status > NAMES_FAILED ||
		    (status == NAMES_FOUND && got[0] == '\0')) {
			errno = EPROTO;
			return -1;
		}
		if (got_seq != seq || kind != (by_uid ? 'u' : 'n'))
			continue;	/* one we gave up on */
		if (status == NAMES_FOUND) {
			if (strlcpy(name, got, namesz) >= namesz) {
				errno = EPROTO;
				return -1;
			}
			*uid = (uid_t)got_uid;
		}
		return status;
	}
}

/* Found, none, or failed: the cache first, then the parent or libc. */
static int
resolve(int by_uid, uid_t *uid, char *name, size_t namesz)
{
	struct names_entry *e;
	double now = now_mono();
	char key[NAME_MAX_LEN + 1] = "";
	int status;

	if (!by_uid && strlcpy(key, name, sizeof(key)) >= sizeof(key))
		return NAMES_NONE;	/* longer than any user's name */
	if ((e = cache_find(by_uid, *uid, key, now)) != NULL) {
		if (e->ne_status == NAMES_FOUND) {
			*uid = e->ne_uid;
			if (strlcpy(name, e->ne_name, namesz) >= namesz)
				return NAMES_FAILED;
		}
		return e->ne_status;
	}
	if (names_fd == -1)
		status = lookup(by_uid, uid, name, namesz);
	else if ((status = ask(by_uid, uid, name, namesz)) == -1) {
		log_warn("%s: the privileged process did not answer",
		    __func__);
		return NAMES_FAILED;
	}
	if (status == NAMES_FOUND)
		cache_put(status, *uid, name, now);
	else if (status == NAMES_NONE)
		cache_put(status, by_uid ? *uid : (uid_t)-1, key, now);
	return status;
}

/* What resolve found, as the callers say it: 0, or -1 and errno. */
static int
said(int status)
{
	if (status == NAMES_FOUND)
		return 0;
	errno = status == NAMES_NONE ? ENOENT : EIO;
	return -1;
}

int
priv_name_of_uid(uid_t uid, char *name, size_t namesz)
{
	char buf[NAME_MAX_LEN + 1];

	if (said(resolve(1, &uid, buf, sizeof(buf))) == -1)
		return -1;
	if (strlcpy(name, buf, namesz) >= namesz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
priv_uid_of_name(const char *name, uid_t *uid)
{
	char buf[NAME_MAX_LEN + 1];

	if (strlcpy(buf, name, sizeof(buf)) >= sizeof(buf)) {
		errno = ENOENT;
		return -1;
	}
	return said(resolve(0, uid, buf, sizeof(buf)));
}

void
priv_names_child(int fd)
{
	names_fd = fd;
	memset(names_cache, 0, sizeof(names_cache));
}

/* The parent: the child's questions, a few at a time. */
static void
on_question(struct evloop *loop, int fd, short revents, void *arg)
{
	uint8_t q[Q_MAX + 1], a[A_MAX], kind;
	char name[NAME_MAX_LEN + 1];
	struct wire_w w;
	struct wire_r r;
	uint32_t seq, u32;
	uid_t uid;
	ssize_t n;
	int i, status, bad;

	(void)revents;
	(void)arg;
	for (i = 0; i < NAMES_BURST; i++) {
		n = recv(fd, q, sizeof(q), MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			/* The child is gone (the channel says so too). */
			evloop_del_fd(loop, fd);
			close(fd);
			return;
		}
		wire_r_init(&r, q, (size_t)n);
		name[0] = '\0';
		u32 = 0;
		bad = wire_get_u8(&r, &kind) == -1 ||
		    wire_get_u32(&r, &seq) == -1 ||
		    (kind == 'u' ? wire_get_u32(&r, &u32) :
		    kind == 'n' ? wire_get_str(&r, name, sizeof(name)) : -1) ==
		    -1 || wire_get_end(&r) == -1 ||
		    (kind == 'n' && name[0] == '\0');
		if (bad) {
			log_warnx("%s: a malformed question (%zd bytes); not "
			    "answered", __func__, n);
			continue;
		}
		uid = (uid_t)u32;
		status = lookup(kind == 'u', &uid, name, sizeof(name));
		wire_w_init(&w, a, sizeof(a));
		wire_put_u8(&w, kind);
		wire_put_u32(&w, seq);
		wire_put_u8(&w, (uint8_t)status);
		wire_put_u32(&w, status == NAMES_FOUND ? (uint32_t)uid : 0);
		wire_put_str(&w, status == NAMES_FOUND ? name : "");
		/* A child that does not read its answers loses them. */
		if (wire_w_ok(&w) == 0 && send(fd, a, w.ww_len, MSG_DONTWAIT |
		    MSG_NOSIGNAL) == -1 && errno != EAGAIN)
			log_debug("%s: send: %s", __func__, strerror(errno));
	}
}

int
priv_names_parent(struct evloop *loop, int fd)
{
	return evloop_add_fd(loop, fd, POLLIN, on_question, NULL);
}
