/*
 * sim — the simulation engine of CilkSim(1); see sim.h for the model.
 */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_BUSY	UINT32_MAX
#define SIM_MOVED	0x80000000u	/* switched in this quantum */
#define SIM_JOB(w)	((w) & ~SIM_MOVED)
#define SIM_NONE	UINT32_MAX	/* no peer drawn */
#define SIM_AHEAD	16		/* peers drawn this many nodes ahead */
#define SIM_DONOR_TRIES	64
#define SIM_JOIN_TRIES	16
#define SIM_LAYOUT_SALT	0x736c6f74732e7631ull	/* the layout's own stream */

struct sim {
	struct sim_params sm_p;
	double		*sm_weights;	/* own copies, J entries */
	uint32_t	*sm_caps;
	struct sched_rng sm_rng;
	uint32_t	*sm_job;	/* proc: job | SIM_MOVED, or SIM_BUSY */
	uint32_t	*sm_moved;	/* procs that switched this quantum */
	uint32_t	 sm_nmoved;
	uint8_t		*sm_can;	/* per job: some peer may take a proc */
	uint32_t	*sm_avail;	/* [0, sm_navail) available procs */
	uint32_t	 sm_navail;
	/*
	 * Nodes.  With one processor each (sm_slots NULL) node i is
	 * processor i and sm_navl is sm_avail itself, so that the single-
	 * processor runs draw exactly what they drew before nodes existed.
	 */
	uint32_t	 sm_nodes;
	uint32_t	*sm_slots;	/* per node, or NULL */
	uint32_t	*sm_first;	/* per node: its first processor */
	uint32_t	*sm_node;	/* per processor: its node */
	uint32_t	*sm_navl;	/* [0, sm_nnavail) available nodes */
	uint32_t	 sm_nnavail;
	uint32_t	*sm_count;	/* per job, live */
	uint32_t	*sm_rank;	/* per job, ranks handed out */
	struct sched_job *sm_view;	/* per job, as of the snapshot */
	double		*sm_share;
	uint32_t	 sm_share_for;	/* sm_navail the shares are for */
	struct sched_plan *sm_plan;
	uint32_t	 sm_quantum;
	uint64_t	 sm_messages;
	uint64_t	 sm_switches;
	uint64_t	 sm_node_quanta;
	uint32_t	*sm_sample;	/* sp_peers per node, or NULL */
	uint32_t	*sm_sample_w;	/* their processors (with sm_slots) */
	uint32_t	 sm_refresh_at;	/* next node whose sample is redrawn */
};

void
sim_params_init(struct sim_params *sp, uint32_t procs, uint32_t jobs)
{
	memset(sp, 0, sizeof(*sp));
	sp->sp_procs = procs;
	sp->sp_jobs = jobs;
	sp->sp_rule.ru_policy = SCHED_P_THESIS;
	sp->sp_rule.ru_fixed_p = SIM_FIXED_AUTO;
	sp->sp_init = SIM_INIT_SPREAD;
	sp->sp_max_quanta = 1000;
	sp->sp_seed = 1;
}

static int
rate_ok(double r)
{
	return r >= 0 && r <= 1;
}

/* Distinct sizes of 1..SIM_SLOTS_MAX, fractions in (0, 1] summing to 1. */
static int
slots_ok(const struct sim_params *sp)
{
	const struct sim_slots *ss = sp->sp_slots;
	double sum = 0;
	uint32_t i, k;

	if (sp->sp_nslots > SIM_SLOT_KINDS_MAX ||
	    (sp->sp_nslots > 0 && ss == NULL))
		return 0;
	for (i = 0; i < sp->sp_nslots; i++) {
		if (ss[i].ss_slots == 0 || ss[i].ss_slots > SIM_SLOTS_MAX ||
		    !isfinite(ss[i].ss_frac) || !(ss[i].ss_frac > 0) ||
		    ss[i].ss_frac > 1)
			return 0;
		for (k = 0; k < i; k++)
			if (ss[k].ss_slots == ss[i].ss_slots)
				return 0;
		sum += ss[i].ss_frac;
	}
	return sp->sp_nslots == 0 || fabs(sum - 1) <= 1e-6;
}

