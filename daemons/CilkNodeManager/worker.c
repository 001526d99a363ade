/* CilkNodeManager: switching jobs, starting and stopping workers. */
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
static void	workers_tick(struct node *);

/*
 * WORK_TICK: how often output is read from the workers' logs and relayed,
 * while there is a worker here; with none, no tick runs.  An exit does
 * not wait for it: the parent tells it at once, and it is relayed then.
 */
#define WORK_TICK	0.2
/* s past twice stop_grace before a stopping worker is killed for good */
#define STOP_LIMIT_MORE	30.0
static struct evtimer *work_timer;

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
static void
forget_assignment(struct node *n, struct slot *s)
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
		forget_assignment(n, s);
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
		forget_assignment(n, s);
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

/* A peer can make this line repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;

void
node_on_desc(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_desc d;
	struct worker *w;
	struct slot *s = NULL;
	struct nw_step st;
	char why[256];
	uint32_t mem_mb;
	uint16_t i, cpus;
	int tell = 1;	/* the node's own reason: DESC_REFUSED (refuse.c) */

	(void)ep;
	/* A fresh one for a task whose files took long (stagein.c). */
	if (node_stagein_on_desc(n, in))
		return;
	/* Only from a job manager one of our processors is waiting for. */
	for (i = 0; i < n->n_total && s == NULL; i++)
		if (n->n_slots[i].s_want_job != 0 &&
		    n->n_slots[i].s_current == NULL &&
		    msg_addr_eq(&in->mi_from, &n->n_slots[i].s_want_jobmgr) &&
		    msg_verify_sender(in, MSG_SCHEME_USER,
		    n->n_slots[i].s_want_user, NULL))
			s = &n->n_slots[i];
	if (s == NULL)
		return;
	/*
	 * A credential in the description is the parent's to decode (once:
	 * munged refuses a second decode); the user's own credential on
	 * this message already said who sent it.
	 */
	if ((proto_desc_is_munge(in->mi_data, in->mi_len) ?
	    proto_desc_peek(&d, in->mi_data, in->mi_len, why, sizeof(why)) :
	    proto_desc_open(&d, n->n_dc.dc_keys, now_mono(), in->mi_data,
	    in->mi_len, why, sizeof(why))) == -1)
		goto refuse;
	/* The processor it was issued to, which must be waiting for it. */
	if ((s = node_slot_named(n, d.de_node)) == NULL ||
	    s->s_current != NULL ||
	    !msg_addr_eq(&in->mi_from, &s->s_want_jobmgr)) {
		proto_desc_free(&d);
		return;		/* a late answer: the job manager asks again */
	}
	if (d.de_job != s->s_want_job) {
		snprintf(why, sizeof(why), "for job %u, not %u", d.de_job,
		    s->s_want_job);
		tell = 0;
		goto refuse_free;
	}
	if (strcmp(d.de_user, s->s_want_user) != 0) {
		snprintf(why, sizeof(why), "signed by %s, not %s", d.de_user,
		    s->s_want_user);
		goto refuse_free;
	}
	if (proto_desc_needs(&d, &cpus, &mem_mb) == -1) {
		snprintf(why, sizeof(why), "malformed %s or %s",
		    PROTO_CPUS_ENV, PROTO_MEM_ENV);
		tell = 0;	/* the job's */
		goto refuse_free;
	}
	/*
	 * What it says it takes, signed, is what it holds (a hold lost
	 * since the switch began is taken again, or it does not start).
	 */
	if (node_hold(n, s, cpus, 0, s->s_want_room, why, sizeof(why)) == -1) {
		tell = 0;	/* passing: the owner's load, not a fault */
		goto refuse_free;
	}
	s->s_want_cpus = cpus;
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		proto_desc_free(&d);
		forget_assignment(n, s);
		return;
	}
	w->w_slot = s;
	strlcpy(w->w_name, s->s_name, sizeof(w->w_name));
	w->w_job = d.de_job;
	w->w_task = d.de_task;
	w->w_cpus = cpus;
	w->w_mem_mb = mem_mb;
	strlcpy(w->w_user, d.de_user, sizeof(w->w_user));
	w->w_jobmgr = s->s_want_jobmgr;
	w->w_seen = now_mono();
	st = nw_begin(&w->w_nw, proto_owner_return(&d), now_mono());
	proto_desc_free(&d);
	TAILQ_INSERT_TAIL(&n->n_workers, w, w_entry);
	node_worker_act(n, w, st, "");	/* its processor's worker */
	/* Its files first (stagein.c), then the worker. */
	if (d.de_stage.sl_nin > 0) {
		if (node_stagein_begin(n, w, in->mi_data, in->mi_len,
		    &d.de_stage, why, sizeof(why)) == -1)
			node_start_failed(n, w, why, 0);
		workers_tick(n);
		return;
	}
	/* The parent checks the user's signature again, itself. */
	w->w_req = node_chan_spawn(n, NMPRIV_KIND_WORKER, "", in->mi_data,
	    in->mi_len);
	workers_tick(n);
	return;
 refuse_free:
	proto_desc_free(&d);
 refuse:
	n->n_refused++;
	if (log_rate(&refused_log, now_mono(), "refused descriptions"))
		log_warnx("job %u: description refused: %s (%llu refused so "
		    "far)", s->s_want_job, why,
		    (unsigned long long)n->n_refused);
	if (tell)
		node_desc_refused(n, s, why);
	forget_assignment(n, s);
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
		forget_assignment(n, w->w_slot);
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

