/*
 * CilkNodeManager: a processor's switch to a job (the broker's
 * assignment, its description fetched from the job manager, the
 * processors and memory it takes held), and what nodeworker decides
 * for a worker, done (node_worker_act): started, frozen, stopped,
 * relayed, freed; the node's state follows.  What happens to workers
 * comes in through wevents.c.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "node.h"

static void	fetch(struct node *, struct slot *);
static int	job_draining(const struct node *, const struct slot *,
		    uint32_t);

/* s past twice stop_grace before a stopping worker is killed for good */
#define STOP_LIMIT_MORE	30.0

/* What nodecore decides by, for one processor. */
void
node_facts(const struct node *n, const struct slot *s, struct nc_facts *f)
{
	const struct worker *w = s->s_current;

	/* A processor held for another's worker is what that one is. */
	if (s->s_held != NULL && w == NULL) {
		node_facts(n, s->s_held, f);
		f->nf_owner_away = f->nf_owner_away && s->s_lent;
		return;
	}
	f->nf_owner_away = n->n_owner_away && s->s_lent;
	f->nf_want_job = s->s_want_job != 0;
	f->nf_stop_pending = w != NULL && w->w_nw.nw_stop_pending;
	f->nf_current = NC_W_NONE;
	if (w == NULL)
		return;
	switch (w->w_nw.nw_state) {
	case NW_STARTING:
		f->nf_current = NC_W_STARTING;
		break;
	case NW_RUNNING:
		f->nf_current = NC_W_RUNNING;
		break;
	case NW_SUSPENDED:
		f->nf_current = NC_W_FROZEN;
		break;
	case NW_STOPPING:
		f->nf_current = NC_W_STOPPING;
		break;
	default:
		break;
	}
}

/*
 * The one place the node's state changes: each processor's derived from
 * its facts (nodecore), the node's from theirs, reported to the broker
 * at once when any changed.
 */
void
node_update_state(struct node *n)
{
	enum proto_node_state states[NC_SLOTS_MAX] = { PROTO_NS_UNDEF }, st;
	struct nc_facts f;
	uint16_t i;
	int changed = 0;

	node_holds_settle(n);
	for (i = 0; i < n->n_total; i++) {
		node_facts(n, &n->n_slots[i], &f);
		states[i] = nc_node_state(&f);
		if (states[i] != n->n_slots[i].s_state) {
			n->n_slots[i].s_state = states[i];
			changed = 1;
		}
	}
	st = nc_node_state_sum(states, n->n_total);
	if (!changed && st == n->n_state)
		return;
	if (st != n->n_state)
		log_debug("state %s -> %s", proto_state_name(n->n_state),
		    proto_state_name(st));
	n->n_state = st;
	node_hist_sample(n);	/* the band changes colour at once */
	node_register_now(n);
}

/*
 * A job that could not start here is not taken again for a while, or
 * the broker and we would spin assigning and failing it.
 */
void
node_forget_assignment(struct node *n, struct slot *s)
{
	n->n_failed_job = s->s_want_job;
	n->n_failed_at = now_mono();
	s->s_want_job = 0;
	s->s_fetch_tries = 0;
	if (s->s_current == NULL)
		node_update_state(n);
}

static void
on_fetch_timer(struct evloop *loop, void *arg)
{
	struct slot *s = arg;
	struct node *n = s->s_node;

	(void)loop;
	s->s_fetch_timer = NULL;
	if (s->s_want_job == 0 || s->s_current != NULL ||
	    s->s_state != PROTO_NS_SWITCHING)
		return;
	if (s->s_fetch_tries >= FETCH_TRIES) {
		char why[200];

		/* Its answers came but did not open: say why (refuse.c). */
		if (node_fetch_refusal(n, s, now_mono() - FETCH_TRIES *
		    FETCH_WAIT - 1, why, sizeof(why)) == 0) {
			log_warnx("job %u: not started: %s", s->s_want_job,
			    why);
			node_desc_refused(n, s, why);
		} else {
			log_warnx("job %u: its job manager did not answer; "
			    "giving up", s->s_want_job);
			/* It may yet: what it hands us runs elsewhere. */
			node_fetch_withdraw(n, s, "its job manager did not "
			    "answer in time");
		}
		node_forget_assignment(n, s);
		return;
	}
	fetch(n, s);
}