static int
params_ok(const struct sim_params *sp)
{
	uint32_t j;

	if (sp->sp_procs == 0 || sp->sp_procs > SIM_PROCS_MAX ||
	    sp->sp_jobs == 0 || sp->sp_jobs > sp->sp_procs)
		return 0;
	if (sp->sp_rule.ru_policy <= SCHED_P_UNDEF ||
	    sp->sp_rule.ru_policy >= SCHED_P_MAX ||
	    (!rate_ok(sp->sp_rule.ru_fixed_p) &&
	    sp->sp_rule.ru_fixed_p != SIM_FIXED_AUTO))
		return 0;
	if (sp->sp_init <= SIM_INIT_UNDEF || sp->sp_init >= SIM_INIT_MAX)
		return 0;
	if (!rate_ok(sp->sp_leave_rate) || !rate_ok(sp->sp_join_rate) ||
	    !rate_ok(sp->sp_stale))
		return 0;
	if (sp->sp_peers > SIM_PEERS_MAX || (uint64_t)sp->sp_peers *
	    sp->sp_procs > SIM_PEERS_CELLS_MAX)
		return 0;
	if (!slots_ok(sp))
		return 0;
	if (sp->sp_weights != NULL)
		for (j = 0; j < sp->sp_jobs; j++)
			if (!isfinite(sp->sp_weights[j]) ||
			    sp->sp_weights[j] <= 0)
				return 0;
	return 1;
}

static int
churning(const struct sim *sm)
{
	return sm->sm_p.sp_leave_rate > 0 || sm->sm_p.sp_join_rate > 0;
}

static int
planned(const struct sim *sm)
{
	return sm->sm_p.sp_rule.ru_policy == SCHED_P_IMPROVED ||
	    sm->sm_p.sp_rule.ru_policy == SCHED_P_TARGETED;
}

static uint32_t
node_procs(const struct sim *sm, uint32_t node)
{
	return sm->sm_slots != NULL ? sm->sm_slots[node] : 1;
}

static uint32_t
node_first(const struct sim *sm, uint32_t node)
{
	return sm->sm_slots != NULL ? sm->sm_first[node] : node;
}

static uint32_t
proc_node(const struct sim *sm, uint32_t proc)
{
	return sm->sm_slots != NULL ? sm->sm_node[proc] : proc;
}

static void
node_set(struct sim *sm, uint32_t node, uint32_t job)
{
	if (sm->sm_job[node] != SIM_BUSY)
		sm->sm_count[SIM_JOB(sm->sm_job[node])]--;
	sm->sm_job[node] = job;
	if (job != SIM_BUSY)
		sm->sm_count[job]++;
}

/* Moves node to job; it refuses pairings for the rest of the quantum. */
static void
node_move(struct sim *sm, uint32_t node, uint32_t job)
{
	node_set(sm, node, job);
	sm->sm_job[node] |= SIM_MOVED;
	sm->sm_moved[sm->sm_nmoved++] = node;
	sm->sm_switches++;
}

/* Exchanges the nodes at indexes a and b of sm_navl. */
static void
avail_swap(struct sim *sm, uint32_t a, uint32_t b)
{
	uint32_t na = sm->sm_navl[a];

	sm->sm_navl[a] = sm->sm_navl[b];
	sm->sm_navl[b] = na;
}

/*
 * The nodes' sizes, drawn from the distribution until they hold P
 * processors, the last truncated to what is left; into slots if not
 * NULL.  Returns the number of nodes.  Same sp, same layout.
 */