/* The parent's answer to our SPAWN: the worker runs, or it does not. */
void
node_on_spawned(struct node *n, const struct nmpriv_msg *m)
{
	struct nw_conf c;
	struct nw_step st;
	struct worker *w;
	struct slot *s;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (w->w_req != 0 && w->w_req == m->nm_req)
			break;
	node_nw_conf(n, &c);
	if (w == NULL || w->w_nw.nw_state != NW_STARTING) {
		/* Given up on (start_timeout) or gone: what runs ends. */
		st = w != NULL ? nw_spawned(&w->w_nw, &c, 0, now_mono()) :
		    (struct nw_step){ NW_GONE, NW_A_KILL };
		if (m->nm_flag == 1 && (st.ns_act & NW_A_KILL)) {
			log_warnx("worker %s started after its start was "
			    "given up: ended", m->nm_worker);
			node_chan_forget(n, m->nm_worker);
		}
		return;
	}
	s = w->w_slot;
	node_stagein_free(n, w);	/* the launch pad has the spool */
	if (m->nm_flag != 1) {
		log_warnx("job %u task %u: not started%s: %s", w->w_job,
		    w->w_task, m->nm_flag == NMPRIV_SPAWN_NODE ?
		    " (this node's fault: it runs elsewhere)" : "", m->nm_why);
		node_start_failed(n, w, m->nm_why,
		    m->nm_flag == NMPRIV_SPAWN_NODE);	/* may free w */
		return;
	}
	strlcpy(w->w_id, m->nm_worker, sizeof(w->w_id));
	w->w_lpad = (pid_t)m->nm_lpad;
	node_worker_act(n, w, nw_spawned(&w->w_nw, &c, !n->n_owner_away ||
	    !s->s_lent, now_mono()), "the owner came back while it started");
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
 * A worker that exits 126 or 127 may never have run: the launch pad
 * then wrote "CilkLaunchPad: worker W: WHAT: strerror" as the first
 * line of its error log, before the exec (CilkLaunchPad(8)).  Its job
 * manager gets WHAT: strerror with the exit, and stops relaunching.
 */
static void
launch_failure(struct node *n, struct worker *w)
{
	char line[PROTO_REASON_MAX + LPAD_WORKER_MAX + 32], head[64];
	ssize_t got;
	size_t hl;

	if ((w->w_status != LPAD_EXIT_SETUP &&
	    w->w_status != LPAD_EXIT_EXEC) || w->w_id[0] == '\0')
		return;
	got = lpad_read_log(n->n_state_dir, w->w_id, LPAD_STREAM_ERR, 0,
	    line, sizeof(line) - 1);
	if (got <= 0)
		return;
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	hl = (size_t)snprintf(head, sizeof(head), "CilkLaunchPad: worker "
	    "%s: ", w->w_id);
	if (hl >= sizeof(head) || strncmp(line, head, hl) != 0)
		return;
	strlcpy(w->w_why, line + hl, sizeof(w->w_why));
	log_warnx("job %u task %u: cannot run here: %s", w->w_job, w->w_task,
	    w->w_why);
}

/*
 * A worker is gone (the parent's WORKER m says how, and what it used):
 * the node is free for the next job, or its owner, and its job manager
 * hears of it now (node_relay, which may free w).
 */
static void
exit_facts(struct node *n, struct worker *w, const struct nmpriv_msg *m)
{
	w->w_status = m->nm_how == LPAD_HOW_SIGNAL ? -(int32_t)m->nm_code :
	    (int32_t)m->nm_code;
	w->w_cpu_ms = m->nm_cpu_ms;
	w->w_maxrss_kb = m->nm_maxrss_kb;
	if (m->nm_how == LPAD_HOW_EXITED)
		launch_failure(n, w);
	log_info("job %u: worker %s %s %d", w->w_job, w->w_id,
	    w->w_status < 0 ? "killed by signal" : "exited",
	    w->w_status < 0 ? -w->w_status : w->w_status);
}

static void
worker_exited(struct node *n, struct worker *w, const struct nmpriv_msg *m)
{
	struct nw_step st;

	/* Told twice, or after it was given up: nothing changes. */
	if ((st = nw_exited(&w->w_nw, now_mono())).ns_act == NW_A_NONE)
		return;
	exit_facts(n, w, m);
	node_worker_act(n, w, st, "its job ended");	/* may free w */
}

static void
on_jobmgr_check(struct node *n)
{
	struct nw_conf c;
	struct worker *w;
	struct slot *s;
	uint16_t i, k;
	double now = now_mono();
	uint8_t ping[MSG_PING_FIXED];
	size_t len;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		node_relay_alive(n, w);
	node_nw_conf(n, &c);
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		if ((w = s->s_current) == NULL || !nw_up(w->w_nw.nw_state))
			continue;
		if (now - s->s_jobmgr_seen > 3 * n->n_interval) {
			node_worker_act(n, w, nw_jobmgr_lost(&w->w_nw, &c,
			    now), "its job manager is gone");
			continue;
		}
		/* One ping a job manager, however many processors it has. */
		for (k = 0; k < i; k++)
			if (n->n_slots[k].s_current != NULL &&
			    msg_addr_eq(&n->n_slots[k].s_current->w_jobmgr,
			    &w->w_jobmgr))
				break;
		if (k < i)
			continue;
		len = msg_ping_build(ping, sizeof(ping), 0, now_real_ns());
		(void)msg_ep_send(n->n_dc.dc_ep, &w->w_jobmgr,
		    MSG_SCHEME_USER, MSG_H_PING, ping, len);
	}
}

