/*
 * CilkNodeManager: what the broker pushes.  Its PUSH lists the jobs it
 * knows, kept for pairing (pair.c) and for what a job takes (needs.c);
 * a worker whose job it no longer lists stops, as does one of a job
 * that left its registry (JOB_GONE).
 */
#include "mono.h"
#include "node.h"

static int
push_has_job(const struct proto_push *p, uint32_t job)
{
	uint32_t i;

	for (i = 0; i < p->pu_njobs; i++)
		if (p->pu_jobs[i].pj_job == job)
			return 1;
	return 0;
}

/*
 * The broker says a job left its registry (unregistered or killed): its
 * worker stops now, however young the broker (see node_on_push), and
 * what its workers leave is not kept for a job manager that has gone.
 */
void
node_on_job_gone(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_job_unreg m;
	struct worker *w, *next;
	struct nw_conf c;
	struct slot *s;
	uint16_t i;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker) ||
	    proto_job_unreg_dec(&m, in->mi_data, in->mi_len) == -1)
		return;
	node_nw_conf(n, &c);
	/* Each stops, or, over, is dropped: nobody takes its output. */
	TAILQ_FOREACH_SAFE(w, &n->n_workers, w_entry, next)
		if (w->w_job == m.ju_job)
			node_worker_act(n, w, nw_job_ended(&w->w_nw, &c,
			    now_mono()), "the job ended");
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		if (s->s_want_job == m.ju_job && s->s_current == NULL)
			s->s_want_job = 0;
	}
	node_update_state(n);
}

void
node_on_push(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_push p;
	struct worker *w;
	uint16_t i;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker) ||
	    proto_push_dec(&p, in->mi_data, in->mi_len) == -1)
		return;
	/*
	 * A job the broker no longer lists has ended, unless the broker
	 * is too young to have heard every job manager again.
	 */
	for (i = 0; i < n->n_total; i++) {
		w = n->n_slots[i].s_current;
		if (w != NULL && nw_up(w->w_nw.nw_state) &&
		    !push_has_job(&p, w->w_job) &&
		    p.pu_uptime_ms > 3 * n->n_interval * 1000)
			node_stop_slot(n, &n->n_slots[i], "the job ended");
	}
	proto_push_free(&n->n_push);
	n->n_push = p;
	n->n_have_push = 1;
	n->n_push_at = now_mono();
	/* The broker counts us in our job now: we may pair again. */
	for (i = 0; i < n->n_total; i++) {
		w = n->n_slots[i].s_current;
		if (w != NULL && push_has_job(&p, w->w_job))
			n->n_slots[i].s_pair_block_until = 0;
	}
}