static uint32_t
layout(const struct sim_params *sp, uint32_t *slots)
{
	const struct sim_slots *ss = sp->sp_slots;
	struct sched_rng rng;
	uint32_t n = 0, left = sp->sp_procs, i, size;
	double u, cum;

	sched_rng_seed(&rng, sp->sp_seed ^ SIM_LAYOUT_SALT);
	while (left > 0) {
		u = sched_rng_unit(&rng);
		cum = 0;
		size = ss[sp->sp_nslots - 1].ss_slots;	/* rounding */
		for (i = 0; i + 1 < sp->sp_nslots; i++) {
			cum += ss[i].ss_frac;
			if (u < cum) {
				size = ss[i].ss_slots;
				break;
			}
		}
		size = size < left ? size : left;
		if (slots != NULL)
			slots[n] = size;
		left -= size;
		n++;
	}
	return n;
}

/* Nodes of several processors: sm_slots and the maps to and from them. */
static int
nodes_new(struct sim *sm)
{
	uint32_t P = sm->sm_p.sp_procs, N, i, k, p = 0;

	N = layout(&sm->sm_p, NULL);
	if (N == P)
		return 0;	/* one processor each */
	sm->sm_nodes = N;
	sm->sm_slots = calloc(N, sizeof(*sm->sm_slots));
	sm->sm_first = calloc(N, sizeof(*sm->sm_first));
	sm->sm_navl = calloc(N, sizeof(*sm->sm_navl));
	sm->sm_node = calloc(P, sizeof(*sm->sm_node));
	if (sm->sm_slots == NULL || sm->sm_first == NULL ||
	    sm->sm_navl == NULL || sm->sm_node == NULL)
		return -1;
	layout(&sm->sm_p, sm->sm_slots);
	for (i = 0; i < N; i++) {
		sm->sm_first[i] = p;
		sm->sm_navl[i] = i;
		for (k = 0; k < sm->sm_slots[i]; k++)
			sm->sm_node[p++] = i;
	}
	return 0;
}

static int
update_shares(struct sim *sm)
{
	if (sm->sm_share_for == sm->sm_navail)
		return 0;
	if (sched_fair_shares(sm->sm_navail, sm->sm_p.sp_jobs,
	    sm->sm_weights, sm->sm_caps, sm->sm_share) == -1)
		return -1;
	sm->sm_share_for = sm->sm_navail;
	return 0;
}

/* The exact allocation, then one node moved from job 2 to job 1. */
static int
init_endgame(struct sim *sm)
{
	uint32_t j, lo, hi, node = 0, n, *want = sm->sm_rank;
	uint64_t floors = 0, extra;

	if (sm->sm_p.sp_jobs < 2)
		return -1;
	for (j = 0; j < sm->sm_p.sp_jobs; j++) {
		sched_share_bounds(sm->sm_share[j], &lo, &hi);
		want[j] = lo;
		floors += lo;
	}
	extra = sm->sm_p.sp_procs - floors;
	for (j = 0; j < sm->sm_p.sp_jobs && extra > 0; j++) {
		sched_share_bounds(sm->sm_share[j], &lo, &hi);
		if (hi > lo) {
			want[j]++;
			extra--;
		}
	}
	if (extra > 0 || want[1] < 2)
		return -1;
	want[0]++;
	want[1]--;
	for (j = 0; j < sm->sm_p.sp_jobs; j++)
		for (n = 0; n < want[j]; n++)
			node_set(sm, node++, j);
	return 0;
}

static int
init_layout(struct sim *sm)
{
	uint32_t i, J = sm->sm_p.sp_jobs;

	switch (sm->sm_p.sp_init) {
	case SIM_INIT_ONE:
		for (i = 0; i < sm->sm_p.sp_procs; i++)
			node_set(sm, i, 0);
		return 0;
	case SIM_INIT_SPREAD:
		for (i = 0; i < sm->sm_p.sp_procs; i++)
			node_set(sm, i, i + 1 < J ? i + 1 : 0);
		return 0;
	case SIM_INIT_ENDGAME:
		return init_endgame(sm);
	default:
		return -1;
	}
}

/*
 * Node i's sample: sp_peers other nodes, uniformly, as the broker draws;
 * with nodes of several processors, also what each member lends.
 */
