/*
 * sched — the distributed fair-share rule (DESIGN.md section 5), shared by
 * CilkNodeManager and CilkSim.  Pure: no I/O, no clocks, no globals; all
 * randomness comes from a caller-supplied struct sched_rng.
 *
 * Vocabulary.  A node runs one job.  Its view of a job is a struct
 * sched_job: m (a recent node count), w (priority weight) and the job's
 * cap (maximum useful workers).  Once a quantum the node pairs with a
 * random peer and asks sched_decide() whether to switch to the peer's job.
 */
#ifndef CILKNOW_SCHED_H
#define CILKNOW_SCHED_H

#include <stddef.h>
#include <stdint.h>

enum sched_policy {
	SCHED_P_UNDEF = 0,
	SCHED_P_THESIS,		/* Lisiecki: rho = (m_p^2-m_q^2)/(2 m_p m_q) */
	SCHED_P_NAIVE,		/* switch whenever the peer's job is smaller */
	SCHED_P_FIXED,		/* switch with a fixed probability */
	SCHED_P_IMPROVED,	/* plan (sched_plan_*), thesis fallback */
	SCHED_P_TARGETED,	/* randomised plan, no ranks, thesis fallback */
	SCHED_P_MAX
};

/*
 * Random source.  sched_rng_seed() selects the built-in xoshiro256**
 * generator (state seeded through splitmix64); sched_rng_custom() makes
 * every draw call rng_next(rng_arg) instead, so a test can script the
 * exact sequence of 64-bit values the rule sees.
 */
struct sched_rng {
	uint64_t	(*rng_next)(void *);
	void		*rng_arg;
	uint64_t	 rng_s[4];
};

void		sched_rng_seed(struct sched_rng *, uint64_t seed);
void		sched_rng_custom(struct sched_rng *, uint64_t (*)(void *),
		    void *);
uint64_t	sched_rng_u64(struct sched_rng *);
/* Uniform in [0, 1) with 53 random bits: (u64 >> 11) * 2^-53. */
double		sched_rng_unit(struct sched_rng *);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t	sched_rng_below(struct sched_rng *, uint64_t n);
/* splitmix64 step: advances *state, returns the next output. */
uint64_t	sched_splitmix64(uint64_t *state);

/* One job as a node sees it. */
struct sched_job {
	uint32_t	sj_count;	/* m: recent node count (0 read as 1) */
	uint32_t	sj_cap;		/* maximum useful workers, 0: no cap */
	double		sj_weight;	/* priority weight, finite and > 0 */
};

struct sched_rule {
	enum sched_policy ru_policy;
	double		ru_fixed_p;	/* SCHED_P_FIXED only, in [0, 1] */
};

/* 1 if the job is capped and at or above its cap (attracts no nodes). */
int		sched_job_full(const struct sched_job *);

/*
 * 1 if moving one node from mine to peer reduces the weighted imbalance:
 * the peer is not full and (m_p - 1) / w_p >= (m_q + 1) / w_q (with equal
 * weights, m_p >= m_q + 2), or mine is over its cap.
 */
int		sched_improves(const struct sched_job *mine,
		    const struct sched_job *peer);

/*
 * Switch probability of the thesis rule, in [0, 1]; 0 when
 * sched_improves() is false.  It is desired/expected as in the thesis
 * derivation (section 4.2), generalised to weights and caps:
 *   desired  = (m_p w_q - m_q w_p) / (w_p + w_q)   (the 2-job fair split;
 *              at least m_p - cap_p when mine is over its cap, at most
 *              cap_q - m_q when the peer is capped),
 *   expected = m_p m_q / (m_p + m_q)               (pairings p->q),
 *   rho      = min(1, desired / expected).
 * With w_p = w_q this is exactly (m_p^2 - m_q^2) / (2 m_p m_q).
 */
double		sched_rho(const struct sched_job *mine,
		    const struct sched_job *peer);

