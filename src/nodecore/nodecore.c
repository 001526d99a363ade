/* nodecore — the node manager's state as a function of its facts. */
#include "nodecore.h"

enum proto_node_state
nc_node_state(const struct nc_facts *f)
{
	switch (f->nf_current) {
	case NC_W_STARTING:
		return f->nf_stop_pending ? PROTO_NS_STOPPING :
		    PROTO_NS_SWITCHING;
	case NC_W_RUNNING:
		return PROTO_NS_RUNNING;
	case NC_W_FROZEN:
		return PROTO_NS_SUSPENDED;
	case NC_W_STOPPING:
		return PROTO_NS_STOPPING;
	default:
		break;
	}
	if (!f->nf_owner_away)
		return PROTO_NS_BUSY;
	return f->nf_want_job ? PROTO_NS_SWITCHING : PROTO_NS_IDLE;
}
