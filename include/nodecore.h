/*
 * nodecore — the node manager's state, as a pure function of what it
 * knows: whether the owner is away, the state of its current worker,
 * whether it is fetching a job (what becomes of a worker when the owner
 * comes or goes is nodeworker.h's).  The engine derives the state it reports (CilkNodes' STATE)
 * here and nowhere else, so it cannot drift from the facts.
 */
#ifndef CILKNOW_NODECORE_H
#define CILKNOW_NODECORE_H

#include <stdint.h>

#include "proto.h"

/* The node's current worker, if any. */
enum nc_worker {
	NC_W_NONE = 0,
	NC_W_STARTING,		/* asked the parent to start it */
	NC_W_RUNNING,
	NC_W_FROZEN,		/* suspended: the owner is back */
	NC_W_STOPPING,		/* told to stop, not gone yet */
	NC_W_MAX
};

struct nc_facts {
	int		 nf_owner_away;	/* the predicates hold */
	enum nc_worker	 nf_current;
	int		 nf_stop_pending; /* STARTING, to be stopped once up */
	int		 nf_want_job;	/* a job is assigned, being fetched */
};

/* The state the node is in, given the facts. */
enum proto_node_state nc_node_state(const struct nc_facts *);

/*
 * Slots: the processors a node lends (DESIGN.md sections 5 and 6).  The
 * owner's load keeps keep_stay of the processors lent now (measured by
 * the thresholds to stay idle), taken back at once, and keep_become of
 * those not (the thresholds to become idle), so one is lent again only
 * when the load has fallen below the lower threshold: a load wavering
 * about a threshold does not start and stop a worker at every look.
 * lent_now is what the node lends now.  PRED_KEEP_ALL keeps them all.
 */
#define NC_SLOTS_MAX	256	/* processors one node may lend */
uint32_t nc_slots_lent(uint32_t total, uint32_t lent_now, uint32_t keep_become,
	    uint32_t keep_stay);

/*
 * A node's state (CilkNodes' STATE) from its slots' states, each from
 * nc_node_state: running if any worker runs, else switching, stopping,
 * suspended, idle, busy, in that order.  No slots: busy.
 */
enum proto_node_state nc_node_state_sum(const enum proto_node_state *,
	    uint32_t n);

#endif