/*
 * The pairwise decision: 1 switch to the peer's job, 0 stay, -1 (EINVAL)
 * for a bad rule or weight.  Draws at most one value from rng.
 *   THESIS    switch with probability sched_rho();
 *   NAIVE     switch iff m_q / w_q < m_p / w_p and the peer is not full;
 *   FIXED     switch with probability ru_fixed_p iff sched_improves();
 *   IMPROVED, TARGETED  as THESIS: pairing is their fallback when the
 *             node's global view is stale (see sched_plan_*).
 */
int		sched_decide(const struct sched_rule *,
		    const struct sched_job *mine, const struct sched_job *peer,
		    struct sched_rng *);

/* "thesis", "naive", ...; NULL for an unknown name or value. */
/*
 * The peer of one lent processor: a processor drawn uniformly from those
 * the n listed nodes lend (slots[i] each), as the index of its node; n
 * if they lend none.  One draw.
 */
size_t		sched_peer_pick(struct sched_rng *, const uint32_t *slots,
		    size_t n);

const char	*sched_policy_name(enum sched_policy);
enum sched_policy sched_policy_parse(const char *);

/*
 * Max-min fair (water-filling) shares of procs nodes among njobs jobs:
 * share_j = min(cap_j, w_j * L), with L the level at which the shares sum
 * to procs (or every job at its cap, when the caps sum to less).  weights
 * NULL means all 1, caps NULL means no caps (a 0 cap is no cap).  No
 * allocation.  -1 (EINVAL) for njobs 0 or a weight that is not finite
 * and positive.
 */
int		sched_fair_shares(uint64_t procs, size_t njobs,
		    const double *weights, const uint32_t *caps,
		    double *shares);

/*
 * The integers around a share: lo = floor, hi = ceil (equal for an
 * integral share), with a relative tolerance of 1e-9 for rounding.
 */
void		sched_share_bounds(double share, uint32_t *lo, uint32_t *hi);
/* Every job has floor(share) - 1 <= m <= ceil(share) + 1. */
int		sched_within_one(size_t njobs, const uint32_t *counts,
		    const double *shares);
/* Every job has floor(share) <= m <= ceil(share). */
int		sched_exact(size_t njobs, const uint32_t *counts,
		    const double *shares);

/*
 * The improved rule's plan.  Every node that holds the broker's latest
 * push (each job's count, weight and cap, plus the members of its own
 * job) computes the same plan: integer targets (floor or ceiling of the
 * fair share, summing to the total; the ceilings go first to jobs that
 * already have them, then by larger fractional part, then by lower
 * index), each over-target job's excess X_j = m_j - T_j and each
 * under-target job's deficit D_k = T_k - m_k.  Movers are numbered
 * globally (over jobs in index order, within a job by rank) and deficit
 * slots likewise; mover g goes to the job holding slot g.  With
 * consistent views this reaches the exact allocation in one quantum.
 */
struct sched_plan;

struct sched_plan *sched_plan_new(size_t njobs);
void		sched_plan_free(struct sched_plan *);
/* Recomputes the plan for these counts (the total is their sum). */
int		sched_plan_update(struct sched_plan *, const uint32_t *counts,
		    const double *weights, const uint32_t *caps);
/*
 * For a node of job whose rank among that job's nodes (0-based, in an
 * order all members agree on, e.g. by node id) is rank: the job to move
 * to, or -1 to stay.
 */
int64_t		sched_plan_move(const struct sched_plan *, size_t job,
		    uint64_t rank);
/*
 * Without ranks (SCHED_P_TARGETED): leave with probability X_j / m_j and
 * pick the target with probability proportional to its deficit.  The
 * expected flows equal the plan's; their variance is what it costs.
 */
int64_t		sched_plan_move_random(const struct sched_plan *, size_t job,
		    struct sched_rng *);
uint32_t	sched_plan_target(const struct sched_plan *, size_t job);
double		sched_plan_share(const struct sched_plan *, size_t job);
/* Number of nodes the plan moves. */
uint64_t	sched_plan_moves(const struct sched_plan *);

#endif
