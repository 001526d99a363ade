/*
 * CilkNodeManager: the owner's machine back within a second (vacate.h,
 * stop_grace_fast in cilknow.conf(5)).  The engine asks the parent to
 * VACATE a worker its owner wants gone, instead of an ordinary STOP;
 * the parent, which alone holds the cgroups, freezes the worker if it
 * is still there stop_grace_fast seconds later and kills it once
 * stop_grace is over.  Its launch pad, which sends the SIGQUITs, finds
 * the worker frozen when its grace is over and kills it instead of
 * thawing it for a second SIGQUIT (CilkLaunchPad(8)).  (Which worker
 * is vacated: nodeworker's nw_owner_back, worker.c.)
 */
#include <errno.h>
#include <string.h>

#include "contain.h"
#include "log.h"
#include "mono.h"
#include "node.h"
#include "vacate.h"

/* 1 if stop_grace_fast is below stop_grace, as the parent hears them. */
int
node_vacate_fast(const struct node *n)
{
	return (uint32_t)(n->n_grace_fast * 1000) <
	    (uint32_t)(n->n_grace * 1000);
}

/* Parent: a VACATE's plan (vacate.h); 1 if a freeze is planned. */
int
node_vacate_plan(struct vacate *v, const char *worker, double grace,
    double fast)
{
	if (vacate_begin(v, now_mono(), grace, fast) == 0)
		return 0;
	log_info("worker %s: its owner is back: frozen if still there in "
	    "%.3g s, killed after %.3g s", worker, fast, grace);
	return 1;
}

/*
 * Parent: what of the plan is due now, done: the freeze, or the kill
 * (of every process of the worker, frozen or not: SIGKILL ends frozen
 * and stopped processes alike).  1 once the worker was told to die.
 */
int
node_vacate_step(struct vacate *v, const char *worker, const char *cg,
    pid_t lpad)
{
	switch (vacate_due(v, now_mono())) {
	case VACATE_FREEZE:
		if (contain_freeze(cg, lpad, 1) == -1)
			log_warn("worker %s: cannot freeze it", worker);
		else
			log_info("worker %s: still there after stop_grace_fast:"
			    " frozen until stop_grace is over", worker);
		return 0;
	case VACATE_KILL:
		if (contain_kill(cg, lpad) == -1 && errno != ESRCH)
			log_warn("worker %s: cannot kill it", worker);
		else
			log_info("worker %s: stop_grace is over: killed",
			    worker);
		return 1;
	default:
		return 0;
	}
}