/*
 * The job manager refuses to give us its job (this node was given up,
 * or no task is left): on to other jobs now, not after every retry.
 */
void
node_on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_error e;
	struct slot *s;
	uint16_t i;
	int said = 0;

	(void)ep;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != PROTO_H_DESC_REQ)
		return;
	/*
	 * The answer does not say which processor asked: every one waiting
	 * for that job manager hears it (it said the same to each).
	 */
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		if (s->s_want_job == 0 || s->s_current != NULL ||
		    !msg_addr_eq(&in->mi_from, &s->s_want_jobmgr) ||
		    !msg_verify_sender(in, MSG_SCHEME_USER, s->s_want_user,
		    NULL))
			continue;
		if (!said++)
			log_info("job %u: its job manager says: %s",
			    s->s_want_job, e.er_reason);
		forget_assignment(n, s);
	}
}

void
node_on_pong(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct worker *w;
	uint16_t i;

	(void)ep;
	for (i = 0; i < n->n_total; i++)
		if (n->n_slots[i].s_current != NULL &&
		    msg_addr_eq(&in->mi_from,
		    &n->n_slots[i].s_current->w_jobmgr))
			n->n_slots[i].s_jobmgr_seen = now_mono();
	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (msg_addr_eq(&in->mi_from, &w->w_jobmgr))
			w->w_seen = now_mono();
}

static void
on_tick(struct evloop *loop, void *arg)
{
	static const char *const why[NW_STATE_MAX] = {
		[NW_STARTING] = "no start within start_timeout",
		[NW_SUSPENDED] = "suspended for as long as it may be",
		[NW_STOPPING] = "still there long after its stop",
		[NW_EXITED] = "its job manager is gone",
	};
	struct node *n = arg;
	struct worker *w, *next;
	struct nw_conf c;
	struct nw_step st;
	enum nw_state was;

	(void)loop;
	work_timer = NULL;

	/* Timeouts, and output relayed (may free w). */
	node_nw_conf(n, &c);
	TAILQ_FOREACH_SAFE(w, &n->n_workers, w_entry, next) {
		was = w->w_nw.nw_state;
		st = nw_tick(&w->w_nw, &c, w->w_seen, now_mono());
		if (st.ns_act & NW_A_NEVER_RAN)
			log_warnx("job %u task %u: not started within "
			    "start_timeout (%.0f s): given up", w->w_job,
			    w->w_task, c.nc_start_timeout);
		node_worker_act(n, w, st, why[was] != NULL ? why[was] : "");
	}
	if (now_mono() - n->n_checked_at >= n->n_interval / 2) {
		n->n_checked_at = now_mono();
		on_jobmgr_check(n);
	}
	workers_tick(n);
}

