/*
 * share — max-min fair shares by water-filling, and the two convergence
 * tests CilkSim reports (within one processor, exact).
 */
#include "fairshare.h"

#include <errno.h>
#include <math.h>

#define SHARE_UNSET	(-1.0)

static double
weight_of(const double *weights, size_t j)
{
	return weights == NULL ? 1.0 : weights[j];
}

static uint32_t
cap_of(const uint32_t *caps, size_t j)
{
	return caps == NULL ? 0 : caps[j];
}

/*
 * Raise the water level L; every capped job whose cap is at or below
 * w_j * L is fixed at its cap and leaves the pool, which raises L for the
 * others.  Each round fixes at least one job or ends, so at most njobs + 1
 * rounds of O(njobs).
 */
int
sched_fair_shares(uint64_t procs, size_t njobs, const double *weights,
    const uint32_t *caps, double *shares)
{
	double left, wsum, level, w;
	size_t j;
	int fixed;

	if (njobs == 0) {
		errno = EINVAL;
		return -1;
	}
	for (j = 0; j < njobs; j++) {
		w = weight_of(weights, j);
		if (!isfinite(w) || w <= 0) {
			errno = EINVAL;
			return -1;
		}
		shares[j] = SHARE_UNSET;
	}
	left = (double)procs;
	for (;;) {
		wsum = 0;
		for (j = 0; j < njobs; j++)
			if (shares[j] == SHARE_UNSET)
				wsum += weight_of(weights, j);
		if (wsum == 0)
			break;		/* every job at its cap */
		level = left / wsum;
		fixed = 0;
		for (j = 0; j < njobs; j++) {
			if (shares[j] != SHARE_UNSET || cap_of(caps, j) == 0)
				continue;
			if (cap_of(caps, j) <= weight_of(weights, j) * level *
			    (1 + 1e-12)) {
				shares[j] = cap_of(caps, j);
				left -= shares[j];
				fixed = 1;
			}
		}
		if (fixed)
			continue;
		for (j = 0; j < njobs; j++)
			if (shares[j] == SHARE_UNSET)
				shares[j] = weight_of(weights, j) * level;
		break;
	}
	return 0;
}

void
sched_share_bounds(double share, uint32_t *lo, uint32_t *hi)
{
	double eps = 1e-9 * (share + 1);

	if (share <= 0) {
		*lo = *hi = 0;
		return;
	}
	*lo = (uint32_t)floor(share + eps);
	*hi = (uint32_t)ceil(share - eps);
	if (*hi < *lo)
		*hi = *lo;
}

int
sched_within_one(size_t njobs, const uint32_t *counts, const double *shares)
{
	uint32_t lo, hi;
	size_t j;

	for (j = 0; j < njobs; j++) {
		sched_share_bounds(shares[j], &lo, &hi);
		if ((uint64_t)counts[j] + 1 < lo ||
		    counts[j] > (uint64_t)hi + 1)
			return 0;
	}
	return 1;
}

int
sched_exact(size_t njobs, const uint32_t *counts, const double *shares)
{
	uint32_t lo, hi;
	size_t j;

	for (j = 0; j < njobs; j++) {
		sched_share_bounds(shares[j], &lo, &hi);
		if (counts[j] < lo || counts[j] > hi)
			return 0;
	}
	return 1;
}
