/*
 * CilkNodeManager's privileged parent: what the sensors measure (DESIGN
 * §9: the parent holds the devices, so the engine, which reads the
 * network, reads nothing of the owner's).  The system's own sensors
 * (load, memory, time of day, logins and their terminals, the input
 * devices input.c reads, else logind's idle hint) or, instead, the
 * sensor file; measured when the engine asks (SENSE) and sent back
 * (MEAS).  Loads still hold the node's own workers: the engine, which
 * knows them, takes them out (sense.c).
 */
#include <errno.h>
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

/* The system's own measurements. */
static int
measure_system(struct node *nd, struct pred_meas *m)
{
	static struct sensors_session s[SESSIONS_MAX];
	struct timespec now;
	size_t n = 0;

	sensors_meas_init(m);
	if (sensors_read_loadavg("/proc/loadavg", m->pm_load) == -1)
		return -1;
	(void)sensors_read_meminfo("/proc/meminfo", &m->pm_mem);
	if (clock_gettime(CLOCK_REALTIME, &now) == -1 ||
	    sensors_tod(now.tv_sec, &m->pm_tod) == -1)
		m->pm_tod = -1;
	/* Terminals without their own measure count as the devices say. */
	if (!node_input_idle(nd, &m->pm_idle))
		(void)logind_idle(nd, &m->pm_idle);
	if (sensors_read_utmp("/var/run/utmp", s, SESSIONS_MAX, &n) == -1 &&
	    errno != ENOENT)
		return -1;
	return sensors_users(m, s, n, "/dev", &now);
}

/* The sensor file's, with the devices' input and the system's memory. */
static int
measure_file(struct node *n, struct pred_meas *m, char *err, size_t errlen)
{
	double in;

	if (sensors_file_read(n->n_sensor_path, m, err, errlen) == -1)
		return -1;
	if (node_input_idle(n, &in) && in < m->pm_idle)
		m->pm_idle = in;
	if (m->pm_mem < 0)
		(void)sensors_read_meminfo("/proc/meminfo", &m->pm_mem);
	return 0;
}

int
node_measure(struct node *n, struct pred_meas *m, char *err, size_t errlen)
{
	if (n->n_sensor_path[0] != '\0')
		return measure_file(n, m, err, errlen);
	if (measure_system(n, m) == 0)
		return 0;
	snprintf(err, errlen, "system sensors: %s", strerror(errno));
	return -1;
}

/*
 * Where logind knows no session, idle time counts from the last one:
 * the newest login or logout wtmp records, else our own start; never
 * from boot, which would lend a node at once after its owner logs out
 * (logind forgets a session when it ends).
 */
void
node_measure_start(struct node *n)
{
	double now = now_mono(), when, ago;

	n->n_logind.sl_session = now;
	if (sensors_read_last_session("/var/log/wtmp", &when) == -1)
		return;
	ago = (double)now_real_ns() / 1e9 - when;
	if (ago > 0)
		n->n_logind.sl_session = now - ago;
}

void
node_measure_stop(struct node *n)
{
	sensors_logind_close(&n->n_logind);
}