static void
resample(struct sim *sm, uint32_t i)
{
	uint32_t k, N = sm->sm_nodes, *s, *w;
	uint64_t r;
	size_t at = (size_t)i * sm->sm_p.sp_peers;

	s = &sm->sm_sample[at];
	for (k = 0; k < sm->sm_p.sp_peers; k++) {
		if (N < 2) {
			s[k] = i;
			continue;
		}
		r = sched_rng_below(&sm->sm_rng, N - 1);
		s[k] = (uint32_t)(r >= i ? r + 1 : r);
	}
	if (sm->sm_sample_w == NULL)
		return;
	w = &sm->sm_sample_w[at];
	for (k = 0; k < sm->sm_p.sp_peers; k++)
		w[k] = sm->sm_slots[s[k]];
}

/* A share of the nodes redraw their samples, as they register in turn. */
static void
refresh_samples(struct sim *sm)
{
	uint32_t N = sm->sm_nodes, n, k;

	n = (N + sm->sm_p.sp_peers_refresh - 1) / sm->sm_p.sp_peers_refresh;
	for (k = 0; k < n; k++) {
		resample(sm, sm->sm_refresh_at);
		if (++sm->sm_refresh_at == N)
			sm->sm_refresh_at = 0;
	}
}

struct sim *
sim_new(const struct sim_params *sp)
{
	struct sim *sm;
	uint32_t i, P, J;

	if (!params_ok(sp)) {
		errno = EINVAL;
		return NULL;
	}
	P = sp->sp_procs;
	J = sp->sp_jobs;
	if ((sm = calloc(1, sizeof(*sm))) == NULL)
		return NULL;
	sm->sm_p = *sp;
	if (sp->sp_rule.ru_fixed_p == SIM_FIXED_AUTO)
		sm->sm_p.sp_rule.ru_fixed_p = (double)J / P;
	sm->sm_weights = calloc(J, sizeof(*sm->sm_weights));
	sm->sm_caps = calloc(J, sizeof(*sm->sm_caps));
	sm->sm_job = calloc(P, sizeof(*sm->sm_job));
	sm->sm_moved = calloc(P, sizeof(*sm->sm_moved));
	sm->sm_can = calloc(J, sizeof(*sm->sm_can));
	sm->sm_avail = calloc(P, sizeof(*sm->sm_avail));
	sm->sm_count = calloc(J, sizeof(*sm->sm_count));
	sm->sm_rank = calloc(J, sizeof(*sm->sm_rank));
	sm->sm_view = calloc(J, sizeof(*sm->sm_view));
	sm->sm_share = calloc(J, sizeof(*sm->sm_share));
	if (sm->sm_weights == NULL || sm->sm_caps == NULL ||
	    sm->sm_job == NULL || sm->sm_moved == NULL || sm->sm_can == NULL ||
	    sm->sm_avail == NULL ||
	    sm->sm_count == NULL || sm->sm_rank == NULL ||
	    sm->sm_view == NULL || sm->sm_share == NULL)
		goto fail;
	if (planned(sm) && (sm->sm_plan = sched_plan_new(J)) == NULL)
		goto fail;
	sm->sm_nodes = P;
	sm->sm_navl = sm->sm_avail;
	if (sp->sp_nslots > 0 && nodes_new(sm) == -1)
		goto fail;
	if (sp->sp_peers > 0 && (sm->sm_sample = calloc((size_t)
	    sm->sm_nodes * sp->sp_peers, sizeof(*sm->sm_sample))) == NULL)
		goto fail;
	if (sp->sp_peers > 0 && sm->sm_slots != NULL &&
	    (sm->sm_sample_w = calloc((size_t)sm->sm_nodes * sp->sp_peers,
	    sizeof(*sm->sm_sample_w))) == NULL)
		goto fail;
	if (sm->sm_p.sp_peers_refresh == 0)
		sm->sm_p.sp_peers_refresh = 12;
	sm->sm_p.sp_weights = sm->sm_weights;
	sm->sm_p.sp_caps = sm->sm_caps;
	for (i = 0; i < J; i++) {
		sm->sm_weights[i] = sp->sp_weights ? sp->sp_weights[i] : 1;
		sm->sm_caps[i] = sp->sp_caps ? sp->sp_caps[i] : 0;
		sm->sm_view[i].sj_weight = sm->sm_weights[i];
		sm->sm_view[i].sj_cap = sm->sm_caps[i];
	}
	for (i = 0; i < P; i++) {
		sm->sm_job[i] = SIM_BUSY;
		sm->sm_avail[i] = i;
	}
	sm->sm_navail = P;
	sm->sm_nnavail = sm->sm_nodes;
	sm->sm_share_for = UINT32_MAX;	/* none yet */
	sched_rng_seed(&sm->sm_rng, sp->sp_seed);
	if (update_shares(sm) == -1 || init_layout(sm) == -1) {
		sim_free(sm);
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; sm->sm_sample != NULL && i < sm->sm_nodes; i++)
		resample(sm, i);
	return sm;
fail:
	sim_free(sm);
	errno = ENOMEM;
	return NULL;
}

