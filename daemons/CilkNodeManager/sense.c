/*
 * CilkNodeManager: is the owner away?  The sensors measured (the
 * system's, or a sensor file; the input devices the parent reads;
 * logind), then the predicates judged (npred.c).  What follows from
 * the answer, and when the next look is, is idle.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "sensors.h"

#define SESSIONS_MAX	256
#define LOGIND_RETRY	60.0	/* seconds before connecting again */

/*
 * No input device to read: logind's idle hint stands in (the logind
 * key: the system bus, a D-Bus address, or none).  A bus that is not
 * there is tried again a minute later, and said once.
 */
static int
logind_idle(struct node *nd, double *idle)
{
	const char *where = conf_get(nd->n_dc.dc_conf, "logind");
	double now = now_mono();

	if (strcmp(where, "none") == 0)
		return -1;
	if (nd->n_logind.sl_bus == NULL) {
		if (now < nd->n_logind_retry)
			return -1;
		if (sensors_logind_open(&nd->n_logind,
		    strcmp(where, "system") == 0 ? NULL : where) == -1) {
			if (nd->n_logind_retry == 0)
				log_warning("logind (%s): %s; idleness from "
				    "terminals only", where, strerror(errno));
			nd->n_logind_retry = now + LOGIND_RETRY;
			return -1;
		}
		log_info("logind (%s): reading its idle hint", where);
	}
	if (sensors_logind_idle(&nd->n_logind, idle) == -1) {
		log_warning("logind (%s): %s; connecting again later", where,
		    strerror(errno));
		sensors_logind_close(&nd->n_logind);
		nd->n_logind_retry = now + LOGIND_RETRY;
		return -1;
	}
	return 0;
}

/*
 * The input devices the parent reads: 0 if none.  Until its first word
 * the owner may be there: input now (fail closed).
 */
static int
input_idle(const struct node *n, double *idle)
{
	double d;

	if (!n->n_input_told) {
		*idle = 0;
		return 1;
	}
	if (n->n_input_devices == 0)
		return 0;
	d = now_mono() - n->n_input_last;
	*idle = d > 0 ? d : 0;
	return 1;
}

/* The system's own measurements. */
static int
sense_system(struct node *nd, struct pred_meas *m)
{
	static struct sensors_session s[SESSIONS_MAX];
	struct timespec now;
	size_t n = 0;

	sensors_meas_init(m);
	if (sensors_read_loadavg("/proc/loadavg", m->pm_load) == -1)
		return -1;
	/* Our own workers do not make the owner present (thesis 5.1.3). */
	loadmodel_update(&nd->n_loadmodel, now_mono(),
	    node_slots_running(nd));
	loadmodel_subtract(&nd->n_loadmodel, m->pm_load, m->pm_load);
	(void)sensors_read_meminfo("/proc/meminfo", &m->pm_mem);
	if (clock_gettime(CLOCK_REALTIME, &now) == -1 ||
	    sensors_tod(now.tv_sec, &m->pm_tod) == -1)
		m->pm_tod = -1;
	/* Terminals without their own measure count as the devices say. */
	if (!input_idle(nd, &m->pm_idle))
		(void)logind_idle(nd, &m->pm_idle);
	if (sensors_read_utmp("/var/run/utmp", s, SESSIONS_MAX, &n) == -1 &&
	    errno != ENOENT)
		return -1;
	return sensors_users(m, s, n, "/dev", &now);
}

/*
 * Measures and evaluates.  Returns 1 if the owner is away (every
 * applicable predicate holds), 0 if not; a node that cannot measure is
 * busy: fail closed.
 */
int
node_sense(struct node *n)
{
	struct pred_eval ev;
	char err[256];
	uint32_t keep;
	int rc, others;

	if (n->n_sensor_path[0] != '\0') {
		double in;

		rc = sensors_file_read(n->n_sensor_path, &n->n_meas, err,
		    sizeof(err));
		/* The file's load is the owner's; the model, the guests'. */
		loadmodel_update(&n->n_loadmodel, now_mono(),
		    node_slots_running(n));
		/* Input devices, if configured, count with the file. */
		if (rc == 0 && input_idle(n, &in) &&
		    in < n->n_meas.pm_idle)
			n->n_meas.pm_idle = in;
		/* Free memory the file does not give, the system does. */
		if (rc == 0 && n->n_meas.pm_mem < 0)
			(void)sensors_read_meminfo("/proc/meminfo",
			    &n->n_meas.pm_mem);
	} else {
		rc = sense_system(n, &n->n_meas);
		snprintf(err, sizeof(err), "system sensors: %s",
		    strerror(errno));
	}
	if (rc == -1) {
		log_warnx("%s: %s; counting the node as busy", __func__, err);
		return 0;
	}
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
