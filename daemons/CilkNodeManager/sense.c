/*
 * CilkNodeManager's engine: is the owner away?  The parent measured
 * (measure.c: the system's sensors or a sensor file, the input
 * devices, logind), this takes the node's own workers out of the load,
 * then the predicates judge (npred.c).  What follows from the answer,
 * and when the next look is, is idle.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"

/*
 * Judges the parent's measurement (MEAS).  Returns 1 if the owner is
 * away (every applicable predicate holds), 0 if not; a node that could
 * not measure is busy: fail closed.
 */
int
node_sense(struct node *n, const struct nmpriv_msg *m)
{
	struct pred_eval ev;
	uint32_t keep;
	int rc, others;

	loadmodel_update(&n->n_loadmodel, now_mono(), node_slots_running(n));
	if (!m->nm_flag) {
		log_warnx("%s: %s; counting the node as busy", __func__,
		    m->nm_why);
		return 0;
	}
	n->n_meas = m->nm_meas;
	/*
	 * Our own workers do not make the owner present (thesis 5.1.3); a
	 * sensor file's load is the owner's alone.
	 */
	if (n->n_sensor_path[0] == '\0')
		loadmodel_subtract(&n->n_loadmodel, n->n_meas.pm_load,
		    n->n_meas.pm_load);
	node_pred_report_users(n);
	/*
	 * By load, the owner's load keeps processors and the node is idle
	 * while the rest of the predicates hold and one is left to lend;
	 * what it keeps is measured by both sets of thresholds, for the
	 * processors lent (to stay) and those not (to become).
	 */
	if (node_pred_eval(n, &ev, !n->n_owner_away) == -1) {
		log_warn("%s: predicates", __func__);
		return 0;
	}
	keep = pred_eval_keep(&ev, &others);
	pred_eval_fini(&ev);
	if (node_pred_eval(n, &ev, n->n_owner_away) == -1) {
		log_warn("%s: predicates", __func__);
		return 0;
	}
	if (n->n_owner_away) {
		n->n_keep_become = keep;
		n->n_keep_stay = pred_eval_keep(&ev, &others);
	} else {
		n->n_keep_stay = keep;
		n->n_keep_become = pred_eval_keep(&ev, &others);
	}
	if (strcmp(conf_get(n->n_dc.dc_conf, "slots_by_load"), "no") == 0)
		rc = ev.pv_idle;
	else
		rc = others && (n->n_owner_away ? n->n_keep_stay :
		    n->n_keep_become) < n->n_total;
	pred_eval_fini(&ev);
	return rc;
}

/*
 * A processor begins to switch to a job: from now on the owner's return
 * is seen within a second, as with a worker running, not at the next
 * idle look (5 s), which came after the worker had started.
 */
void
node_sense_soon(struct node *n)
{
	if (n->n_sense_timer == NULL ||
	    n->n_sense_due <= now_mono() + NODE_POLL_WORKING)
		return;
	n->n_sense_due = now_mono() + NODE_POLL_WORKING;
	/* idle.c's look, sooner (not firing: then it would be NULL) */
	(void)evloop_timer_move(n->n_dc.dc_loop, n->n_sense_timer,
	    NODE_POLL_WORKING);
}