/*
 * Asks the job manager itself: never trust anyone else for a job.  The
 * processor asks under its own name, so the job manager gives each of
 * the node's processors a task of its own.
 */
static void
fetch(struct node *n, struct slot *s)
{
	struct proto_desc_req r;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.dr_job = s->s_want_job;
	strlcpy(r.dr_node, s->s_name, sizeof(r.dr_node));
	r.dr_fetch = s->s_fetch_id;
	s->s_fetch_tries++;
	if ((len = proto_desc_req_enc(&r, n->n_buf, sizeof(n->n_buf))) > 0 &&
	    msg_ep_send(n->n_dc.dc_ep, &s->s_want_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_DESC_REQ, n->n_buf, len) == -1)
		log_debug("%s: send failed", __func__);
	if (s->s_fetch_timer != NULL)
		evloop_timer_cancel(n->n_dc.dc_loop, s->s_fetch_timer);
	s->s_fetch_timer = evloop_timer_add(n->n_dc.dc_loop, FETCH_WAIT,
	    on_fetch_timer, s);
}

static void
start_switch(struct node *n, struct slot *s)
{
	char why[160];

	/* The processors and memory it needs, held before it is fetched. */
	if (node_hold(n, s, s->s_want_cpus, s->s_want_mem_mb, s->s_want_room,
	    why, sizeof(why)) == -1) {
		log_info("job %u: not here: %s", s->s_want_job, why);
		node_forget_assignment(n, s);
		return;
	}
	s->s_fetch_tries = 0;
	/* Its retries repeat it; a restarted node asks with another. */
	do
		randombytes_buf(&s->s_fetch_id, sizeof(s->s_fetch_id));
	while (s->s_fetch_id == 0);
	node_update_state(n);
	node_sense_soon(n);
	fetch(n, s);
}

void
node_on_assign(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_assign a;
	struct slot *s;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker) ||
	    proto_assign_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	if (node_down_on_assign(n))
		return;		/* down by itself (ndown.c) */
	if (!n->n_owner_away || (s = node_slot_at(n, a.as_slot)) == NULL ||
	    !s->s_lent) {
		node_register_now(n);	/* it has us wrong: correct it */
		return;
	}
	if ((s->s_current != NULL && s->s_current->w_job == a.as_job) ||
	    s->s_want_job == a.as_job ||
	    (s->s_held != NULL && s->s_held->s_current != NULL &&
	    s->s_held->s_current->w_job == a.as_job))
		return;
	/* It has us wrong (what we lend or hold changed): correct it. */
	if (!node_fits(n, s, a.as_cpus, a.as_mem_mb, a.as_room)) {
		log_info("job %u does not fit on processor %u now (%u "
		    "processors, %u MiB)", a.as_job, a.as_slot, a.as_cpus,
		    a.as_mem_mb);
		node_register_now(n);
		return;
	}
	if ((a.as_job == n->n_failed_job &&
	    now_mono() - n->n_failed_at < FAILED_PAUSE) ||
	    job_draining(n, s, a.as_job))
		return;
	/* Fail closed: only root may start processes as someone else. */
	if (!n->n_root && strcmp(a.as_user, n->n_self) != 0) {
		if (n->n_refused++ % 100 == 0)
			log_warnx("refusing job %u of user %s: this node "
			    "manager runs as %s, not root", a.as_job,
			    a.as_user, n->n_self);
		return;
	}
	log_info("assigned job %u of %s to processor %u", a.as_job, a.as_user,
	    a.as_slot);
	node_take_job(n, s, a.as_job, &a.as_jobmgr, a.as_user, a.as_cpus,
	    a.as_mem_mb, a.as_room, "the broker assigned another job");
}

