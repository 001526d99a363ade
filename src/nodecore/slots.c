/*
 * nodecore — a node's state as the sum of its slots' states.
 */
#include "nodecore.h"

uint32_t
nc_slots_lent(uint32_t total, uint32_t lent_now, uint32_t keep_become,
    uint32_t keep_stay)
{
	uint32_t most = keep_stay >= total ? 0 : total - keep_stay;
	uint32_t least = keep_become >= total ? 0 : total - keep_become;

	if (lent_now > total)
		lent_now = total;
	if (lent_now > most)
		return most;		/* the owner takes back at once */
	if (lent_now < least)
		return least;		/* lower thresholds met: lend more */
	return lent_now;
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
