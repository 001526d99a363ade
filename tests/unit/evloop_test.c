/*
 * evloop_test — timers (order, cancel, cancel from callbacks, no spin),
 * descriptors (pipe readiness, removal from callbacks), signals through
 * signalfd, run_once bounds and evloop_break.
 * No wait is timed from above (a busy machine only makes things later):
 * a wait that should end on an event has a bound of an hour, so that a
 * loop that missed the event shows as the test's timeout, and only the
 * lower bounds (a wait does not end before its time) are asserted.
 */
#include "evloop.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mono.h"
#include "tap.h"

#define MAXFIRED	32

struct rec {
	int		 r_fired[MAXFIRED];
	int		 r_n;
	struct evtimer	*r_victim;	/* cancelled by the callback */
	struct evloop	*r_el;
};

struct tctx {
	struct rec	*t_rec;
	int		 t_id;
	struct evtimer	*t_self;
};

struct fdctx {
	int		 f_calls;
	int		 f_fd;
	short		 f_revents;
	int		 f_del_self;
	int		 f_del_other;	/* fd to remove, or -1 */
	int		 f_del_rc;
};

struct sigctx {
	int		 s_usr1;
	int		 s_usr2;
	int		 s_last;
	int		 s_break;
};

static void	rec_cb(struct evloop *, void *);
static void	cancel_cb(struct evloop *, void *);
static void	self_cancel_cb(struct evloop *, void *);
static void	readd_cb(struct evloop *, void *);
static void	break_cb(struct evloop *, void *);
static void	raise_cb(struct evloop *, void *);
static void	fd_cb(struct evloop *, int, short, void *);
static void	sig_cb(struct evloop *, int, void *);
static int	run_until(struct evloop *, int *, int, double);
static void	sleep_s(double);
static void	put(int);

static void
rec_cb(struct evloop *el, void *arg)
{
	struct tctx *t = arg;

	(void)el;
	if (t->t_rec->r_n < MAXFIRED)
		t->t_rec->r_fired[t->t_rec->r_n++] = t->t_id;
}

static void
cancel_cb(struct evloop *el, void *arg)
{
	struct tctx *t = arg;

	rec_cb(el, arg);
	evloop_timer_cancel(el, t->t_rec->r_victim);
	t->t_rec->r_victim = NULL;
}

static void
self_cancel_cb(struct evloop *el, void *arg)
{
	struct tctx *t = arg;

	rec_cb(el, arg);
	evloop_timer_cancel(el, t->t_self);	/* no-op, must not crash */
}

/* Re-adds itself with delay 0: one round must still end. */
static void
readd_cb(struct evloop *el, void *arg)
{
	struct tctx *t = arg;

	rec_cb(el, arg);
	if (t->t_rec->r_n < 1000)
		t->t_self = evloop_timer_add(el, 0, readd_cb, t);
}

static void
break_cb(struct evloop *el, void *arg)
{
	int *n = arg;

	(*n)++;
	evloop_break(el);
}

static void
raise_cb(struct evloop *el, void *arg)
{
	(void)el;
	raise(*(int *)arg);
}

static void
fd_cb(struct evloop *el, int fd, short revents, void *arg)
{
	struct fdctx *f = arg;
	char c;

	f->f_calls++;
	f->f_fd = fd;
	f->f_revents = revents;
	if ((revents & POLLIN) && read(fd, &c, 1) != 1)
		f->f_calls += 1000;	/* readable but nothing to read */
	if (f->f_del_self)
		f->f_del_rc = evloop_del_fd(el, fd);
	if (f->f_del_other != -1)
		f->f_del_rc = evloop_del_fd(el, f->f_del_other);
}

static void
sig_cb(struct evloop *el, int signo, void *arg)
{
	struct sigctx *s = arg;

	s->s_last = signo;
	if (signo == SIGUSR1)
		s->s_usr1++;
	if (signo == SIGUSR2)
		s->s_usr2++;
	if (s->s_break)
		evloop_break(el);
}

/* Runs rounds until *count reaches want or limit seconds pass. */
static int
run_until(struct evloop *el, int *count, int want, double limit)
{
	double end = now_mono() + limit;
	int rounds = 0;

	while (*count < want && now_mono() < end) {
		if (evloop_run_once(el, end - now_mono()) == -1)
			return -1;
		rounds++;
	}
	return rounds;
}

