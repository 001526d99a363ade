/*
 * vacate — the owner's machine back within a second (cilknow.conf(5),
 * stop_grace_fast): a worker stopped because its node's owner came
 * back gets SIGQUIT at once; if it is still there stop_grace_fast
 * seconds later it is frozen (cgroup.freeze, or SIGSTOP to every
 * process where there is no cgroup), stays frozen through stop_grace,
 * and is killed then.  A pure plan of when to do what, for the node
 * manager's privileged parent, which does it (CilkNodeManager(8)).
 */
#ifndef CILKNOW_VACATE_H
#define CILKNOW_VACATE_H

struct vacate {
	double	va_freeze_at;	/* monotonic s; 0: no freeze due */
	double	va_kill_at;	/* monotonic s; 0: no kill due */
	int	va_frozen;	/* the freeze was done */
};

enum vacate_act {
	VACATE_NONE = 0,
	VACATE_FREEZE,		/* freeze every process of the worker */
	VACATE_KILL,		/* stop_grace is over: kill them all */
	VACATE_ACT_MAX
};

/*
 * The owner is back at now: freeze at now + fast, kill at now + grace.
 * Returns 1 if that is the plan, 0 if fast is not below grace (no
 * freeze: the ordinary stop, SIGQUIT twice then SIGKILL, goes on) or
 * a value is negative.  A plan made before is kept where its steps are
 * sooner; a freeze done stays done.
 */
int	vacate_begin(struct vacate *, double now, double grace, double fast);
/*
 * What is due at now, marked done: at most one step a call (a freeze,
 * then at its time the kill, after which nothing is due).
 */
enum vacate_act	vacate_due(struct vacate *, double now);
/* 1 while a step is still to come. */
int	vacate_pending(const struct vacate *);
/* Nothing more is to be done (the worker is gone). */
void	vacate_clear(struct vacate *);

#endif
