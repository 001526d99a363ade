/*
 * nodecore — how many processors a node lends, and its state as the sum
 * of its slots' states.
 */
#include <math.h>

#include "nodecore.h"

static uint32_t
owner_cpus(double load, double slack)
{
	double c = ceil(load - slack);

	return c > 0 ? (uint32_t)c : 0;
}

uint32_t
nc_slots_lent(uint32_t total, double owner_load, uint32_t lent_now)
{
	uint32_t owner, take, give;

	/* A load we cannot read is a load we cannot lend around. */
	if (isnan(owner_load))
		return 0;
	if (lent_now > total)
		lent_now = total;
	owner = total - lent_now;
	take = owner_cpus(owner_load, NC_LOAD_SLACK);
	give = owner_cpus(owner_load, NC_LOAD_SLACK - NC_LEND_MARGIN);
	/* The owner takes back at once; is given back with a margin. */
	if (take > owner)
		owner = take;
	else if (give < owner)
		owner = give;
	return owner >= total ? 0 : total - owner;
}

/* The most telling first: a node with any worker running is running. */
static int
rank(enum proto_node_state s)
{
	switch (s) {
	case PROTO_NS_RUNNING:
		return 6;
	case PROTO_NS_SWITCHING:
		return 5;
	case PROTO_NS_STOPPING:
		return 4;
	case PROTO_NS_SUSPENDED:
		return 3;
	case PROTO_NS_IDLE:
		return 2;
	case PROTO_NS_BUSY:
		return 1;
	default:
		return 0;
	}
}

enum proto_node_state
nc_node_state_sum(const enum proto_node_state *slots, uint32_t n)
{
	enum proto_node_state best = PROTO_NS_BUSY;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (rank(slots[i]) > rank(best))
			best = slots[i];
	return best;
}
