/*
 * CilkNodeManager: fair share among the node managers (DESIGN.md section
 * 5).  The unit is a processor: once a quantum, with jitter, every lent
 * processor running a job either applies the targeted rule to the
 * broker's latest push (policy = targeted, the default, while the push
 * is fresh), or asks a peer processor what it runs and how many
 * processors that job has and applies the randomized pairwise rule of
 * the Lisiecki thesis, chapter 4.  The peer is drawn as the thesis's
 * analysis assumes, uniformly over processors: a node in proportion to
 * what it lends (sched_peer_pick), then one of its processors; one of
 * our own is paired here, without a message.  Both rules are the ones
 * CilkSim simulates (src/sched).  A node with no job while the broker
 * is silent joins a peer's job, so scheduling goes on without the
 * broker.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"

/* Switches s to a job the push names, with what its workers take. */
static void
take(struct node *n, struct slot *s, uint32_t job,
    const struct msg_addr *jobmgr, const char *user, const char *why)
{
	const struct proto_push_job *pj = node_push_job(n, job);

	node_take_job(n, s, job, jobmgr, user, pj != NULL ? pj->pj_cpus : 1,
	    pj != NULL ? pj->pj_mem_mb : 0, 0, why);
}

static int
running(const struct slot *s)
{
	return s->s_lent && s->s_current != NULL &&
	    s->s_current->w_nw.nw_state == NW_RUNNING;
}

/* What a processor runs, as a peer sees it. */
static void
slot_pair(const struct node *n, const struct slot *s, struct proto_pair *p)
{
	const struct worker *w = s->s_current;
	const struct proto_push_job *pj;

	memset(p, 0, sizeof(*p));
	p->pa_busy = now_mono() < s->s_pair_block_until;
	if (!running(s))
		return;
	p->pa_job = w->w_job;
	p->pa_jobmgr = w->w_jobmgr;
	strlcpy(p->pa_user, w->w_user, sizeof(p->pa_user));
	p->pa_pri = 1;
	p->pa_count = 1;
	if ((pj = node_push_job(n, w->w_job)) != NULL) {
		p->pa_count = pj->pj_count > 0 ? pj->pj_count : 1;
		p->pa_pri = pj->pj_pri;
		p->pa_max = pj->pj_max;
	}
}

/* A processor of ours drawn at random among those lent, else NULL. */
static struct slot *
some_slot(struct node *n)
{
	uint32_t k;
	uint16_t i;

	if (n->n_lent == 0)
		return NULL;
	k = (uint32_t)sched_rng_below(&n->n_rng, n->n_lent);
	for (i = 0; i < n->n_total; i++)
		if (n->n_slots[i].s_lent && k-- == 0)
			return &n->n_slots[i];
	return NULL;
}

/*
 * The targeted rule (CilkSim --policy targeted): from the broker's push
 * every node sees every job's count, weight and cap, so it can compute
 * the fair targets itself; a processor of a job over its target leaves
 * with probability excess / count, for a job under its target chosen in
 * proportion to the deficit.  No peer is asked.  The latest push is
 * acted on every quantum: the broker pushes within milliseconds of every
 * move, so an unchanged push means nothing moved.  (Acting only once per
 * push left a job above its target for good whenever one quantum's
 * draws happened to move nobody.)
 */
static void
targeted(struct node *n, struct slot *s)
{
	const struct proto_push *p = &n->n_push;
	uint32_t counts[PROTO_ROWS_MAX], caps[PROTO_ROWS_MAX], i;
	double weights[PROTO_ROWS_MAX];
	struct sched_plan *plan;
	int64_t to;
	size_t mine = p->pu_njobs;
	char why[80];

	if (p->pu_njobs < 2)
		return;
	for (i = 0; i < p->pu_njobs; i++) {
		counts[i] = p->pu_jobs[i].pj_count;
		weights[i] = p->pu_jobs[i].pj_pri;
		caps[i] = p->pu_jobs[i].pj_max;
		if (p->pu_jobs[i].pj_job == s->s_current->w_job)
			mine = i;
	}
	if (mine == p->pu_njobs ||
	    (plan = sched_plan_new(p->pu_njobs)) == NULL)
		return;
	to = sched_plan_update(plan, counts, weights, caps) == 0 ?
	    sched_plan_move_random(plan, mine, &n->n_rng) : -1;
	sched_plan_free(plan);
	if (to < 0 || (size_t)to == mine ||
	    !node_may_take(n, s, p->pu_jobs[to].pj_job,
	    p->pu_jobs[to].pj_user))
		return;
	n->n_pair_switches++;
	snprintf(why, sizeof(why), "fair share: job %u has %u over its "
	    "target, job %u %u under", p->pu_jobs[mine].pj_job, counts[mine],
	    p->pu_jobs[to].pj_job, counts[to]);
	take(n, s, p->pu_jobs[to].pj_job, &p->pu_jobs[to].pj_jobmgr,
	    p->pu_jobs[to].pj_user, why);
}

