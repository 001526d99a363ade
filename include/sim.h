/*
 * sim — the simulation engine behind CilkSim(1): P processors, J jobs,
 * quantum by quantum, as in the thesis (Lisiecki 1996, chapter 4).
 *
 * A quantum: (1) churn: each available node goes busy with probability
 * leave_rate, each busy node comes back with probability join_rate and
 * the broker gives each of its processors a random job that is below its
 * cap; (2) the broker starts every job that has no processor on one
 * taken from a job with at least two; (3) every job's count is
 * snapshotted; (4) every available processor, in a random order, acts
 * once on the snapshot: it picks a peer processor (below) and applies the
 * rule (sched_decide); a processor that has switched in this quantum
 * refuses to pair.  Under the improved and targeted policies a processor
 * whose global view is fresh follows the plan (sched_plan_*) instead of
 * pairing, and a stale one pairs by the thesis rule.  One pairing, or one
 * planned move, is two messages (local pairings included).
 *
 * Nodes of several processors (sp_slots): the unit is still the
 * processor (counts, shares, pairings and switches are per processor),
 * but a node lends all its processors or none.  Nodes are drawn one at a
 * time from the slots distribution until they hold P processors, the last
 * one truncated to what is left (so the total is P exactly), from a
 * generator of their own seeded from sp_seed: the layout does not disturb
 * the draws of the run.  Churn acts per node (an owner's return takes all
 * its processors; a node that comes back gets a job for each).  A
 * processor's peer is a uniformly random other available processor, which
 * may be on its own node (paired locally); with a sample (sp_peers), a
 * node of its node's sample drawn in proportion to its processors
 * (sched_peer_pick), then one of that node's processors at random; either
 * way every processor meets a uniformly random processor, as the thesis's
 * analysis assumes.  Without sp_slots, or when every node has one
 * processor, a run is exactly the single-processor run of the same seed.
 *
 * O(P) time per quantum (O(P K) with samples of K nodes of several
 * processors: sched_peer_pick is linear in K), O(P + J) memory, no
 * allocation after sim_new().
 * Pure: no I/O; an observer callback sees the counts after each quantum.
 */
#ifndef CILKNOW_SIM_H
#define CILKNOW_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "fairshare.h"

#define SIM_PROCS_MAX	100000000u
/*
 * sp_rule.ru_fixed_p for SCHED_P_FIXED: J / P, about half the largest
 * constant that does not overshoot near the fair split.  With such a
 * constant the imbalance closes by about one node per quantum, the
 * thesis's Omega(P) (section 4.1); larger constants work for small P and
 * oscillate for large P, as the thesis says.
 */
#define SIM_FIXED_AUTO	(-1.0)

enum sim_init {
	SIM_INIT_UNDEF = 0,
	SIM_INIT_SPREAD,	/* jobs 2..J on one node each, job 1 the rest */
	SIM_INIT_ONE,		/* all on job 1; quantum 1 starts the others */
	SIM_INIT_ENDGAME,	/* exact, then one node moved from job 2 to 1 */
	SIM_INIT_MAX
};

#define SIM_PEERS_MAX		1024
#define SIM_PEERS_CELLS_MAX	(1u << 28)	/* procs x peers */
#define SIM_SLOTS_MAX		256	/* processors of one node */
#define SIM_SLOT_KINDS_MAX	64	/* entries of a slots distribution */

/* One entry of a slots distribution: ss_frac of the nodes have ss_slots. */
struct sim_slots {
	uint32_t	 ss_slots;	/* 1..SIM_SLOTS_MAX, distinct */
	double		 ss_frac;	/* (0, 1]; the entries sum to 1 */
};

struct sim_params {
	uint32_t	 sp_procs;	/* P, 1..SIM_PROCS_MAX */
	uint32_t	 sp_jobs;	/* J, 1..P */
	struct sched_rule sp_rule;
	enum sim_init	 sp_init;
	uint32_t	 sp_max_quanta;
	const double	*sp_weights;	/* J entries, or NULL for all 1 */
	const uint32_t	*sp_caps;	/* J entries (0: no cap), or NULL */
	double		 sp_leave_rate;	/* [0, 1] */
	double		 sp_join_rate;	/* [0, 1] */
	double		 sp_stale;	/* [0, 1]: chance a view is stale */
	int		 sp_until_within; /* stop at within one, not exact */
	/*
	 * Pairwise rules: each node pairs within its own random sample of
	 * sp_peers nodes (0: every available node), as with the broker's
	 * pushes; a node's sample is drawn again every sp_peers_refresh
	 * quanta (the register interval over the quantum; 0: 12), a
	 * sample member now busy refuses.
	 */
	uint32_t	 sp_peers;	/* 0, or 1..SIM_PEERS_MAX */
	uint32_t	 sp_peers_refresh;
	/*
	 * Processors per node: sp_nslots entries (0: one each, the
	 * thesis's single-processor workstations).
	 */
	const struct sim_slots *sp_slots;
	uint32_t	 sp_nslots;	/* 0..SIM_SLOT_KINDS_MAX */
	uint64_t	 sp_seed;
};

struct sim_result {
	int64_t		sr_quanta;	/* first quantum within one; -1 never */
	int64_t		sr_exact;	/* first quantum exact; -1 never */
	uint64_t	sr_messages;
	uint64_t	sr_switches;
	uint32_t	sr_ran;		/* quanta simulated */
	uint64_t	sr_node_quanta;	/* sum over quanta of acting nodes */
	/*
	 * Distance from fair: d(t) = sum_j |m_j(t) - share_j(t)| / J, in
	 * processors per job; averaged over quanta 1..sr_ran (0 if none).
	 */
	double		sr_mean_dist;
	double		sr_within_frac;	/* of quanta 1..sr_ran within one */
};

struct sim;

/*
 * Defaults: thesis rule (fixed p SIM_FIXED_AUTO), spread, 1000 quanta,
 * no churn, no stale views, seed 1.
 */
void		 sim_params_init(struct sim_params *, uint32_t procs,
		    uint32_t jobs);
/* NULL with errno EINVAL (bad parameters) or ENOMEM. */
struct sim	*sim_new(const struct sim_params *);
void		 sim_free(struct sim *);
/* Simulates one quantum.  -1 only if the rule rejects its inputs. */
int		 sim_step(struct sim *);
uint32_t	 sim_quantum(const struct sim *);
/* Live node counts per job and the fair shares for the available nodes. */
const uint32_t	*sim_counts(const struct sim *);
const double	*sim_shares(const struct sim *);
/* Available processors (the sum of the available nodes' processors). */
uint32_t	 sim_available(const struct sim *);
uint32_t	 sim_nodes(const struct sim *);
/* Node n's processors are first, first + 1, ...: returns how many. */
uint32_t	 sim_node_procs(const struct sim *, uint32_t node,
		    uint32_t *first);
/* The job of processor proc, or UINT32_MAX while its node is busy. */
uint32_t	 sim_proc_job(const struct sim *, uint32_t proc);

/*
 * Runs from quantum 0 to sp_max_quanta, or until exact (within one, with
 * sp_until_within) when there is no churn.  observe, if not NULL, is
 * called for quantum 0 and after every quantum.  -1 on error (errno set).
 */
int		 sim_run(const struct sim_params *, struct sim_result *,
		    void (*observe)(void *, uint32_t, const uint32_t *,
		    size_t), void *arg);

/*
 * Median of n quanta where -1 means never: sorts v (never last) and
 * returns the median, the mean of the middle two for even n, or -1 when
 * that involves a never.  -1 for n == 0.
 */
double		 sim_median(int64_t *v, size_t n);

#endif