void
sim_free(struct sim *sm)
{
	if (sm == NULL)
		return;
	sched_plan_free(sm->sm_plan);
	if (sm->sm_navl != sm->sm_avail)
		free(sm->sm_navl);
	free(sm->sm_node);
	free(sm->sm_first);
	free(sm->sm_slots);
	free(sm->sm_sample_w);
	free(sm->sm_sample);
	free(sm->sm_share);
	free(sm->sm_view);
	free(sm->sm_rank);
	free(sm->sm_count);
	free(sm->sm_avail);
	free(sm->sm_can);
	free(sm->sm_moved);
	free(sm->sm_job);
	free(sm->sm_caps);
	free(sm->sm_weights);
	free(sm);
}

/* A uniformly random job that is below its cap, if one is found. */
static uint32_t
join_job(struct sim *sm)
{
	uint32_t j = 0;
	int t;

	for (t = 0; t < SIM_JOIN_TRIES; t++) {
		j = (uint32_t)sched_rng_below(&sm->sm_rng, sm->sm_p.sp_jobs);
		if (sm->sm_caps[j] == 0 || sm->sm_count[j] < sm->sm_caps[j])
			break;
	}
	return j;
}

/*
 * Per node: an owner's return takes all its processors, and a node that
 * comes back gets a job for each.  With several processors per node the
 * list of available processors is then rebuilt from that of the nodes.
 */
static void
churn(struct sim *sm)
{
	double leave = sm->sm_p.sp_leave_rate, join = sm->sm_p.sp_join_rate;
	uint32_t k, n0 = sm->sm_nnavail, N = sm->sm_nodes, node, p, end;

	/* Leaves among the nodes available before this quantum... */
	if (leave > 0)
		for (k = n0; k-- > 0;) {
			if (sched_rng_unit(&sm->sm_rng) >= leave)
				continue;
			node = sm->sm_navl[k];
			avail_swap(sm, k, --sm->sm_nnavail);
			end = node_first(sm, node) + node_procs(sm, node);
			for (p = node_first(sm, node); p < end; p++)
				node_set(sm, p, SIM_BUSY);
		}
	/* ...and joins among those busy before it. */
	if (join > 0)
		for (k = n0; k < N; k++) {
			if (sched_rng_unit(&sm->sm_rng) >= join)
				continue;
			node = sm->sm_navl[k];
			avail_swap(sm, k, sm->sm_nnavail++);
			end = node_first(sm, node) + node_procs(sm, node);
			for (p = node_first(sm, node); p < end; p++)
				node_set(sm, p, join_job(sm));
		}
	if (sm->sm_slots == NULL) {
		sm->sm_navail = sm->sm_nnavail;	/* the same list */
		return;
	}
	sm->sm_navail = 0;
	for (k = 0; k < sm->sm_nnavail; k++) {
		node = sm->sm_navl[k];
		end = node_first(sm, node) + node_procs(sm, node);
		for (p = node_first(sm, node); p < end; p++)
			sm->sm_avail[sm->sm_navail++] = p;
	}
}

