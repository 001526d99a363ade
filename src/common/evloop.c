/*
 * evloop — poll() over registered descriptors, one-shot timers on
 * CLOCK_MONOTONIC, and signals read from one signalfd.
 *
 * Descriptors live in an array whose indices stay put while callbacks
 * run: evloop_del_fd() during dispatch only marks the slot dead, and the
 * array is compacted once dispatch is over.  A slot added during dispatch
 * is appended and is first polled on the next round.  So a callback may
 * add or remove any descriptor, its own included.
 *
 * Timers sit in a red-black tree ordered by (deadline, insertion
 * number), so equal deadlines fire in insertion order.  Each round fires
 * only the timers due at one reading of the clock, taken after poll(): a
 * callback that adds a timer with delay 0 cannot keep the round going.
 * A timer is freed after its callback returns; cancelling the running
 * timer from its own callback is a no-op.
 *
 * Signals are blocked in the calling thread and read from a signalfd,
 * so no code runs in signal context.  evloop_free() discards signals
 * still pending on that descriptor, then unblocks those that were not
 * blocked before evloop_signal() blocked them.  Children forked while
 * the loop is alive inherit the blocked mask and must unblock it before
 * exec.
 *
 * evloop_run_once() must not be called from a callback (EDEADLK), and a
 * loop must not be freed from one.  Waiting forever with no descriptor
 * and no timer fails with EINVAL instead of hanging.  evloop_break()
 * makes evloop_run() return once the current round is dispatched; a
 * break requested outside evloop_run() is kept for the next call.
 */
#include "evloop.h"

#include <sys/signalfd.h>
#include <sys/tree.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mono.h"

struct evfd {
	int		 ef_fd;
	short		 ef_events;
	int		 ef_dead;
	evloop_fd_cb	*ef_cb;
	void		*ef_arg;
};

struct evtimer {
	RB_ENTRY(evtimer) tmr_entry;
	double		 tmr_deadline;
	uint64_t	 tmr_seq;
	evloop_timer_cb	*tmr_cb;
	void		*tmr_arg;
};

RB_HEAD(evtimer_tree, evtimer);

struct evsig {
	evloop_signal_cb *sg_cb;
	void		*sg_arg;
};

struct evloop {
	struct evfd	*el_fds;
	size_t		 el_nfds;
	size_t		 el_fdcap;
	int		 el_ndead;
	struct pollfd	*el_pfds;
	size_t		 el_pfdcap;

	struct evtimer_tree el_timers;
	uint64_t	 el_timer_seq;
	struct evtimer	*el_firing;

	int		 el_sigfd;
	pid_t		 el_sigpid;	/* the process that made el_sigfd */
	sigset_t	 el_sigmask;	/* signals read through el_sigfd */
	sigset_t	 el_unblock;	/* blocked by us: unblocked at free */
	struct evsig	 el_sigs[NSIG];

	int		 el_dispatching;
	int		 el_break;
};

static int	evtimer_cmp(struct evtimer *, struct evtimer *);
static int	evloop_poll_ms(double);
static void	evloop_compact(struct evloop *);
static void	evloop_sig_read(struct evloop *, int, short, void *);

/* libbsd leaves __unused undefined, so RB_GENERATE_STATIC cannot work. */
#define EVTIMER_RB_ATTR	__attribute__((__unused__)) static
RB_GENERATE_INTERNAL(evtimer_tree, evtimer, tmr_entry, evtimer_cmp,
    EVTIMER_RB_ATTR)

static int
evtimer_cmp(struct evtimer *a, struct evtimer *b)
{
	if (a->tmr_deadline < b->tmr_deadline)
		return -1;
	if (a->tmr_deadline > b->tmr_deadline)
		return 1;
	if (a->tmr_seq < b->tmr_seq)
		return -1;
	return a->tmr_seq > b->tmr_seq;
}

struct evloop *
evloop_new(void)
{
	struct evloop *el;

	if ((el = calloc(1, sizeof(*el))) == NULL)
		return NULL;
	RB_INIT(&el->el_timers);
	el->el_sigfd = -1;
	sigemptyset(&el->el_sigmask);
	sigemptyset(&el->el_unblock);
	return el;
}

void
evloop_free(struct evloop *el)
{
	struct evtimer *t, *next;
	struct signalfd_siginfo si;
	int saved_errno = errno;

	if (el == NULL)
		return;
	RB_FOREACH_SAFE(t, evtimer_tree, &el->el_timers, next) {
		RB_REMOVE(evtimer_tree, &el->el_timers, t);
		free(t);
	}
	if (el->el_sigfd != -1) {
		/* Drop what is pending so unblocking cannot deliver it. */
		while (read(el->el_sigfd, &si, sizeof(si)) == sizeof(si))
			;
		close(el->el_sigfd);
		pthread_sigmask(SIG_UNBLOCK, &el->el_unblock, NULL);
	}
	free(el->el_fds);
	free(el->el_pfds);
	free(el);
	errno = saved_errno;
}

