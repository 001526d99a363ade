/*
 * CilkNodeManager's engine: what the privileged parent tells it, read
 * by dctx from its end of the channel (chan.c sends the requests) and
 * handed to the files that act on it: answers to SPAWN and news about
 * workers to roots.c and wevents.c, input and measurements to idle.c.  The parent's end
 * closing means the parent is gone: dctx ends the engine.
 */
#include <string.h>

#include "log.h"
#include "node.h"

/* dctx_spec's ds_chan_msg: one of nmpriv's messages from the parent. */
int
node_chan_msg(struct dctx *dc, uint16_t type, const uint8_t *body,
    size_t len)
{
	struct node *n = dc->dc_arg;
	struct nmpriv_msg m;

	if (nmpriv_decode_body(&m, type, body, len) == -1)
		return -1;
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
	case NMPRIV_INPUT:
		node_idle_on_input(n, &m);
		break;
	case NMPRIV_PIDA:
		if (node_roots_on_pida(n, &m) == 0 &&
		    node_procq_on_pida(n, &m) == 0)
			log_debug("%s: an answer to no question (%u)",
			    __func__, m.nm_req);
		break;
	case NMPRIV_MEAS:
		node_idle_on_meas(n, &m);
		/* None asked again: measured after every check came. */
		if (n->n_sense_asked == 0)
			node_pred_checks_answer(n);
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
	return 0;
}