/* The broker starts each job that has no node. */
static void
broker(struct sim *sm)
{
	uint32_t j, node = 0, donor, k;
	int t, found;

	for (j = 0; j < sm->sm_p.sp_jobs; j++) {
		if (sm->sm_count[j] != 0)
			continue;
		found = 0;
		for (t = 0; t < SIM_DONOR_TRIES && !found; t++) {
			if (sm->sm_navail == 0)
				break;
			node = sm->sm_avail[sched_rng_below(&sm->sm_rng,
			    sm->sm_navail)];
			found = sm->sm_count[SIM_JOB(sm->sm_job[node])] >= 2;
		}
		for (k = 0; k < sm->sm_navail && !found; k++) {
			node = sm->sm_avail[k];
			donor = SIM_JOB(sm->sm_job[node]);
			found = sm->sm_count[donor] >= 2;
		}
		if (!found)
			return;		/* fewer nodes than jobs */
		node_set(sm, node, j);
	}
}

/*
 * Which jobs' nodes can switch at all this quantum.  The pairwise rules
 * need the peer's job to be not full and (for the thesis and fixed rules)
 * (m_p - 1) / w_p >= (m_q + 1) / w_q, or (naive) m_q / w_q < m_p / w_p;
 * the most permissive peer is the one with the least right-hand side.
 * A node of a job that fails even against that peer draws no peer: the
 * outcome ("stay") is the same, only faster.  The tolerance keeps this a
 * superset of the nodes that could switch.
 */
static void
mark_can(struct sim *sm)
{
	const struct sched_job *v = sm->sm_view;
	double least = INFINITY, x, add;
	uint32_t j, J = sm->sm_p.sp_jobs;

	add = sm->sm_p.sp_rule.ru_policy == SCHED_P_NAIVE ? 0 : 1;
	for (j = 0; j < J; j++) {
		if (v[j].sj_count == 0 || sched_job_full(&v[j]))
			continue;
		x = (v[j].sj_count + add) / v[j].sj_weight;
		least = x < least ? x : least;
	}
	least *= 1 - 1e-9;
	for (j = 0; j < J; j++) {
		x = ((double)v[j].sj_count - add) / v[j].sj_weight;
		sm->sm_can[j] = (v[j].sj_cap != 0 &&
		    v[j].sj_count > v[j].sj_cap) || x >= least;
	}
}

/*
 * Within the sample of proc's node: a member drawn in proportion to its
 * processors, then one of them.  A member now busy refuses in pair().
 */
static uint32_t
sample_peer(struct sim *sm, uint32_t proc)
{
	size_t at = (size_t)proc_node(sm, proc) * sm->sm_p.sp_peers;
	uint32_t node, n;

	if (sm->sm_slots == NULL)
		return sm->sm_sample[at + sched_rng_below(&sm->sm_rng,
		    sm->sm_p.sp_peers)];
	node = sm->sm_sample[at + sched_peer_pick(&sm->sm_rng,
	    &sm->sm_sample_w[at], sm->sm_p.sp_peers)];
	n = sm->sm_slots[node];
	return sm->sm_first[node] + (n > 1 ?
	    (uint32_t)sched_rng_below(&sm->sm_rng, n) : 0);
}

/*
 * The peer of the processor at index pos of sm_avail: a uniformly random
 * other available processor (on any node, its own included: paired
 * locally), or SIM_NONE when no peer could make it switch.  Drawn a few
 * processors ahead and prefetched: the simulation is bound by the cache
 * misses of these random reads.
 */
static uint32_t
draw_peer(struct sim *sm, uint32_t pos)
{
	uint32_t peer, jp = SIM_JOB(sm->sm_job[sm->sm_avail[pos]]);
	uint64_t r;

	if (!sm->sm_can[jp])
		return SIM_NONE;
	if (sm->sm_sample != NULL) {
		peer = sample_peer(sm, churning(sm) ? sm->sm_avail[pos] : pos);
		__builtin_prefetch(&sm->sm_job[peer]);
		return peer;
	}
	r = sched_rng_below(&sm->sm_rng, sm->sm_navail - 1);
	if (r >= pos)
		r++;
	peer = churning(sm) ? sm->sm_avail[r] : (uint32_t)r;
	__builtin_prefetch(&sm->sm_job[peer]);
	return peer;
}