/* Switches a processor to a job: stop what runs there, then fetch it. */
void
node_take_job(struct node *n, struct slot *s, uint32_t job,
    const struct msg_addr *jobmgr, const char *user, uint16_t cpus,
    uint32_t mem_mb, int room, const char *why)
{
	node_held_taken(n, s, why);
	s->s_want_job = job;
	s->s_want_cpus = cpus > 0 ? cpus : 1;
	s->s_want_mem_mb = mem_mb;
	s->s_want_room = room;
	s->s_want_jobmgr = *jobmgr;
	strlcpy(s->s_want_user, user, sizeof(s->s_want_user));
	if (s->s_current != NULL)
		node_stop_slot(n, s, why);
	else
		start_switch(n, s);
}

/*
 * 1 while a worker of job has exited on this processor but its job
 * manager has not yet heard so: the processor's name asking for the job
 * again now would be given the same task, and run it twice.
 */
static int
job_draining(const struct node *n, const struct slot *s, uint32_t job)
{
	const struct worker *w;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (w->w_job == job && w->w_nw.nw_state == NW_EXITED &&
		    !w->w_nw.nw_exit_acked && strcmp(w->w_name, s->s_name) == 0)
			return 1;
	return 0;
}

/* 1 if this processor may run a job of user (and has not just failed it). */
int
node_may_take(struct node *n, const struct slot *s, uint32_t job,
    const char *user)
{
	const struct proto_push_job *pj = node_push_job(n, job);

	if (!n->n_root && strcmp(user, n->n_self) != 0)
		return 0;
	if (n->n_nd.nd_down)
		return 0;	/* down by itself (ndown.c) */
	if (pj != NULL && !node_fits(n, s, pj->pj_cpus, pj->pj_mem_mb, 0))
		return 0;
	if (job_draining(n, s, job))
		return 0;
	return !(job == n->n_failed_job &&
	    now_mono() - n->n_failed_at < FAILED_PAUSE);
}

/*
 * The job manager has heard that this processor's task ended: ask it for
 * the next one at once, not at the broker's next assignment (which came,
 * and was refused, while the exit was still on its way: job_draining).
 * A job manager with no task left says so and the processor goes idle.
 */
void
node_next_task(struct node *n, struct slot *s, uint32_t job,
    const struct msg_addr *jobmgr, const char *user, uint16_t cpus,
    uint32_t mem_mb)
{
	if (s == NULL || !n->n_owner_away || !s->s_lent ||
	    s->s_current != NULL || s->s_want_job != 0 ||
	    !node_may_take(n, s, job, user))
		return;
	log_debug("job %u: processor %u asks its job manager for the next "
	    "task", job, s->s_index);
	node_take_job(n, s, job, jobmgr, user, cpus, mem_mb, 0,
	    "its task ended");
}

