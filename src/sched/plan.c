/*
 * plan — the improved rule: every node with a fresh global view computes
 * the same integer targets and the same numbering of movers and deficit
 * slots, so the nodes agree on who moves where without talking.
 */
#include "fairshare.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct plan_cand {
	double		pc_frac;	/* share - floor(share) */
	uint32_t	pc_job;
	int		pc_has_hi;	/* count >= ceil(share) already */
};

struct sched_plan {
	size_t		 pl_njobs;
	double		*pl_share;
	uint32_t	*pl_target;
	uint32_t	*pl_count;
	uint64_t	*pl_offset;	/* first mover number of an over job */
	uint64_t	*pl_slot;	/* first deficit slot of each job */
	struct plan_cand *pl_cand;
	uint64_t	 pl_excess;	/* sum of excesses */
	uint64_t	 pl_deficit;	/* sum of deficits */
	uint64_t	 pl_moves;	/* min of the two */
};

struct sched_plan *
sched_plan_new(size_t njobs)
{
	struct sched_plan *pl;

	if (njobs == 0 || njobs > UINT32_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((pl = calloc(1, sizeof(*pl))) == NULL)
		return NULL;
	pl->pl_njobs = njobs;
	pl->pl_share = calloc(njobs, sizeof(*pl->pl_share));
	pl->pl_target = calloc(njobs, sizeof(*pl->pl_target));
	pl->pl_count = calloc(njobs, sizeof(*pl->pl_count));
	pl->pl_offset = calloc(njobs, sizeof(*pl->pl_offset));
	pl->pl_slot = calloc(njobs + 1, sizeof(*pl->pl_slot));
	pl->pl_cand = calloc(njobs, sizeof(*pl->pl_cand));
	if (pl->pl_share == NULL || pl->pl_target == NULL ||
	    pl->pl_count == NULL || pl->pl_offset == NULL ||
	    pl->pl_slot == NULL || pl->pl_cand == NULL) {
		sched_plan_free(pl);
		errno = ENOMEM;
		return NULL;
	}
	return pl;
}

void
sched_plan_free(struct sched_plan *pl)
{
	if (pl == NULL)
		return;
	free(pl->pl_cand);
	free(pl->pl_slot);
	free(pl->pl_offset);
	free(pl->pl_count);
	free(pl->pl_target);
	free(pl->pl_share);
	free(pl);
}

/* Ceilings first to jobs that hold one, then larger fraction, then index. */
static int
cand_cmp(const void *a, const void *b)
{
	const struct plan_cand *x = a, *y = b;

	if (x->pc_has_hi != y->pc_has_hi)
		return y->pc_has_hi - x->pc_has_hi;
	if (x->pc_frac != y->pc_frac)
		return x->pc_frac > y->pc_frac ? -1 : 1;
	if (x->pc_job != y->pc_job)
		return x->pc_job < y->pc_job ? -1 : 1;
	return 0;
}

int
sched_plan_update(struct sched_plan *pl, const uint32_t *counts,
    const double *weights, const uint32_t *caps)
{
	uint64_t total = 0, floors = 0, extra, excess, deficit;
	double sum = 0;
	size_t j, ncand = 0;
	uint32_t lo, hi;

	for (j = 0; j < pl->pl_njobs; j++)
		total += counts[j];
	if (sched_fair_shares(total, pl->pl_njobs, weights, caps,
	    pl->pl_share) == -1)
		return -1;
	for (j = 0; j < pl->pl_njobs; j++) {
		pl->pl_count[j] = counts[j];
		sched_share_bounds(pl->pl_share[j], &lo, &hi);
		pl->pl_target[j] = lo;
		floors += lo;
		sum += pl->pl_share[j];
		if (hi > lo) {
			pl->pl_cand[ncand].pc_frac = pl->pl_share[j] - lo;
			pl->pl_cand[ncand].pc_job = (uint32_t)j;
			pl->pl_cand[ncand].pc_has_hi = counts[j] >= hi;
			ncand++;
		}
	}
	/* The ceilings needed so that the targets sum to the shares' sum. */
	extra = (uint64_t)llround(sum) > floors ?
	    (uint64_t)llround(sum) - floors : 0;
	if (extra > ncand)
		extra = ncand;
	if (extra > 0 && extra < ncand)
		qsort(pl->pl_cand, ncand, sizeof(*pl->pl_cand), cand_cmp);
	for (j = 0; j < extra; j++)
		pl->pl_target[pl->pl_cand[j].pc_job]++;

	excess = deficit = 0;
	for (j = 0; j < pl->pl_njobs; j++) {
		pl->pl_offset[j] = excess;
		pl->pl_slot[j] = deficit;
		if (counts[j] > pl->pl_target[j])
			excess += counts[j] - pl->pl_target[j];
		else
			deficit += pl->pl_target[j] - counts[j];
	}
	pl->pl_slot[pl->pl_njobs] = deficit;
	pl->pl_excess = excess;
	pl->pl_deficit = deficit;
	pl->pl_moves = excess < deficit ? excess : deficit;
	return 0;
}

/* The job holding deficit slot g (g < pl_deficit): binary search. */
static int64_t
slot_job(const struct sched_plan *pl, uint64_t g)
{
	size_t lo = 0, hi = pl->pl_njobs, mid;

	/* Largest j with pl_slot[j] <= g; its deficit is non-zero. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (pl->pl_slot[mid] <= g)
			lo = mid;
		else
			hi = mid;
	}
	return (int64_t)lo;
}

int64_t
sched_plan_move(const struct sched_plan *pl, size_t job, uint64_t rank)
{
	uint64_t g;

	if (job >= pl->pl_njobs ||
	    pl->pl_count[job] <= pl->pl_target[job] ||
	    rank >= (uint64_t)pl->pl_count[job] - pl->pl_target[job])
		return -1;
	g = pl->pl_offset[job] + rank;
	if (g >= pl->pl_moves)
		return -1;
	return slot_job(pl, g);
}

int64_t
sched_plan_move_random(const struct sched_plan *pl, size_t job,
    struct sched_rng *rng)
{
	double p;

	if (job >= pl->pl_njobs || pl->pl_count[job] <= pl->pl_target[job] ||
	    pl->pl_moves == 0)
		return -1;
	/* X_j / m_j, scaled down when the caps leave too few slots. */
	p = (double)(pl->pl_count[job] - pl->pl_target[job]) /
	    pl->pl_count[job] * ((double)pl->pl_moves / pl->pl_excess);
	if (sched_rng_unit(rng) >= p)
		return -1;
	return slot_job(pl, sched_rng_below(rng, pl->pl_deficit));
}

uint32_t
sched_plan_target(const struct sched_plan *pl, size_t job)
{
	return job < pl->pl_njobs ? pl->pl_target[job] : 0;
}

double
sched_plan_share(const struct sched_plan *pl, size_t job)
{
	return job < pl->pl_njobs ? pl->pl_share[job] : 0;
}

uint64_t
sched_plan_moves(const struct sched_plan *pl)
{
	return pl->pl_moves;
}
