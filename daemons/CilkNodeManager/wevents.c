/*
 * CilkNodeManager: what happens to its workers, as it comes: a job's
 * description (the worker is started), the parent's answer to a SPAWN
 * and its news of a worker (its exit; after our restart, one adopted),
 * the job manager's answers (an error, a pong, an output's
 * acknowledgement) and the tick that times workers out and relays
 * their output.  What nodeworker decides is done by worker.c.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "node.h"

static void	workers_tick(struct node *);

/*
 * WORK_TICK: how often output is read from the workers' logs and relayed,
 * while there is a worker here; with none, no tick runs.  An exit does
 * not wait for it: the parent tells it at once, and it is relayed then.
 */
#define WORK_TICK	0.2
static struct evtimer *work_timer;

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
		node_forget_assignment(n, s);
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
	node_forget_assignment(n, s);
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
		node_forget_assignment(n, s);
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

/*
 * The worker an acknowledgement is for.  Two of them can have the same
 * job and task here: an attempt still relaying its last bytes or exit
 * on one processor while the next runs on another.  The one whose
 * unacknowledged bytes the offset falls in is meant; else the first
 * (a node manager restarted: the job manager may be ahead of us).
 */
static struct worker *
ack_owner(struct node *n, const struct msg_in *in,
    const struct proto_output_ack *a)
{
	struct worker *w, *first = NULL;
	const struct relay_stream *rs;

	TAILQ_FOREACH(w, &n->n_workers, w_entry) {
		if (w->w_job != a->oa_job || w->w_task != a->oa_task ||
		    !msg_addr_eq(&in->mi_from, &w->w_jobmgr))
			continue;
		if (first == NULL)
			first = w;
		if (a->oa_stream == PROTO_STREAM_EXIT) {
			if (w->w_nw.nw_state == NW_EXITED)
				return w;
			continue;
		}
		rs = &w->w_out[a->oa_stream];
		if (a->oa_offset >= rs->rs_acked &&
		    a->oa_offset <= rs->rs_sent)
			return w;
	}
	return first;
}

void
node_on_output_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_output_ack a;
	struct worker *w;

	(void)ep;
	if (proto_output_ack_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	/* Job ids start again after a broker restart: its manager too. */
	w = ack_owner(n, in, &a);
	if (w == NULL || !msg_addr_eq(&in->mi_from, &w->w_jobmgr) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, w->w_user, NULL))
		return;
	w->w_seen = now_mono();
	if (a.oa_stream == PROTO_STREAM_EXIT) {
		struct slot *s = w->w_slot;
		uint32_t job = w->w_job;
		struct msg_addr jobmgr = w->w_jobmgr;
		uint16_t cpus = w->w_cpus;
		uint32_t mem_mb = w->w_mem_mb;
		char user[sizeof(w->w_user)];

		strlcpy(user, w->w_user, sizeof(user));
		/* Relayed, then freed (a running one's is no exit: kept). */
		node_worker_act(n, w, nw_exit_acked(&w->w_nw, now_mono()),
		    "its exit was acknowledged");
		if (a.oa_offset == PROTO_EXIT_ACK_MORE)
			node_next_task(n, s, job, &jobmgr, user, cpus,
			    mem_mb);
		return;
	}
	/* The job manager says where it is: it may be ahead of us. */
	if (a.oa_offset > w->w_out[a.oa_stream].rs_acked) {
		w->w_out[a.oa_stream].rs_acked = a.oa_offset;
		node_relay(n, w);
	}
}
