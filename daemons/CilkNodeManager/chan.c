/*
 * CilkNodeManager's engine: its requests to the privileged parent
 * (parent.c), sent as nmpriv messages on its end of the channel; what
 * comes back is read and handed on by events.c.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "node.h"

static uint8_t	cbuf[NMPRIV_MSG_MAX];

static void	on_watchdog(struct evloop *, void *);

static void
chan_send(struct node *n, const struct nmpriv_msg *m)
{
	size_t len;

	if (nmpriv_encode(m, cbuf, sizeof(cbuf), &len) == -1) {
		log_warnx("%s: cannot encode %s", __func__,
		    nmpriv_type_name(m->nm_type));
		return;
	}
	/* Blocking: the parent reads at once, and a lost request is worse. */
	if (send(n->n_chan, cbuf, len, MSG_NOSIGNAL) == -1)
		fatal("%s: %s to the parent", __func__,
		    nmpriv_type_name(m->nm_type));
}

uint32_t
node_chan_spawn(struct node *n, uint8_t kind, const char *tag,
    const uint8_t *desc, size_t len)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SPAWN;
	m.nm_req = ++n->n_chan_req;
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

void
node_chan_ready(struct node *n)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_READY;
	chan_send(n, &m);
	if (n->n_dc.dc_watchdog_usec > 0)
		on_watchdog(n->n_dc.dc_loop, n);
}

void
node_chan_scan(struct node *n)
{
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_SCAN;
	chan_send(n, &m);
}

/*
 * systemd's watchdog watches the engine's loop, the one that reads the
 * network: the parent passes WATCHDOG on only when we say so.
 */
static void
on_watchdog(struct evloop *loop, void *arg)
{
	struct node *n = arg;
	struct nmpriv_msg m;

	memset(&m, 0, sizeof(m));
	m.nm_type = NMPRIV_WATCHDOG;
	chan_send(n, &m);
	if (evloop_timer_add(loop, (double)n->n_dc.dc_watchdog_usec / 2e6,
	    on_watchdog, n) == NULL)
		log_warn("%s: timer", __func__);
}