/* The pairwise rule: switch s to the peer's job, or not. */
static void
decide(struct node *n, struct slot *s, const struct proto_pair *p)
{
	const struct proto_push_job *pj;
	struct sched_job mine, peer;
	char why[64];

	if (p->pa_busy || p->pa_job == 0 || !running(s) ||
	    p->pa_job == s->s_current->w_job ||
	    now_mono() < s->s_pair_block_until ||
	    !node_may_take(n, s, p->pa_job, p->pa_user))
		return;
	memset(&mine, 0, sizeof(mine));
	mine.sj_count = 1;
	mine.sj_weight = 1;
	if ((pj = node_push_job(n, s->s_current->w_job)) != NULL) {
		mine.sj_count = pj->pj_count;
		mine.sj_cap = pj->pj_max;
		mine.sj_weight = pj->pj_pri;
	}
	peer.sj_count = p->pa_count;
	peer.sj_cap = p->pa_max;
	peer.sj_weight = p->pa_pri;
	if (sched_decide(&n->n_rule, &mine, &peer, &n->n_rng) != 1)
		return;
	n->n_pair_switches++;
	snprintf(why, sizeof(why), "fair share: job %u has %u, job %u %u",
	    s->s_current->w_job, mine.sj_count, p->pa_job, p->pa_count);
	take(n, s, p->pa_job, &p->pa_jobmgr, p->pa_user, why);
}

/* One processor's pairing this quantum. */
static void
pair_slot(struct node *n, struct slot *s, int seeking)
{
	const struct proto_push *pu = &n->n_push;
	const struct msg_addr *self = msg_ep_addr(n->n_dc.dc_ep);
	uint32_t weights[PROTO_ROWS_MAX], i;
	struct proto_pair p;
	struct slot *other;
	size_t k, len;

	/* Peers lend in proportion; pushes of old brokers say 0: one. */
	for (i = 0; i < pu->pu_nnodes && i < PROTO_ROWS_MAX; i++)
		weights[i] = msg_addr_eq(&pu->pu_nodes[i].pn_addr, self) ?
		    n->n_lent : pu->pu_nodes[i].pn_slots > 0 ?
		    pu->pu_nodes[i].pn_slots : 1;
	if ((k = sched_peer_pick(&n->n_rng, weights, i)) >= i)
		return;
	if (msg_addr_eq(&pu->pu_nodes[k].pn_addr, self)) {
		/* One of our own processors: no message needed. */
		if (seeking || (other = some_slot(n)) == NULL || other == s)
			return;
		slot_pair(n, other, &p);
		decide(n, s, &p);
		return;
	}
	slot_pair(n, s, &p);
	p.pa_slot = s->s_index;
	if ((len = proto_pair_enc(&p, n->n_buf, sizeof(n->n_buf))) == 0 ||
	    msg_ep_send(n->n_dc.dc_ep, &pu->pu_nodes[k].pn_addr,
	    MSG_SCHEME_CLUSTER, PROTO_H_PAIR_REQ, n->n_buf, len) == -1)
		return;
	s->s_pair_peer = pu->pu_nodes[k].pn_addr;
	s->s_pair_asked_at = now_mono();
	n->n_pair_sent++;
}

