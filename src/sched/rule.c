/*
 * rule — the pairwise switching decision of the thesis (Lisiecki 1996,
 * section 4.2) with weights and caps, and the simulator's alternatives.
 */
#include "fairshare.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static const char *const policy_names[SCHED_P_MAX] = {
	[SCHED_P_THESIS] = "thesis",
	[SCHED_P_NAIVE] = "naive",
	[SCHED_P_FIXED] = "fixed",
	[SCHED_P_IMPROVED] = "improved",
	[SCHED_P_TARGETED] = "targeted",
};

static double
job_count(const struct sched_job *j)
{
	/* A peer answered, so its job runs on at least one node. */
	return j->sj_count == 0 ? 1.0 : (double)j->sj_count;
}

static int
weight_ok(double w)
{
	return isfinite(w) && w > 0;
}

int
sched_job_full(const struct sched_job *j)
{
	return j->sj_cap != 0 && j->sj_count >= j->sj_cap;
}

static int
over_cap(const struct sched_job *j)
{
	return j->sj_cap != 0 && j->sj_count > j->sj_cap;
}

int
sched_improves(const struct sched_job *mine, const struct sched_job *peer)
{
	double mp, mq;

	if (sched_job_full(peer))
		return 0;
	if (over_cap(mine))
		return 1;
	mp = job_count(mine);
	mq = job_count(peer);
	/* (m_p - 1) / w_p >= (m_q + 1) / w_q, without dividing. */
	return (mp - 1) * peer->sj_weight >= (mq + 1) * mine->sj_weight;
}

double
sched_rho(const struct sched_job *mine, const struct sched_job *peer)
{
	double mp, mq, wp, wq, desired, expected, rho;

	if (!sched_improves(mine, peer))
		return 0;
	mp = job_count(mine);
	mq = job_count(peer);
	wp = mine->sj_weight;
	wq = peer->sj_weight;
	desired = 0;
	if ((mp - 1) * wq >= (mq + 1) * wp)
		desired = (mp * wq - mq * wp) / (wp + wq);
	if (over_cap(mine) && mp - mine->sj_cap > desired)
		desired = mp - mine->sj_cap;
	if (peer->sj_cap != 0 && desired > peer->sj_cap - mq)
		desired = peer->sj_cap - mq;
	if (desired <= 0)
		return 0;
	expected = mp * mq / (mp + mq);
	rho = desired / expected;
	return rho > 1 ? 1 : rho;
}

int
sched_decide(const struct sched_rule *ru, const struct sched_job *mine,
    const struct sched_job *peer, struct sched_rng *rng)
{
	double rho;

	if (!weight_ok(mine->sj_weight) || !weight_ok(peer->sj_weight)) {
		errno = EINVAL;
		return -1;
	}
	switch (ru->ru_policy) {
	case SCHED_P_THESIS:
	case SCHED_P_IMPROVED:
	case SCHED_P_TARGETED:
		rho = sched_rho(mine, peer);
		if (rho <= 0)
			return 0;
		if (rho >= 1)
			return 1;
		return sched_rng_unit(rng) < rho;
	case SCHED_P_NAIVE:
		if (sched_job_full(peer))
			return 0;
		return job_count(peer) * mine->sj_weight <
		    job_count(mine) * peer->sj_weight;
	case SCHED_P_FIXED:
		if (!(ru->ru_fixed_p >= 0 && ru->ru_fixed_p <= 1))
			break;
		if (!sched_improves(mine, peer))
			return 0;
		return sched_rng_unit(rng) < ru->ru_fixed_p;
	default:
		break;
	}
	errno = EINVAL;
	return -1;
}

const char *
sched_policy_name(enum sched_policy p)
{
	if (p <= SCHED_P_UNDEF || p >= SCHED_P_MAX)
		return NULL;
	return policy_names[p];
}

enum sched_policy
sched_policy_parse(const char *s)
{
	int p;

	for (p = SCHED_P_UNDEF + 1; p < SCHED_P_MAX; p++)
		if (strcmp(s, policy_names[p]) == 0)
			return p;
	return SCHED_P_UNDEF;
}
