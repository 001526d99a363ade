/*
 * evloop — the one event loop every daemon and utility shares: poll()
 * over descriptors, one-shot timers on CLOCK_MONOTONIC, and signals
 * delivered through signalfd so no handler runs in signal context.
 */
#ifndef CILKNOW_EVLOOP_H
#define CILKNOW_EVLOOP_H

struct evloop;
struct evtimer;

typedef void	evloop_fd_cb(struct evloop *, int fd, short revents, void *);
typedef void	evloop_timer_cb(struct evloop *, void *);
typedef void	evloop_signal_cb(struct evloop *, int signo, void *);

struct evloop	*evloop_new(void);
void		 evloop_free(struct evloop *);

/* events/revents are poll() bits.  One callback per fd; -1 on error. */
int		 evloop_add_fd(struct evloop *, int fd, short events,
		    evloop_fd_cb *, void *);
int		 evloop_del_fd(struct evloop *, int fd);

/*
 * One-shot timer firing delay seconds from now (monotonic, >= 0).
 * The returned handle is valid until it fires or is cancelled; a
 * callback may add new timers and cancel others.
 */
struct evtimer	*evloop_timer_add(struct evloop *, double delay,
		    evloop_timer_cb *, void *);
void		 evloop_timer_cancel(struct evloop *, struct evtimer *);
/*
 * A pending timer fires delay seconds from now instead, with its own
 * callback and argument, as if cancelled and added again (after the
 * timers already due then); the handle stays valid.  -1 (EINVAL) for
 * a timer firing now or a delay that is not >= 0.
 */
int		 evloop_timer_move(struct evloop *, struct evtimer *,
		    double delay);

/*
 * Deliver signo to cb from the loop.  The signal is blocked in the
 * calling thread and read through a signalfd.  -1 on error.
 */
int		 evloop_signal(struct evloop *, int signo,
		    evloop_signal_cb *, void *);

/*
 * Wait at most max_wait seconds (< 0: until the earliest timer, or
 * forever if none) and dispatch what is ready.  0 or -1 on error.
 */
int		 evloop_run_once(struct evloop *, double max_wait);
/* Dispatch until evloop_break(); 0 when broken, -1 on error. */
int		 evloop_run(struct evloop *);
void		 evloop_break(struct evloop *);

#endif