static void
on_quantum(struct evloop *loop, void *arg)
{
	struct node *n = arg;
	struct slot *s;
	uint16_t i;
	int any = 0, seeking;

	/* The configured rule, read again after every SIGHUP. */
	n->n_rule.ru_policy = sched_policy_parse(conf_get(n->n_dc.dc_conf,
	    "policy")) == SCHED_P_TARGETED ? SCHED_P_TARGETED : SCHED_P_THESIS;
	/* Jitter, so that nodes do not pair in lockstep. */
	evloop_timer_add(loop, n->n_quantum * (0.75 +
	    0.5 * sched_rng_unit(&n->n_rng)), on_quantum, n);
	if (!n->n_have_push || !n->n_owner_away || n->n_push.pu_nnodes < 1)
		return;
	for (i = 0; i < n->n_total; i++)
		any |= running(&n->n_slots[i]);
	/*
	 * Counts go stale without the broker: a node acting on them would
	 * keep moving processors the same way.  Then only idle ones seek.
	 */
	if (any && now_mono() - n->n_push_at > n->n_interval)
		any = 0;
	/*
	 * The thesis's probabilities assume every pairing sees counts that
	 * include the moves of the previous round.  The broker pushes
	 * within milliseconds of a move and re-sends its counts every half
	 * interval, so one pairing per push keeps that true; pairing every
	 * quantum on one push let several processors of a job leave on the
	 * same counts, and with the broker gone nothing corrected the
	 * overshoot.
	 */
	if (any && n->n_rule.ru_policy != SCHED_P_TARGETED &&
	    n->n_paired_on == n->n_push_at)
		any = 0;
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		seeking = n->n_silent && s->s_lent && s->s_current == NULL &&
		    s->s_want_job == 0 && s->s_state == PROTO_NS_IDLE;
		if (!seeking && !(any && running(s) &&
		    now_mono() >= s->s_pair_block_until))
			continue;
		if (!seeking && n->n_rule.ru_policy == SCHED_P_TARGETED)
			targeted(n, s);
		else
			pair_slot(n, s, seeking);
	}
	if (any)
		n->n_paired_on = n->n_push_at;
}

/* A peer asks: one of our lent processors, drawn at random, answers. */
void
node_on_pair_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_pair p;
	struct slot *s;
	uint16_t asker;
	size_t len;

	if (proto_pair_dec(&p, in->mi_data, in->mi_len) == -1)
		return;
	asker = p.pa_slot;
	if ((s = some_slot(n)) != NULL)
		slot_pair(n, s, &p);
	else
		memset(&p, 0, sizeof(p));
	p.pa_slot = asker;
	if ((len = proto_pair_enc(&p, n->n_buf, sizeof(n->n_buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_PAIR, n->n_buf, len);
}

void
node_on_pair(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_pair p;
	struct slot *s;

	(void)ep;
	/* Only the answer a processor is waiting for, and only once. */
	if (proto_pair_dec(&p, in->mi_data, in->mi_len) == -1 ||
	    (s = node_slot_at(n, p.pa_slot)) == NULL ||
	    !msg_addr_eq(&in->mi_from, &s->s_pair_peer) ||
	    now_mono() - s->s_pair_asked_at > n->n_quantum)
		return;
	memset(&s->s_pair_peer, 0, sizeof(s->s_pair_peer));
	log_debug("%s: processor %u: peer runs job %u (count %u%s)",
	    __func__, s->s_index, p.pa_job, p.pa_count,
	    p.pa_busy ? ", just switched" : "");
	if (p.pa_busy || p.pa_job == 0 || !n->n_owner_away || !s->s_lent ||
	    !node_may_take(n, s, p.pa_job, p.pa_user))
		return;
	if (!running(s)) {
		/* No broker to give us work: a peer's job will do. */
		if (n->n_silent && s->s_current == NULL &&
		    s->s_want_job == 0 && s->s_held == NULL) {
			log_info("broker silent: joining job %u of a peer "
			    "(processor %u)", p.pa_job, s->s_index);
			take(n, s, p.pa_job, &p.pa_jobmgr, p.pa_user,
			    "joining a peer's job");
		}
		return;
	}
	decide(n, s, &p);
}

void
node_pair_start(struct node *n)
{
	sched_rng_seed(&n->n_rng, n->n_boot);
	evloop_timer_add(n->n_dc.dc_loop, n->n_quantum *
	    sched_rng_unit(&n->n_rng), on_quantum, n);
}
