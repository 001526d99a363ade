/*
 * CilkNodeManager: a node whose starts fail node_fault_limit times in a
 * row for reasons of its own goes down by itself (nodedown.h): it says
 * why to the broker (NODE_DOWN, at once and with every registration
 * while down: register.c), takes no work, and comes back when the
 * broker gives it work again after CilkNodes resume NODE.  A restart of
 * the node manager forgets the count here, but the broker keeps the
 * node down until it is resumed (broker_health.h).
 */
#include "log.h"
#include "mono.h"
#include "node.h"

void
node_fault_counted(struct node *n, const char *why)
{
	uint32_t limit;

	if (conf_get_count(n->n_dc.dc_conf, "node_fault_limit", &limit) == -1)
		limit = ND_LIMIT_DEFAULT;
	nd_set_limit(&n->n_nd, limit);
	if (!nd_fault(&n->n_nd, why))
		return;
	n->n_down_at = now_mono();
	log_warnx("this node is down: %s; it takes no work until an "
	    "administrator runs CilkNodes resume %s", n->n_nd.nd_reason,
	    n->n_name);
	node_down_report(n);
	node_register_now(n);	/* the broker hears it with our state */
}

void
node_start_counted(struct node *n)
{
	nd_started(&n->n_nd);
}

/*
 * An assignment came.  While down it is the broker's word that we were
 * resumed, if the broker has answered our last registration, sent
 * after our report (an assignment made before the broker heard it may
 * cross it): up again, 0.  1 if it is refused (down, and the broker
 * may not have heard yet).  A report lost on the way and an assignment
 * after it take the node up again too: it goes down again after
 * node_fault_limit more faults.
 */
int
node_down_on_assign(struct node *n)
{
	if (!n->n_nd.nd_down)
		return 0;
	if (n->n_sent_at < n->n_down_at || n->n_acked_at < n->n_sent_at) {
		log_debug("an assignment while down: refused");
		return 1;
	}
	(void)nd_resumed(&n->n_nd);
	log_warnx("this node is up again: the broker gives it work "
	    "(CilkNodes resume)");
	return 0;
}
