/* CilkJobBroker: pushes of job counts and peer samples; see bpush.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "bpush.h"
#include "log.h"
#include "mono.h"

static void	all_now(struct evloop *, void *);

void
bpush_init(struct bpush *bu, struct dctx *dc, struct broker *br)
{
	memset(bu, 0, sizeof(*bu));
	bu->bu_dc = dc;
	bu->bu_br = br;
	bu->bu_started = now_mono();
	sched_rng_seed(&bu->bu_rng, randombytes_random() |
	    (uint64_t)randombytes_random() << 32);
}

void
bpush_fini(struct bpush *bu)
{
	if (bu->bu_later != NULL)
		evloop_timer_cancel(bu->bu_dc->dc_loop, bu->bu_later);
	free(bu->bu_jobs);
	bu->bu_jobs = NULL;
}

/* Every job's row, in table order (oldest first); -1 out of memory. */
static int
jobs_rows(struct bpush *bu)
{
	struct broker_job *j;
	struct proto_push_job *pj;
	uint32_t want = bu->bu_br->br_njobs;

	if (want > bu->bu_cap) {
		if ((pj = reallocarray(bu->bu_jobs, want, sizeof(*pj))) ==
		    NULL)
			return -1;
		bu->bu_jobs = pj;
		bu->bu_cap = want;
	}
	bu->bu_njobs = 0;
	TAILQ_FOREACH(j, &bu->bu_br->br_jobs, bj_entry) {
		pj = &bu->bu_jobs[bu->bu_njobs++];
		memset(pj, 0, sizeof(*pj));
		pj->pj_job = j->bj_id;
		pj->pj_count = j->bj_count;
		pj->pj_pri = j->bj_pri;
		pj->pj_max = broker_job_cap(j);	/* like the count: processors */
		pj->pj_cpus = j->bj_cpus;
		pj->pj_mem_mb = j->bj_mem_mb;
		pj->pj_jobmgr = j->bj_addr;
		strlcpy(pj->pj_user, j->bj_user, sizeof(pj->pj_user));
	}
	return 0;
}

/* What the rows say that a node acts on: a change means a round. */
static uint64_t
jobs_sig(const struct bpush *bu)
{
	crypto_generichash_state st;
	uint64_t sig;
	uint32_t i, v[4];

	(void)crypto_generichash_init(&st, NULL, 0, sizeof(sig));
	for (i = 0; i < bu->bu_njobs; i++) {
		v[0] = bu->bu_jobs[i].pj_job;
		v[1] = bu->bu_jobs[i].pj_count;
		v[2] = bu->bu_jobs[i].pj_pri;
		v[3] = bu->bu_jobs[i].pj_max;
		(void)crypto_generichash_update(&st, (const uint8_t *)v,
		    sizeof(v));
	}
	(void)crypto_generichash_final(&st, (uint8_t *)&sig, sizeof(sig));
	return sig;
}

/*
 * A job node n runs or was given: it must be in n's push.  (With more
 * jobs than a push holds, only the first processor's is sure to be.)
 */
static uint32_t
node_job(const struct broker_node *n)
{
	uint16_t i;

	for (i = 0; i < n->bn_nslots; i++)
		if (n->bn_slots[i].bs_assigned != 0 ||
		    n->bn_slots[i].bs_job != 0)
			return n->bn_slots[i].bs_assigned != 0 ?
			    n->bn_slots[i].bs_assigned : n->bn_slots[i].bs_job;
	return n->bn_job;
}

/*
 * A drained node (broker_health.h) hears only of the jobs it runs, so
 * that those go on, and of no peer: it has nothing to switch to or
 * pair with, and takes no new work by itself.
 */
static void
send_drained(struct bpush *bu, const struct broker_node *n)
{
	static struct proto_push_job mine[PROTO_ROWS_MAX];
	struct proto_push p;
	uint32_t i;
	size_t len;

	memset(&p, 0, sizeof(p));
	p.pu_epoch = bu->bu_br->br_epoch;
	p.pu_uptime_ms = (uint32_t)((now_mono() - bu->bu_started) * 1000);
	for (i = 0; i < bu->bu_njobs && p.pu_njobs < PROTO_ROWS_MAX; i++)
		if (broker_node_runs(n, bu->bu_jobs[i].pj_job))
			mine[p.pu_njobs++] = bu->bu_jobs[i];
	p.pu_jobs = mine;
	if ((len = proto_push_enc(&p, bu->bu_buf, sizeof(bu->bu_buf))) == 0) {
		log_warnx("push: node %u: too large to send", n->bn_id);
		return;
	}
	if (msg_ep_send(bu->bu_dc->dc_ep, &n->bn_addr, MSG_SCHEME_CLUSTER,
	    PROTO_H_PUSH, bu->bu_buf, len) == -1)
		log_debug("push: node %u: %s", n->bn_id, strerror(errno));
}