/* Our own record of a worker, for re-adoption after a restart. */
static void
record(struct node *n, const struct worker *w)
{
	char path[PATH_MAX + 64], text[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/nm", n->n_engine_dir);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), "%s/nm/%s", n->n_engine_dir, w->w_id);
	msg_addr_text(&w->w_jobmgr, text, sizeof(text));
	if ((f = fopen(path, "w")) == NULL) {
		log_warn("%s: %s", __func__, path);
		return;
	}
	fprintf(f, "%s\n%u\n%u\n%u\n", text, w->w_slot->s_index, w->w_cpus,
	    w->w_mem_mb);
	if (fclose(f) == EOF)
		log_warn("%s: %s", __func__, path);
}

/* What nodeworker decides by, from the configuration now. */
void
node_nw_conf(const struct node *n, struct nw_conf *c)
{
	c->nc_fast = node_vacate_fast(n);
	c->nc_allow_suspend = strcmp(conf_get(n->n_dc.dc_conf,
	    "allow_suspend"), "no") != 0;
	c->nc_suspend_max = dctx_seconds(&n->n_dc, "suspend_max", 600);
	c->nc_start_timeout = dctx_seconds(&n->n_dc, "start_timeout", 300);
	/* The parent kills it after twice stop_grace: far beyond that. */
	c->nc_stop_limit = 2 * n->n_grace + STOP_LIMIT_MORE;
	c->nc_silence = 3 * n->n_interval;
}

/* Its start counted, its job manager told that it runs. */
static void
worker_started(struct node *n, struct worker *w)
{
	struct slot *s = w->w_slot;

	if (s->s_want_job == w->w_job)
		s->s_want_job = 0;
	n->n_started++;
	node_start_counted(n);
	/* No pairing until the broker has counted us in the new job. */
	s->s_pair_block_until = now_mono() + 3 * n->n_quantum;
	s->s_jobmgr_seen = w->w_seen = now_mono();
	log_info("job %u task %u: worker %s started on %s (launch pad %d)",
	    w->w_job, w->w_task, w->w_id, s->s_name, (int)w->w_lpad);
	node_relay_alive(n, w);
}

/* It never ran: its job manager hears why as its exit's data. */
static void
worker_never_ran(struct node *n, struct worker *w, const char *why,
    int node_fault)
{
	node_stagein_free(n, w);
	w->w_status = node_fault ? PROTO_EXIT_NODE_FAULT : LPAD_EXIT_SETUP;
	snprintf(w->w_why, sizeof(w->w_why), "not started: %.180s",
	    why[0] != '\0' ? why : "no reason given");
	w->w_seen = now_mono();
	n->n_refused++;
	if (node_fault)
		node_fault_counted(n, why[0] != '\0' ? why : "no reason "
		    "given");
	if (w->w_slot->s_current == w)
		node_forget_assignment(n, w->w_slot);
}

/*
 * What nodeworker decided for w, done, in nodeworker.h's order; why is
 * logged with a stop.  Frees w on NW_A_DROP (and node_relay may).
 */
void
node_worker_act(struct node *n, struct worker *w, struct nw_step st,
    const char *why)
{
	struct slot *s = w->w_slot;
	unsigned a = st.ns_act;

	if (a & NW_A_CLAIM) {
		s->s_held = NULL;	/* held for another: its own again */
		s->s_current = w;
		s->s_jobmgr_seen = now_mono();
	}
	if (a & NW_A_FREEZE) {
		node_chan_freeze(n, w->w_id, 1);
		log_info("job %u: worker %s suspended for at most %.0f s",
		    w->w_job, w->w_id, w->w_nw.nw_thaw_by - now_mono());
	}
	if (a & NW_A_THAW) {
		node_chan_freeze(n, w->w_id, 0);
		log_info("job %u: worker %s resumed", w->w_job, w->w_id);
	}
	if (a & NW_A_VACATE) {
		log_info("job %u: stopping worker %s: %s (frozen if still there "
		    "in %.3g s)", w->w_job, w->w_id, why, n->n_grace_fast);
		node_chan_vacate(n, w->w_id, n->n_grace, n->n_grace_fast);
	} else if (a & NW_A_STOP) {
		log_info("job %u: stopping worker %s: %s", w->w_job, w->w_id,
		    why);
		node_chan_stop(n, w->w_id, n->n_grace);
	}
	if (a & NW_A_KILL) {
		log_warnx("job %u: worker %s: %s: the parent kills it",
		    w->w_job, w->w_id, why);
		node_chan_forget(n, w->w_id);
	}
	if (a & NW_A_RECORD)
		record(n, w);
	if (a & NW_A_STARTED)
		worker_started(n, w);
	if (a & NW_A_NEVER_RAN)
		worker_never_ran(n, w, why, (a & NW_A_NODE_FAULT) != 0);
	if ((a & NW_A_FREE_SLOT) && s != NULL && s->s_current == w) {
		s->s_current = NULL;
		if (s->s_want_job != 0 && n->n_owner_away && s->s_lent)
			start_switch(n, s);
	}
	if (a & NW_A_STATE)
		node_update_state(n);
	if (a & NW_A_FORGET)
		node_chan_forget(n, w->w_id);
	if (a & NW_A_DROP) {
		log_info("job %u: dropping worker %s: %s", w->w_job, w->w_id,
		    why);
		node_worker_free(n, w);
		return;
	}
	if (a & NW_A_RELAY)
		node_relay(n, w);	/* may free w */
}

/*
 * Its job manager hears why, as an exit that never ran, or it would
 * count the task as running for ever; node_fault: for a reason of this
 * node's own (PROTO_EXIT_NODE_FAULT), so it runs the task elsewhere
 * and does not count it against the task.  May free w.
 */
void
node_start_failed(struct node *n, struct worker *w, const char *why,
    int node_fault)
{
	node_worker_act(n, w, nw_refused(&w->w_nw, node_fault, now_mono()),
	    why);
}

/* The owner is back: each worker frozen or stopped; away: thawed. */
void
node_workers_owner(struct node *n, int back)
{
	struct nw_conf c;
	struct worker *w;
	struct slot *s;
	uint16_t i;

	node_nw_conf(n, &c);
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		if ((w = s->s_current) == NULL)
			continue;
		if (back)
			node_worker_act(n, w, nw_owner_back(&w->w_nw, &c,
			    now_mono()), "the owner is back");
		else if (w->w_nw.nw_state == NW_SUSPENDED) {
			s->s_lent = 1;
			node_worker_act(n, w, nw_owner_away(&w->w_nw,
			    now_mono()), "the owner is away");
		}
	}
}