/* The tick runs while there is a worker here, running or draining. */
static void
workers_tick(struct node *n)
{
	if (work_timer == NULL && !TAILQ_EMPTY(&n->n_workers))
		work_timer = evloop_timer_add(n->n_dc.dc_loop, WORK_TICK,
		    on_tick, n);
}

void
node_workers_start(struct node *n)
{
	workers_tick(n);
}

/*
 * What the parent knows of a worker: its exit, or, after our restart,
 * a worker still there, adopted with the job manager we recorded.
 */
void
node_on_worker(struct node *n, const struct nmpriv_msg *m)
{
	struct worker *w;
	struct slot *s;
	struct nw_conf c;
	struct nw_step st;
	enum nw_parent p;
	const char *why;
	char path[PATH_MAX + 64], text[80], slot[16], cpus[16], mem[16];
	FILE *f;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (strcmp(w->w_id, m->nm_worker) == 0)
			break;
	if (w != NULL) {
		if (m->nm_state == NMPRIV_W_EXITED)
			worker_exited(n, w, m);	/* may free w */
		return;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return;
	strlcpy(w->w_id, m->nm_worker, sizeof(w->w_id));
	w->w_job = m->nm_job;
	w->w_task = m->nm_task;
	strlcpy(w->w_user, m->nm_user, sizeof(w->w_user));
	w->w_lpad = (pid_t)m->nm_lpad;
	node_nw_conf(n, &c);
	p = m->nm_state == NMPRIV_W_EXITED ? NW_P_EXITED :
	    m->nm_state == NMPRIV_W_FROZEN ? NW_P_FROZEN : NW_P_RUNNING;
	snprintf(path, sizeof(path), "%s/nm/%s", n->n_engine_dir, w->w_id);
	if ((f = fopen(path, "r")) == NULL ||
	    fgets(text, sizeof(text), f) == NULL ||
	    (text[strcspn(text, "\n")] = '\0',
	    msg_addr_parse(&w->w_jobmgr, text, 0)) == -1) {
		log_warnx("adopt %s: no record of its job manager; stopping "
		    "it", w->w_id);
		if (f != NULL)
			fclose(f);
		/* Stopped and forgotten: never in the list (no slot). */
		node_worker_act(n, w, nw_adopted(&w->w_nw, &c, p, 0, 0, 0,
		    now_mono()), "no record of its job manager");
		free(w);
		return;
	}
	/* Its processor: recorded after the job manager (0 if not). */
	s = node_slot_at(n, fgets(slot, sizeof(slot), f) != NULL ?
	    (uint32_t)strtoul(slot, NULL, 10) : 0);
	/* What it takes: recorded after its processor (1 and 0 if not). */
	w->w_cpus = fgets(cpus, sizeof(cpus), f) != NULL ?
	    (uint16_t)strtoul(cpus, NULL, 10) : 1;
	if (w->w_cpus < 1 || w->w_cpus > NC_SLOTS_MAX)
		w->w_cpus = 1;
	w->w_mem_mb = fgets(mem, sizeof(mem), f) != NULL ?
	    (uint32_t)strtoul(mem, NULL, 10) : 0;
	fclose(f);
	if (s == NULL)
		s = &n->n_slots[0];	/* fewer processors now */
	w->w_slot = s;
	strlcpy(w->w_name, s->s_name, sizeof(w->w_name));
	w->w_seen = now_mono();
	TAILQ_INSERT_TAIL(&n->n_workers, w, w_entry);
	workers_tick(n);
	log_info("adopted worker %s of job %u on %s (%s)", w->w_id, w->w_job,
	    s->s_name, m->nm_state == NMPRIV_W_EXITED ? "exited" : "running");
	st = nw_adopted(&w->w_nw, &c, p, 1, s->s_current == NULL,
	    !n->n_owner_away || !s->s_lent, now_mono());
	if (p == NW_P_EXITED)
		exit_facts(n, w, m);
	/* One worker a processor: any other is retired. */
	why = (st.ns_act & NW_A_CLAIM) ? "the owner is here" :
	    "its processor runs another";
	if (st.ns_act & NW_A_CLAIM) {
		/* Its processor's, holding what it holds again. */
		node_worker_act(n, w, (struct nw_step){ st.ns_state,
		    NW_A_CLAIM }, why);
		st.ns_act &= ~NW_A_CLAIM;
		if (n->n_owner_away && node_hold(n, s, w->w_cpus, 0, 0, text,
		    sizeof(text)) == -1)
			log_warnx("adopt %s: %s", w->w_id, text);
	}
	node_worker_act(n, w, st, why);	/* may free w */
}