static struct evfd *
evloop_find_fd(struct evloop *el, int fd)
{
	size_t i;

	for (i = 0; i < el->el_nfds; i++)
		if (el->el_fds[i].ef_fd == fd && !el->el_fds[i].ef_dead)
			return &el->el_fds[i];
	return NULL;
}

int
evloop_add_fd(struct evloop *el, int fd, short events, evloop_fd_cb *cb,
    void *arg)
{
	struct evfd *fds, *ef;
	size_t cap;

	if (fd < 0 || cb == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (evloop_find_fd(el, fd) != NULL) {
		errno = EEXIST;
		return -1;
	}
	if (el->el_nfds == el->el_fdcap) {
		cap = el->el_fdcap ? el->el_fdcap * 2 : 8;
		if ((fds = reallocarray(el->el_fds, cap, sizeof(*fds))) ==
		    NULL)
			return -1;
		el->el_fds = fds;
		el->el_fdcap = cap;
	}
	ef = &el->el_fds[el->el_nfds++];
	ef->ef_fd = fd;
	ef->ef_events = events;
	ef->ef_dead = 0;
	ef->ef_cb = cb;
	ef->ef_arg = arg;
	return 0;
}

int
evloop_del_fd(struct evloop *el, int fd)
{
	struct evfd *ef;

	if ((ef = evloop_find_fd(el, fd)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	ef->ef_dead = 1;
	ef->ef_cb = NULL;
	ef->ef_arg = NULL;
	el->el_ndead++;
	if (!el->el_dispatching)
		evloop_compact(el);
	return 0;
}

/* Removes dead slots, keeping the order of the live ones. */
static void
evloop_compact(struct evloop *el)
{
	size_t i, j;

	if (el->el_ndead == 0)
		return;
	for (i = j = 0; i < el->el_nfds; i++) {
		if (el->el_fds[i].ef_dead)
			continue;
		if (i != j)
			el->el_fds[j] = el->el_fds[i];
		j++;
	}
	el->el_nfds = j;
	el->el_ndead = 0;
}

struct evtimer *
evloop_timer_add(struct evloop *el, double delay, evloop_timer_cb *cb,
    void *arg)
{
	struct evtimer *t;

	if (cb == NULL || !isfinite(delay) || delay < 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->tmr_deadline = now_mono() + delay;
	t->tmr_seq = el->el_timer_seq++;
	t->tmr_cb = cb;
	t->tmr_arg = arg;
	RB_INSERT(evtimer_tree, &el->el_timers, t);
	return t;
}

void
evloop_timer_cancel(struct evloop *el, struct evtimer *t)
{
	if (t == NULL || t == el->el_firing)
		return;
	RB_REMOVE(evtimer_tree, &el->el_timers, t);
	free(t);
}

int
evloop_timer_move(struct evloop *el, struct evtimer *t, double delay)
{
	if (t == NULL || t == el->el_firing || !isfinite(delay) || delay < 0) {
		errno = EINVAL;
		return -1;
	}
	RB_REMOVE(evtimer_tree, &el->el_timers, t);
	t->tmr_deadline = now_mono() + delay;
	t->tmr_seq = el->el_timer_seq++;
	RB_INSERT(evtimer_tree, &el->el_timers, t);
	return 0;
}

int
evloop_signal(struct evloop *el, int signo, evloop_signal_cb *cb, void *arg)
{
	sigset_t one, old, mask;
	int fd, saved_errno, inherited;

	if (signo <= 0 || signo >= NSIG || signo == SIGKILL ||
	    signo == SIGSTOP || cb == NULL) {
		errno = EINVAL;
		return -1;
	}
	sigemptyset(&one);
	if (sigaddset(&one, signo) == -1)
		return -1;
	if ((errno = pthread_sigmask(SIG_BLOCK, &one, &old)) != 0)
		return -1;
	mask = el->el_sigmask;
	sigaddset(&mask, signo);
	/*
	 * A signalfd inherited across fork(2) is one open file with the
	 * process that made it: a mask set here would be set there too,
	 * and a privileged parent lost its SIGCHLD when its engine added
	 * SIGUSR1.  After a fork, each process gets its own.
	 */
	inherited = el->el_sigfd != -1 && el->el_sigpid != getpid();
	if ((fd = signalfd(inherited ? -1 : el->el_sigfd, &mask,
	    SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		goto fail;
	if (el->el_sigfd == -1 || inherited) {
		if (evloop_add_fd(el, fd, POLLIN, evloop_sig_read, NULL) ==
		    -1) {
			saved_errno = errno;
			close(fd);
			errno = saved_errno;
			goto fail;
		}
		if (inherited) {
			(void)evloop_del_fd(el, el->el_sigfd);
			close(el->el_sigfd);
		}
		el->el_sigfd = fd;
		el->el_sigpid = getpid();
	}
	el->el_sigmask = mask;
	if (!sigismember(&old, signo))
		sigaddset(&el->el_unblock, signo);
	el->el_sigs[signo].sg_cb = cb;
	el->el_sigs[signo].sg_arg = arg;
	return 0;

 fail:
	if (!sigismember(&old, signo) && !sigismember(&el->el_sigmask, signo))
		pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	return -1;
}

static void
evloop_sig_read(struct evloop *el, int fd, short revents, void *arg)
{
	struct signalfd_siginfo si;
	struct evsig *sg;
	ssize_t n;

	(void)revents;
	(void)arg;
	for (;;) {
		n = read(fd, &si, sizeof(si));
		if (n == -1 && errno == EINTR)
			continue;
		if (n != sizeof(si))
			break;		/* EAGAIN: drained */
		if (si.ssi_signo == 0 || si.ssi_signo >= NSIG)
			continue;
		sg = &el->el_sigs[si.ssi_signo];
		if (sg->sg_cb != NULL)
			sg->sg_cb(el, (int)si.ssi_signo, sg->sg_arg);
	}
}

/* A wait in seconds as a poll() timeout in ms, rounded up, clamped. */
static int
evloop_poll_ms(double wait)
{
	double ms;

	if (wait <= 0)
		return 0;
	ms = ceil(wait * 1000.0);
	if (ms >= (double)INT_MAX)
		return INT_MAX;
	return (int)ms;
}

int
evloop_run_once(struct evloop *el, double max_wait)
{
	struct evtimer *t;
	struct pollfd *pfds;
	size_t i, n;
	double now, end, wait;
	int timeout, nready;

	if (el->el_dispatching) {
		errno = EDEADLK;
		return -1;
	}
	if (isnan(max_wait)) {
		errno = EINVAL;
		return -1;
	}

	n = el->el_nfds;
	if (n > el->el_pfdcap) {
		if ((pfds = reallocarray(el->el_pfds, n, sizeof(*pfds))) ==
		    NULL)
			return -1;
		el->el_pfds = pfds;
		el->el_pfdcap = n;
	}
	for (i = 0; i < n; i++) {
		el->el_pfds[i].fd = el->el_fds[i].ef_fd;
		el->el_pfds[i].events = el->el_fds[i].ef_events;
		el->el_pfds[i].revents = 0;
	}

	now = now_mono();
	end = max_wait >= 0 ? now + max_wait : INFINITY;
	if ((t = RB_MIN(evtimer_tree, &el->el_timers)) != NULL &&
	    t->tmr_deadline < end)
		end = t->tmr_deadline;
	if (isinf(end) && n == 0) {
		errno = EINVAL;		/* nothing could ever wake us */
		return -1;
	}
	for (;;) {
		if (isinf(end))
			timeout = -1;
		else {
			wait = end - now;
			timeout = evloop_poll_ms(wait);
		}
		nready = poll(el->el_pfds, (nfds_t)n, timeout);
		if (nready != -1)
			break;
		if (errno != EINTR)
			return -1;
		now = now_mono();
	}

	el->el_dispatching = 1;
	for (i = 0; i < n && nready > 0; i++) {
		if (el->el_pfds[i].revents == 0)
			continue;
		nready--;
		/* Re-read the slot: a callback may have grown the array. */
		if (el->el_fds[i].ef_dead)
			continue;
		el->el_fds[i].ef_cb(el, el->el_fds[i].ef_fd,
		    el->el_pfds[i].revents, el->el_fds[i].ef_arg);
	}

	now = now_mono();
	while ((t = RB_MIN(evtimer_tree, &el->el_timers)) != NULL &&
	    t->tmr_deadline <= now) {
		RB_REMOVE(evtimer_tree, &el->el_timers, t);
		el->el_firing = t;
		t->tmr_cb(el, t->tmr_arg);
		el->el_firing = NULL;
		free(t);
	}
	el->el_dispatching = 0;
	evloop_compact(el);
	return 0;
}

int
evloop_run(struct evloop *el)
{
	while (!el->el_break) {
		if (evloop_run_once(el, -1) == -1)
			return -1;
	}
	el->el_break = 0;
	return 0;
}

void
evloop_break(struct evloop *el)
{
	el->el_break = 1;
}