/* Node i pairs with peer (SIM_NONE: it cannot switch) by the rule. */
static int
pair(struct sim *sm, uint32_t i, uint32_t peer)
{
	uint32_t jp, jq;
	int d;

	sm->sm_messages += 2;
	if (peer == SIM_NONE)
		return 0;
	jp = SIM_JOB(sm->sm_job[i]);
	jq = sm->sm_job[peer];
	if (jq & SIM_MOVED)
		return 0;	/* it has just switched: refuses */
	if (jp == jq)
		return 0;
	d = sched_decide(&sm->sm_p.sp_rule, &sm->sm_view[jp],
	    &sm->sm_view[jq], &sm->sm_rng);
	if (d == -1)
		return -1;
	if (d == 1)
		node_move(sm, i, jq);
	return 0;
}

/* The improved and targeted rules; returns 1 if the node is done. */
static int
plan_act(struct sim *sm, uint32_t i)
{
	uint32_t jp = SIM_JOB(sm->sm_job[i]), rank;
	int64_t t;
	int fresh;

	rank = sm->sm_rank[jp]++;
	fresh = sm->sm_p.sp_stale == 0 ||
	    sched_rng_unit(&sm->sm_rng) >= sm->sm_p.sp_stale;
	if (!fresh)
		return 0;
	if (sm->sm_p.sp_rule.ru_policy == SCHED_P_IMPROVED)
		t = sched_plan_move(sm->sm_plan, jp, rank);
	else
		t = sched_plan_move_random(sm->sm_plan, jp, &sm->sm_rng);
	if (t >= 0) {
		sm->sm_messages += 2;
		node_move(sm, i, (uint32_t)t);
	}
	return 1;
}

int
sim_step(struct sim *sm)
{
	uint32_t ring[SIM_AHEAD], j, k, n, pos, ahead, i, peer;
	uint32_t J = sm->sm_p.sp_jobs;

	sm->sm_quantum++;
	for (k = 0; k < sm->sm_nmoved; k++)
		sm->sm_job[sm->sm_moved[k]] &= ~SIM_MOVED;
	sm->sm_nmoved = 0;
	if (churning(sm))
		churn(sm);
	if (sm->sm_sample != NULL)
		refresh_samples(sm);
	broker(sm);
	if (update_shares(sm) == -1)
		return -1;
	for (j = 0; j < J; j++)
		sm->sm_view[j].sj_count = sm->sm_count[j];
	mark_can(sm);
	if (planned(sm)) {
		if (sched_plan_update(sm->sm_plan, sm->sm_count,
		    sm->sm_weights, sm->sm_caps) == -1)
			return -1;
		memset(sm->sm_rank, 0, J * sizeof(*sm->sm_rank));
	}
	n = sm->sm_navail;
	sm->sm_node_quanta += n;
	if (n < 2)
		return 0;
	/*
	 * Every available node acts once, from a random starting point on:
	 * nodes are not synchronised, and indexes mean nothing to the rule.
	 */
	pos = (uint32_t)sched_rng_below(&sm->sm_rng, n);
	if (planned(sm)) {
		for (k = 0; k < n; k++) {
			i = sm->sm_avail[pos];
			if (!plan_act(sm, i) &&
			    pair(sm, i, draw_peer(sm, pos)) == -1)
				return -1;
			if (++pos == n)
				pos = 0;
		}
		return 0;
	}
	/* ahead is the index of the node SIM_AHEAD turns later. */
	ahead = pos;
	for (k = 0; k < SIM_AHEAD && k < n; k++) {
		ring[k] = draw_peer(sm, ahead);
		if (++ahead == n)
			ahead = 0;
	}
	for (k = 0; k < n; k++) {
		peer = ring[k % SIM_AHEAD];
		if (k + SIM_AHEAD < n) {
			ring[k % SIM_AHEAD] = draw_peer(sm, ahead);
			if (++ahead == n)
				ahead = 0;
		}
		if (pair(sm, sm->sm_avail[pos], peer) == -1)
			return -1;
		if (++pos == n)
			pos = 0;
	}
	return 0;
}

