/*
 * CilkNodeManager's engine: its end of the channel to the privileged
 * parent (parent.c).  Requests go out as nmpriv messages; answers and
 * news about workers come back and are handed to worker.c and roots.c.
 * The parent's end closing means the parent is gone: so is the engine.
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

static void
on_parent(struct evloop *loop, int fd, short revents, void *arg)
{
	struct node *n = arg;
	struct nmpriv_msg m;
	ssize_t len;

	(void)revents;
	len = recv(fd, cbuf, sizeof(cbuf), MSG_DONTWAIT | MSG_TRUNC);
	if (len == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (len <= 0) {
		log_warnx("the privileged parent is gone; exiting");
		evloop_break(loop);
		return;
	}
	if ((size_t)len > sizeof(cbuf) || nmpriv_decode(&m, cbuf,
	    (size_t)len) == -1) {
		log_warnx("%s: a malformed message from the parent", __func__);
		return;
	}
	switch (m.nm_type) {
	case NMPRIV_HELLO:
		strlcpy(n->n_cg_base, m.nm_path, sizeof(n->n_cg_base));
		if (!n->n_hello) {
			n->n_hello = 1;
			node_register_now(n);	/* held until now */
		}
		break;
	case NMPRIV_SPAWNED:
		if (node_roots_on_spawned(n, &m) == 0)
			node_on_spawned(n, &m);
		break;
	case NMPRIV_RELOAD:
		/* The parent's SIGHUP: its configuration and keys. */
		(void)dctx_reload_from(&n->n_dc, m.nm_desc, m.nm_desclen);
		break;
	case NMPRIV_INPUT:
		node_idle_on_input(n, &m);
		break;
	case NMPRIV_WORKER:
		if (m.nm_kind == NMPRIV_KIND_ROOT)
			(void)node_roots_on_worker(n, &m);
		else
			node_on_worker(n, &m);
		break;
	default:
		log_warnx("%s: unexpected %s from the parent", __func__,
		    nmpriv_type_name(m.nm_type));
	}
}

void
node_chan_start(struct node *n, int chan)
{
	n->n_chan = chan;
	if (evloop_add_fd(n->n_dc.dc_loop, chan, POLLIN, on_parent, n) == -1)
		fatal("%s: event loop", __func__);
}
