/*
 * peer — whom a lent processor pairs with.  The thesis's rule assumes a
 * processor meets a uniformly random processor; on nodes that lend
 * several, that is a node drawn in proportion to what it lends, then one
 * of its processors.
 */
#include "fairshare.h"

size_t
sched_peer_pick(struct sched_rng *rng, const uint32_t *slots, size_t n)
{
	uint64_t total = 0, k;
	size_t i;

	for (i = 0; i < n; i++)
		total += slots[i];
	if (total == 0)
		return n;
	k = sched_rng_below(rng, total);
	for (i = 0; i < n; i++) {
		if (k < slots[i])
			return i;
		k -= slots[i];
	}
	return n;	/* not reached */
}