static void
sleep_s(double s)
{
	struct timespec ts;

	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void
put(int fd)
{
	if (write(fd, "x", 1) != 1)
		abort();
}

int
main(void)
{
	struct evloop *el;
	struct rec rec;
	struct tctx t[8];
	struct fdctx f1, f2;
	struct sigctx sg;
	struct evtimer *h;
	sigset_t cur;
	double start, elapsed;
	int p1[2], p2[2], p3[2], i, rounds, n, signo, status;
	pid_t child;
	char c;

	if ((el = evloop_new()) == NULL) {
		perror("evloop_new");
		return 1;
	}
	memset(&rec, 0, sizeof(rec));
	for (i = 0; i < 8; i++) {
		t[i].t_rec = &rec;
		t[i].t_id = i;
		t[i].t_self = NULL;
	}

	/* Deadline order, whatever the insertion order. */
	ok(evloop_timer_add(el, 0.15, rec_cb, &t[1]) != NULL, "timer add");
	ok(evloop_timer_add(el, 0.05, rec_cb, &t[2]) != NULL, "timer add");
	ok(evloop_timer_add(el, 0.10, rec_cb, &t[3]) != NULL, "timer add");
	run_until(el, &rec.r_n, 3, 60.0);
	is_int(rec.r_n, 3, "three timers fired");
	ok(rec.r_fired[0] == 2 && rec.r_fired[1] == 3 && rec.r_fired[2] == 1,
	    "timers fire in deadline order (%d %d %d)", rec.r_fired[0],
	    rec.r_fired[1], rec.r_fired[2]);

	/* Same delay: insertion order, even when all are due at once. */
	memset(rec.r_fired, 0, sizeof(rec.r_fired));
	rec.r_n = 0;
	for (i = 0; i < 5; i++)
		evloop_timer_add(el, 0.01, rec_cb, &t[i]);
	sleep_s(0.03);
	evloop_run_once(el, 0);
	is_int(rec.r_n, 5, "five due timers fire in one round");
	ok(rec.r_fired[0] == 0 && rec.r_fired[1] == 1 && rec.r_fired[2] == 2 &&
	    rec.r_fired[3] == 3 && rec.r_fired[4] == 4,
	    "equal delays fire in insertion order");

	/* Cancel before it fires. */
	rec.r_n = 0;
	h = evloop_timer_add(el, 0.01, rec_cb, &t[1]);
	evloop_timer_add(el, 0.02, rec_cb, &t[2]);
	evloop_timer_cancel(el, h);
	evloop_timer_cancel(el, NULL);
	run_until(el, &rec.r_n, 1, 60.0);
	sleep_s(0.02);
	evloop_run_once(el, 0);
	ok(rec.r_n == 1 && rec.r_fired[0] == 2, "cancelled timer never fires");

	/* Moved: it fires at its new time, with its own callback. */
	rec.r_n = 0;
	h = evloop_timer_add(el, 3600, rec_cb, &t[1]);
	evloop_timer_add(el, 0.05, rec_cb, &t[2]);
	ok(evloop_timer_move(el, h, 0.01) == 0, "timer move");
	ok(evloop_timer_move(el, NULL, 0.01) == -1 && errno == EINVAL,
	    "no timer to move: EINVAL");
	ok(evloop_timer_move(el, h, -1) == -1 && errno == EINVAL,
	    "a negative delay: EINVAL");
	run_until(el, &rec.r_n, 2, 60.0);
	ok(rec.r_n == 2 && rec.r_fired[0] == 1 && rec.r_fired[1] == 2,
	    "a timer moved earlier fires first");

	/* Cancel a later timer from a callback. */
	rec.r_n = 0;
	evloop_timer_add(el, 0.01, cancel_cb, &t[1]);
	rec.r_victim = evloop_timer_add(el, 0.03, rec_cb, &t[2]);
	evloop_timer_add(el, 0.05, rec_cb, &t[3]);
	run_until(el, &rec.r_n, 2, 60.0);
	ok(rec.r_n == 2 && rec.r_fired[0] == 1 && rec.r_fired[1] == 3,
	    "timer cancelled from another timer's callback never fires");

	/* Cancel a timer due in the same round. */
	rec.r_n = 0;
	evloop_timer_add(el, 0, cancel_cb, &t[1]);
	rec.r_victim = evloop_timer_add(el, 0, rec_cb, &t[2]);
	evloop_timer_add(el, 0, rec_cb, &t[3]);
	sleep_s(0.01);
	evloop_run_once(el, 0);
	ok(rec.r_n == 2 && rec.r_fired[0] == 1 && rec.r_fired[1] == 3,
	    "cancel of a timer due in the same round works");

	/* A callback cancelling its own (firing) timer. */
	rec.r_n = 0;
	t[4].t_self = evloop_timer_add(el, 0, self_cancel_cb, &t[4]);
	evloop_run_once(el, 0.1);
	is_int(rec.r_n, 1, "self-cancel inside the callback is harmless");

	/* A timer re-adding itself with delay 0 cannot spin one round. */
	rec.r_n = 0;
	t[5].t_self = evloop_timer_add(el, 0, readd_cb, &t[5]);
	evloop_run_once(el, 0.1);
	ok(rec.r_n >= 1 && rec.r_n <= 2, "re-added timer waits for the next "
	    "round (%d fired)", rec.r_n);
	evloop_run_once(el, 0.1);
	ok(rec.r_n >= 2, "re-added timer fires next round");
	evloop_timer_cancel(el, t[5].t_self);
	t[5].t_self = NULL;

	/* Bad arguments. */
	errno = 0;
	ok(evloop_timer_add(el, -1, rec_cb, &t[0]) == NULL && errno == EINVAL,
	    "negative delay refused");
	ok(evloop_timer_add(el, 0, NULL, NULL) == NULL, "NULL callback "
	    "refused");

	/* run_once bounded by max_wait with nothing to do. */
	start = now_mono();
	is_int(evloop_run_once(el, 0.1), 0, "run_once with nothing ready");
	elapsed = now_mono() - start;
	ok(elapsed >= 0.099, "run_once(0.1) returns, after 0.1 s or more "
	    "(%.3f)", elapsed);

	/* Bounded by the earliest timer, not the longer max_wait. */
	rec.r_n = 0;
	evloop_timer_add(el, 0.05, rec_cb, &t[1]);
	start = now_mono();
	evloop_run_once(el, 3600);
	elapsed = now_mono() - start;
	ok(rec.r_n == 1 && elapsed >= 0.049,
	    "run_once(3600) returns when the timer is due (%.3f)", elapsed);

	/* No spin: a sub-millisecond remainder is rounded up. */
	rec.r_n = 0;
	evloop_timer_add(el, 0.0305, rec_cb, &t[1]);
	rounds = run_until(el, &rec.r_n, 1, 60.0);
	is_int(rounds, 1, "timer with fractional ms fires in one round");

	/* Nothing to wait for, forever: refused, not a hang. */
	errno = 0;
	ok(evloop_run_once(el, -1) == -1 && errno == EINVAL,
	    "run_once(-1) with nothing registered fails");

	/* Descriptors. */
	if (pipe2(p1, O_CLOEXEC | O_NONBLOCK) == -1 ||
	    pipe2(p2, O_CLOEXEC | O_NONBLOCK) == -1) {
		perror("pipe2");
		return 1;
	}
	memset(&f1, 0, sizeof(f1));
	memset(&f2, 0, sizeof(f2));
	f1.f_del_other = f2.f_del_other = -1;
	is_int(evloop_add_fd(el, p1[0], POLLIN, fd_cb, &f1), 0, "add fd");
	errno = 0;
	ok(evloop_add_fd(el, p1[0], POLLIN, fd_cb, &f1) == -1 &&
	    errno == EEXIST, "second callback for one fd refused");
	errno = 0;
	ok(evloop_del_fd(el, p2[0]) == -1 && errno == ENOENT,
	    "removing an unknown fd fails");
	evloop_run_once(el, 0.02);
	is_int(f1.f_calls, 0, "quiet pipe not dispatched");
	put(p1[1]);
	evloop_run_once(el, 1);
	is_int(f1.f_calls, 1, "readable pipe dispatched");
	is_int(f1.f_fd, p1[0], "callback gets its fd");
	ok(f1.f_revents & POLLIN, "callback gets POLLIN");
	evloop_run_once(el, 0.02);
	is_int(f1.f_calls, 1, "drained pipe not dispatched again");

	/* Remove the fd from inside its own callback. */
	f1.f_del_self = 1;
	put(p1[1]);
	evloop_run_once(el, 1);
	is_int(f1.f_calls, 2, "dispatched once more");
	is_int(f1.f_del_rc, 0, "evloop_del_fd of itself inside the callback");
	put(p1[1]);
	evloop_run_once(el, 0.02);
	is_int(f1.f_calls, 2, "removed fd no longer dispatched");
	is_int(evloop_add_fd(el, p1[0], POLLIN, fd_cb, &f1), 0,
	    "fd can be added again after removal");

	/* Remove another ready fd from a callback: it is not dispatched. */
	f1.f_del_self = 0;
	f1.f_calls = 0;
	f1.f_del_other = p2[0];
	is_int(evloop_add_fd(el, p2[0], POLLIN, fd_cb, &f2), 0, "add 2nd fd");
	put(p1[1]);
	put(p2[1]);
	evloop_run_once(el, 1);
	ok(f1.f_calls == 1 && f2.f_calls == 0 && f1.f_del_rc == 0,
	    "fd removed by an earlier callback is not dispatched");
	f1.f_del_other = -1;
	evloop_del_fd(el, p1[0]);
	if (read(p2[0], &c, 1) != 1)
		ok(0, "drain second pipe");

	/* Signals through the signalfd. */
	memset(&sg, 0, sizeof(sg));
	is_int(evloop_signal(el, SIGUSR1, sig_cb, &sg), 0, "watch SIGUSR1");
	is_int(evloop_signal(el, SIGUSR2, sig_cb, &sg), 0, "watch SIGUSR2");
	errno = 0;
	ok(evloop_signal(el, SIGKILL, sig_cb, &sg) == -1 && errno == EINVAL,
	    "SIGKILL refused");
	ok(evloop_signal(el, 0, sig_cb, &sg) == -1, "signal 0 refused");
	raise(SIGUSR1);
	run_until(el, &sg.s_usr1, 1, 60.0);
	is_int(sg.s_usr1, 1, "raise(SIGUSR1) reaches the callback");
	is_int(sg.s_last, SIGUSR1, "callback gets the signal number");
	raise(SIGUSR2);
	run_until(el, &sg.s_usr2, 1, 60.0);
	is_int(sg.s_usr2, 1, "second signal on the extended signalfd");

	/* evloop_break from a timer; a far timer must not hold run. */
	n = 0;
	evloop_timer_add(el, 0.02, break_cb, &n);
	h = evloop_timer_add(el, 3600, rec_cb, &t[0]);
	start = now_mono();
	is_int(evloop_run(el), 0, "evloop_run returns 0 after break");
	elapsed = now_mono() - start;
	ok(n == 1, "evloop_break stops the loop before the far timer "
	    "(%.3f s)", elapsed);

	/* evloop_break from a signal callback. */
	sg.s_break = 1;
	signo = SIGUSR1;
	evloop_timer_add(el, 0.01, raise_cb, &signo);
	is_int(evloop_run(el), 0, "evloop_run broken by a signal callback");
	ok(sg.s_usr1 == 2, "signal delivered in the loop");
	sg.s_break = 0;

	/*
	 * Free with a pending timer, a pending signal and fds: the signal
	 * is dropped, not delivered (which would kill us once unblocked),
	 * and the descriptors stay the caller's.
	 */
	evloop_add_fd(el, p2[0], POLLIN, fd_cb, &f2);
	raise(SIGUSR2);
	evloop_free(el);
	sigpending(&cur);
	ok(!sigismember(&cur, SIGUSR2) && sg.s_usr2 == 1,
	    "evloop_free drops a pending signal without calling back");
	ok(fcntl(p2[0], F_GETFD) != -1, "evloop_free leaves the fds open");
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	ok(!sigismember(&cur, SIGUSR1) && !sigismember(&cur, SIGUSR2),
	    "evloop_free unblocks the signals it blocked");
	(void)h;

	/* A signal blocked before stays blocked after free. */
	if ((el = evloop_new()) == NULL)
		return 1;
	sigemptyset(&cur);
	sigaddset(&cur, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &cur, NULL);
	evloop_signal(el, SIGHUP, sig_cb, &sg);
	evloop_free(el);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	ok(sigismember(&cur, SIGHUP), "previously blocked signal stays "
	    "blocked");
	evloop_free(NULL);

	/*
	 * After fork: a signal the child watches does not take one the
	 * parent watches off the parent's signalfd (they shared one).
	 */
	if ((el = evloop_new()) == NULL || pipe(p3) == -1)
		return 1;
	memset(&sg, 0, sizeof(sg));
	evloop_signal(el, SIGUSR2, sig_cb, &sg);
	if ((child = fork()) == 0) {
		close(p3[1]);
		(void)!read(p3[0], &c, 1);	/* the parent has watched */
		_exit(evloop_signal(el, SIGWINCH, sig_cb, &sg) == 0 ? 0 : 1);
	}
	close(p3[0]);
	evloop_signal(el, SIGUSR1, sig_cb, &sg);
	(void)!write(p3[1], "x", 1);
	close(p3[1]);
	ok(child > 0 && waitpid(child, &status, 0) == child &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the child watched a signal of its own");
	raise(SIGUSR1);
	run_until(el, &sg.s_usr1, 1, 60.0);
	is_int(sg.s_usr1, 1, "the parent still hears its SIGUSR1");
	evloop_free(el);

	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	return tap_done();
}
