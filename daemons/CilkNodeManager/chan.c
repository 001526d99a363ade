/*
 * CilkNodeManager's engine: its requests to the privileged parent
 * (parent.c), sent as nmpriv messages on its end of the channel; what
 * comes back is read by dctx and handed on by events.c.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "log.h"
#include "node.h"

/*
 * Never blocks (priv's queue).  A request the parent cannot take is
 * worse than our end: it would leave a worker the parent believes
 * wanted, or one we believe stopped.
 */
static void
chan_send(struct node *n, const struct nmpriv_msg *m)
{
	if (nmpriv_send(&n->n_dc.dc_chan, m) == 0)
		return;
	if (errno == EINVAL)
		log_warnx("%s: cannot encode %s", __func__,
		    nmpriv_type_name(m->nm_type));
	else
		fatal("%s: %s to the parent", __func__,
		    nmpriv_type_name(m->nm_type));
}

/* Every request's number, never 0 (a MEAS the engine did not ask for). */
static uint32_t
next_req(struct node *n)
{
	if (++n->n_chan_req == 0)
		n->n_chan_req = 1;
	return n->n_chan_req;
}

uint32_t
node_chan_spawn(struct node *n, uint8_t kind, const char *tag,
    const uint8_t *desc, size_t len)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SPAWN;
	m.nm_req = next_req(n);
	m.nm_kind = kind;
	strlcpy(m.nm_tag, tag, sizeof(m.nm_tag));
	m.nm_desc = desc;
	m.nm_desclen = (uint32_t)len;
	chan_send(n, &m);
	return m.nm_req;
}

void
node_chan_stop(struct node *n, const char *worker, double grace)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_STOP;
	strlcpy(m.nm_worker, worker, sizeof(m.nm_worker));
	m.nm_grace_ms = (uint32_t)(grace * 1000);
	chan_send(n, &m);
}

/* A STOP because the owner is back: frozen after fast (freeze.c). */
void
node_chan_vacate(struct node *n, const char *worker, double grace,
    double fast)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_VACATE;
	strlcpy(m.nm_worker, worker, sizeof(m.nm_worker));
	m.nm_grace_ms = (uint32_t)(grace * 1000);
	m.nm_fast_ms = (uint32_t)(fast * 1000);
	chan_send(n, &m);
}

void
node_chan_freeze(struct node *n, const char *worker, int freeze)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_FREEZE;
	strlcpy(m.nm_worker, worker, sizeof(m.nm_worker));
	m.nm_flag = freeze ? 1 : 0;
	chan_send(n, &m);
}

void
node_chan_forget(struct node *n, const char *worker)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_FORGET;
	strlcpy(m.nm_worker, worker, sizeof(m.nm_worker));
	chan_send(n, &m);
}

/*
 * 1 if the parent takes a PIDQ about pid of user (nmpriv's rule: a
 * question it would refuse ends the engine); else no such process.
 */
int
node_chan_pidq_ok(uint32_t pid, const char *user)
{
	return pid > 1 && pid <= INT32_MAX && lpad_user_ok(user);
}

/* What process pid is (start 0: any), answered by PIDA: its req. */
uint32_t
node_chan_pidq(struct node *n, uint32_t pid, uint64_t start,
    const char *user)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_PIDQ;
	m.nm_req = next_req(n);
	m.nm_pid = pid;
	m.nm_start = start;
	strlcpy(m.nm_user, user, sizeof(m.nm_user));
	chan_send(n, &m);
	return m.nm_req;
}

/* A measurement, answered by MEAS with the request's number. */
uint32_t
node_chan_sense(struct node *n)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SENSE;
	m.nm_req = next_req(n);
	chan_send(n, &m);
	return m.nm_req;
}