void
node_stop_slot(struct node *n, struct slot *s, const char *why)
{
	struct worker *w = s->s_current;
	struct nw_conf c;

	if (w == NULL)
		return;
	node_nw_conf(n, &c);
	node_worker_act(n, w, nw_stop(&w->w_nw, &c, now_mono()), why);
}
void
node_stop_all(struct node *n, const char *why)
{
	uint16_t i;

	for (i = 0; i < n->n_total; i++)
		node_stop_slot(n, &n->n_slots[i], why);
}

/*
 * Holds for s's worker the cpus - 1 other processors it takes (and
 * lets go of any more), if the node has them and the memory, free or,
 * with room, by stopping other jobs' workers of one processor (whose
 * tasks run again elsewhere: the broker made room for a job that fit
 * nowhere free); -1 with why, holding what it held, if not.
 */
int
node_hold(struct node *n, struct slot *s, uint16_t cpus, uint32_t mem_mb,
    int room, char *why, size_t whylen)
{
	struct slot *o;
	char stop[80];
	uint16_t i;
	int lack;

	if ((lack = node_hold_free(n, s, cpus, mem_mb, room, why,
	    whylen)) == -1)
		return -1;
	snprintf(stop, sizeof(stop), "making room for job %u, which takes "
	    "%u processors", s->s_want_job, cpus);
	for (i = 0; room && i < n->n_total && lack > 0; i++) {
		o = &n->n_slots[i];
		if (!node_slot_evictable(o, s))
			continue;
		node_stop_slot(n, o, stop);
		o->s_held = s;	/* its own worker's until it is gone */
		lack--;
	}
	return 0;
}

/*
 * A held processor is wanted for something else (the owner, another
 * job): its worker, taking fewer than it asked for, stops.
 */
void
node_held_taken(struct node *n, struct slot *s, const char *why)
{
	struct slot *a = s->s_held;

	if (a == NULL)
		return;
	s->s_held = NULL;
	if (a->s_current != NULL)
		node_stop_slot(n, a, why);
}

