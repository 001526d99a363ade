/*
 * CilkNodeManager's engine: what the privileged parent tells it, read
 * from its end of the channel (chan.c sends the requests) and handed to
 * the files that act on it: answers to SPAWN and news about workers to
 * roots.c and wevents.c, input to idle.c.  The parent's end closing
 * means the parent is gone: so is the engine.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "log.h"
#include "node.h"

static uint8_t	cbuf[NMPRIV_MSG_MAX];

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
node_events_start(struct node *n, int chan)
{
	n->n_chan = chan;
	if (evloop_add_fd(n->n_dc.dc_loop, chan, POLLIN, on_parent, n) == -1)
		fatal("%s: event loop", __func__);
}
