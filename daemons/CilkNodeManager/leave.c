/*
 * CilkNodeManager: leaving the cluster (CilkNodeManager -k while it
 * runs, which sends the main process SIGUSR1; the main process passes
 * it to the engine).  The engine takes no more work, stops every worker
 * as when the owner returns (SIGQUIT, stop_grace, SIGKILL), and relays
 * each worker's end to its job manager, which counts a stopped task as
 * "stopped by its node" and runs it again at once elsewhere; once every
 * end is acknowledged (or after twice stop_grace and some seconds for
 * the job managers), the engine exits 0 and the main process with it.
 *
 * SIGTERM does not do this: a node manager restarted (an upgrade, a
 * reload of what needs a restart) adopts its running workers again,
 * which is why the unit's KillMode is process (DESIGN.md, CilkLaunchPad).
 */
#include <signal.h>

#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "node.h"

static void
leave_check(struct evloop *loop, void *arg)
{
	struct node *n = arg;
	struct worker *w;
	int left = 0;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		left++;
	if (left == 0) {
		log_info("left: every worker's end was told to its job "
		    "manager");
		node_register_now(n);	/* now the broker hears it */
		evloop_break(loop);
		return;
	}
	if (now_mono() >= n->n_leave_by) {
		log_warnx("left with %d worker(s) whose end no job manager "
		    "acknowledged in time", left);
		n->n_leaving = 2;	/* register.c: say it all the same */
		node_register_now(n);
		evloop_break(loop);
		return;
	}
	if (evloop_timer_add(loop, 0.1, leave_check, n) == NULL) {
		log_warn("%s: timer", __func__);
		evloop_break(loop);
	}
}

static void
on_leave(struct evloop *loop, int signo, void *arg)
{
	struct node *n = arg;

	(void)signo;
	if (n->n_leaving)
		return;
	n->n_leaving = 1;
	log_info("leaving the cluster: stopping every worker and telling "
	    "their job managers");
	/* As if the owner were back for good: no work is taken. */
	n->n_owner_away = 0;
	node_stop_all(n, "this node is leaving the cluster");
	node_update_state(n);
	n->n_leave_by = now_mono() + 2 * n->n_grace + LPAD_TIMEOUT +
	    3 * n->n_timeout;
	leave_check(loop, n);
}

void
node_leave_start(struct node *n)
{
	if (evloop_signal(n->n_dc.dc_loop, SIGUSR1, on_leave, n) == -1)
		fatal("%s: event loop", __func__);
}