/* Sends the rows made last, and a sample of peers, to node n. */
static void
send_to(struct bpush *bu, const struct broker_node *n)
{
	struct proto_push_node peers[BPUSH_PEERS];
	struct proto_push_job keep;
	const struct broker_node *o;
	struct proto_push p;
	uint32_t i, k, tries, mine = node_job(n), last = 0;
	size_t len;

	if (n->bn_drain) {
		send_drained(bu, n);
		return;
	}
	memset(&p, 0, sizeof(p));
	p.pu_epoch = bu->bu_br->br_epoch;
	p.pu_uptime_ms = (uint32_t)((now_mono() - bu->bu_started) * 1000);
	p.pu_jobs = bu->bu_jobs;
	p.pu_njobs = bu->bu_njobs < PROTO_ROWS_MAX ? bu->bu_njobs :
	    PROTO_ROWS_MAX;
	/*
	 * Peers drawn at random from the node table; a draw that is not
	 * available, or drawn already, is drawn again, a few times.
	 */
	p.pu_nodes = peers;
	for (tries = 0; p.pu_nnodes < BPUSH_PEERS &&
	    tries < 3 * BPUSH_PEERS; tries++) {
		o = htab_at(&bu->bu_br->br_node_by_id,
		    sched_rng_u64(&bu->bu_rng));
		if (o == NULL || !broker_node_available(o) || o->bn_drain)
			continue;
		for (k = 0; k < p.pu_nnodes && peers[k].pn_node != o->bn_id;
		    k++)
			;
		if (k < p.pu_nnodes)
			continue;
		peers[p.pu_nnodes].pn_node = o->bn_id;
		peers[p.pu_nnodes].pn_slots = o->bn_lent;
		peers[p.pu_nnodes++].pn_addr = o->bn_addr;
	}
	/*
	 * More jobs than fit: the oldest go, and the node's own job in the
	 * last row, since a job missing from the push has ended for it.
	 */
	for (;;) {
		for (i = 0; mine != 0 && i < p.pu_njobs &&
		    bu->bu_jobs[i].pj_job != mine; i++)
			;
		if (mine != 0 && i == p.pu_njobs && p.pu_njobs > 0) {
			for (k = p.pu_njobs; k < bu->bu_njobs &&
			    bu->bu_jobs[k].pj_job != mine; k++)
				;
			if (k < bu->bu_njobs) {
				keep = bu->bu_jobs[p.pu_njobs - 1];
				bu->bu_jobs[p.pu_njobs - 1] = bu->bu_jobs[k];
				bu->bu_jobs[k] = keep;
				last = k + 1;	/* swapped: undone below */
			}
		}
		len = proto_push_enc(&p, bu->bu_buf, sizeof(bu->bu_buf));
		if (last != 0) {
			keep = bu->bu_jobs[p.pu_njobs - 1];
			bu->bu_jobs[p.pu_njobs - 1] = bu->bu_jobs[last - 1];
			bu->bu_jobs[last - 1] = keep;
			last = 0;
		}
		if (len > 0 || p.pu_njobs == 0)
			break;
		p.pu_njobs = p.pu_njobs > 64 ? p.pu_njobs - 64 : 0;
	}
	if (len == 0) {
		log_warnx("push: too large to send");
		return;
	}
	if (msg_ep_send(bu->bu_dc->dc_ep, &n->bn_addr, MSG_SCHEME_CLUSTER,
	    PROTO_H_PUSH, bu->bu_buf, len) == -1)
		log_debug("push: node %u: %s", n->bn_id, strerror(errno));
}

void
bpush_to(struct bpush *bu, const struct broker_node *n)
{
	if (n->bn_state == PROTO_NS_BUSY)
		return;		/* its owner's: it pairs with no one */
	if (jobs_rows(bu) == -1) {
		log_warn("push");
		return;
	}
	send_to(bu, n);
}

/* A round: every node not busy gets the jobs and its own sample. */
static void
all(struct bpush *bu)
{
	struct broker_node *n;

	if (jobs_rows(bu) == -1) {
		log_warn("push");
		return;
	}
	bu->bu_sig = jobs_sig(bu);
	TAILQ_FOREACH(n, &bu->bu_br->br_nodes, bn_entry)
		if (n->bn_state != PROTO_NS_BUSY)
			send_to(bu, n);
	bu->bu_next_all = now_mono() + bu->bu_br->br_nnodes / BPUSH_RATE;
}

static void
all_now(struct evloop *loop, void *arg)
{
	struct bpush *bu = arg;

	(void)loop;
	bu->bu_later = NULL;
	broker_recount(bu->bu_br, now_mono());
	all(bu);
}

void
bpush_changed(struct bpush *bu)
{
	double now = now_mono();

	if (bu->bu_later != NULL)
		return;		/* a round is coming */
	if (jobs_rows(bu) == -1) {
		log_warn("push");
		return;
	}
	if (jobs_sig(bu) == bu->bu_sig)
		return;		/* nodes joined or left; no count moved */
	if (now >= bu->bu_next_all)
		all(bu);
	else
		bu->bu_later = evloop_timer_add(bu->bu_dc->dc_loop,
		    bu->bu_next_all - now, all_now, bu);
}