uint32_t
sim_quantum(const struct sim *sm)
{
	return sm->sm_quantum;
}

const uint32_t *
sim_counts(const struct sim *sm)
{
	return sm->sm_count;
}

const double *
sim_shares(const struct sim *sm)
{
	return sm->sm_share;
}

uint32_t
sim_available(const struct sim *sm)
{
	return sm->sm_navail;
}

uint32_t
sim_nodes(const struct sim *sm)
{
	return sm->sm_nodes;
}

uint32_t
sim_node_procs(const struct sim *sm, uint32_t node, uint32_t *first)
{
	if (node >= sm->sm_nodes)
		return 0;
	*first = node_first(sm, node);
	return node_procs(sm, node);
}

uint32_t
sim_proc_job(const struct sim *sm, uint32_t proc)
{
	if (proc >= sm->sm_p.sp_procs || sm->sm_job[proc] == SIM_BUSY)
		return UINT32_MAX;
	return SIM_JOB(sm->sm_job[proc]);
}

static double
distance(const struct sim *sm)
{
	double d = 0;
	uint32_t j;

	for (j = 0; j < sm->sm_p.sp_jobs; j++)
		d += fabs(sm->sm_count[j] - sm->sm_share[j]);
	return d / sm->sm_p.sp_jobs;
}

int
sim_run(const struct sim_params *sp, struct sim_result *res,
    void (*observe)(void *, uint32_t, const uint32_t *, size_t), void *arg)
{
	struct sim *sm;
	double dist = 0;
	uint64_t within = 0;
	uint32_t q;
	int w, churn_on;

	memset(res, 0, sizeof(*res));
	res->sr_quanta = res->sr_exact = -1;
	if ((sm = sim_new(sp)) == NULL)
		return -1;
	churn_on = churning(sm);
	for (q = 0;; q++) {
		if (q > 0) {
			if (sim_step(sm) == -1) {
				sim_free(sm);
				errno = EINVAL;
				return -1;
			}
			dist += distance(sm);
		}
		if (observe != NULL)
			observe(arg, q, sm->sm_count, sp->sp_jobs);
		w = sched_within_one(sp->sp_jobs, sm->sm_count, sm->sm_share);
		if (w && q > 0)
			within++;
		if (w && res->sr_quanta == -1)
			res->sr_quanta = q;
		if (res->sr_exact == -1 &&
		    sched_exact(sp->sp_jobs, sm->sm_count, sm->sm_share))
			res->sr_exact = q;
		if ((!churn_on && res->sr_exact != -1) ||
		    (!churn_on && sp->sp_until_within &&
		    res->sr_quanta != -1) || q >= sp->sp_max_quanta)
			break;
	}
	res->sr_ran = q;
	res->sr_messages = sm->sm_messages;
	res->sr_switches = sm->sm_switches;
	res->sr_node_quanta = sm->sm_node_quanta;
	if (q > 0) {
		res->sr_mean_dist = dist / q;
		res->sr_within_frac = (double)within / q;
	}
	sim_free(sm);
	return 0;
}

static int
never_last_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	if (x == y)
		return 0;
	if (x == -1)
		return 1;
	if (y == -1)
		return -1;
	return x < y ? -1 : 1;
}

double
sim_median(int64_t *v, size_t n)
{
	int64_t a, b;

	if (n == 0)
		return -1;
	qsort(v, n, sizeof(*v), never_last_cmp);
	a = v[(n - 1) / 2];
	b = v[n / 2];
	if (a == -1 || b == -1)
		return -1;
	return ((double)a + (double)b) / 2;
}
