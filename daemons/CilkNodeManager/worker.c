/* CilkNodeManager: switching jobs, starting and stopping workers. */
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

static void	fetch(struct node *);
static int	job_draining(const struct node *, uint32_t);

void
node_set_state(struct node *n, enum proto_node_state s)
{
	if (n->n_state == s)
		return;
	log_debug("state %s -> %s", proto_state_name(n->n_state),
	    proto_state_name(s));
	n->n_state = s;
	node_register_now(n);
}

/*
 * A job that could not start here is not taken again for a while, or
 * the broker and we would spin assigning and failing it.
 */
static void
forget_assignment(struct node *n)
{
	n->n_failed_job = n->n_want_job;
	n->n_failed_at = now_mono();
	n->n_want_job = 0;
	n->n_fetch_tries = 0;
	if (n->n_current == NULL)
		node_set_state(n, n->n_owner_away ? PROTO_NS_IDLE :
		    PROTO_NS_BUSY);
}

static void
on_fetch_timer(struct evloop *loop, void *arg)
{
	struct node *n = arg;

	(void)loop;
	if (n->n_want_job == 0 || n->n_current != NULL ||
	    n->n_state != PROTO_NS_SWITCHING)
		return;
	if (n->n_fetch_tries >= FETCH_TRIES) {
		log_warnx("job %u: its job manager did not answer; giving up",
		    n->n_want_job);
		forget_assignment(n);
		return;
	}
	fetch(n);
}

/* Asks the job manager itself: never trust anyone else for a job. */
static void
fetch(struct node *n)
{
	struct proto_desc_req r;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.dr_job = n->n_want_job;
	strlcpy(r.dr_node, n->n_name, sizeof(r.dr_node));
	n->n_fetch_tries++;
	if ((len = proto_desc_req_enc(&r, n->n_buf, sizeof(n->n_buf))) > 0 &&
	    msg_ep_send(n->n_dc.dc_ep, &n->n_want_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_DESC_REQ, n->n_buf, len) == -1)
		log_debug("%s: send failed", __func__);
	evloop_timer_add(n->n_dc.dc_loop, FETCH_WAIT, on_fetch_timer, n);
}

static void
start_switch(struct node *n)
{
	n->n_fetch_tries = 0;
	node_set_state(n, PROTO_NS_SWITCHING);
	fetch(n);
}

void
node_on_assign(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_assign a;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker) ||
	    proto_assign_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	if (!n->n_owner_away) {
		node_register_now(n);	/* it has us wrong: correct it */
		return;
	}
	if ((n->n_current != NULL && n->n_current->w_job == a.as_job) ||
	    n->n_want_job == a.as_job)
		return;
	if ((a.as_job == n->n_failed_job &&
	    now_mono() - n->n_failed_at < FAILED_PAUSE) ||
	    job_draining(n, a.as_job))
		return;
	/* Fail closed: only root may start processes as someone else. */
	if (!n->n_root && strcmp(a.as_user, n->n_self) != 0) {
		if (n->n_refused++ % 100 == 0)
			log_warnx("refusing job %u of user %s: this node "
			    "manager runs as %s, not root", a.as_job,
			    a.as_user, n->n_self);
		return;
	}
	log_info("assigned job %u of %s", a.as_job, a.as_user);
	node_take_job(n, a.as_job, &a.as_jobmgr, a.as_user,
	    "the broker assigned another job");
}

/* Switches to a job: stop what runs (if anything), then fetch it. */
void
node_take_job(struct node *n, uint32_t job, const struct msg_addr *jobmgr,
    const char *user, const char *why)
{
	n->n_want_job = job;
	n->n_want_jobmgr = *jobmgr;
	strlcpy(n->n_want_user, user, sizeof(n->n_want_user));
	if (n->n_current != NULL)
		node_stop_current(n, why);
	else
		start_switch(n);
}

/*
 * 1 while a worker of job has exited here but its job manager has not
 * yet heard so: taking the job again now would run it twice.
 */
static int
job_draining(const struct node *n, uint32_t job)
{
	const struct worker *w;

	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (w->w_job == job && w->w_state == WORKER_EXITED &&
		    !w->w_exit_acked)
			return 1;
	return 0;
}

/* 1 if this node may run a job of user (and has not just failed it). */
int
node_may_take(struct node *n, uint32_t job, const char *user)
{
	if (!n->n_root && strcmp(user, n->n_self) != 0)
		return 0;
	if (job_draining(n, job))
		return 0;
	return !(job == n->n_failed_job &&
	    now_mono() - n->n_failed_at < FAILED_PAUSE);
}

/* Keeps the signed description: the job's backup on this node. */
static void
backup(struct node *n, uint32_t job, const uint8_t *p, size_t len)
{
	char dir[PATH_MAX + 8], path[PATH_MAX + 32], tmp[PATH_MAX + 40];
	int fd;

	snprintf(dir, sizeof(dir), "%s/jobs", n->n_state_dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		goto fail;
	snprintf(path, sizeof(path), "%s/%u.desc", dir, job);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1)
		goto fail;
	if (write(fd, p, len) != (ssize_t)len || fsync(fd) == -1) {
		close(fd);
		goto fail;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1)
		goto fail;
	return;
 fail:
	log_warn("%s: job %u", __func__, job);
}

/* Our own record of a worker, for re-adoption after a restart. */
static void
record(struct node *n, const struct worker *w)
{
	char path[PATH_MAX + 64], text[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/nm", n->n_state_dir);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), "%s/nm/%s", n->n_state_dir, w->w_id);
	msg_addr_text(&w->w_jobmgr, text, sizeof(text));
	if ((f = fopen(path, "w")) == NULL) {
		log_warn("%s: %s", __func__, path);
		return;
	}
	fprintf(f, "%s\n", text);
	if (fclose(f) == EOF)
		log_warn("%s: %s", __func__, path);
}

static int
spawn(struct node *n, const struct proto_desc *d, struct worker *w)
{
	struct lpad_spec sp;
	struct lpad_paths pp;
	char why[512];
	uint16_t i;
	int rc = -1;

	lpad_spec_init(&sp);
	strlcpy(sp.ls_worker, w->w_id, sizeof(sp.ls_worker));
	sp.ls_job = d->de_job;
	sp.ls_task = d->de_task;
	strlcpy(sp.ls_node, n->n_name, sizeof(sp.ls_node));
	strlcpy(sp.ls_user, d->de_user, sizeof(sp.ls_user));
	strlcpy(sp.ls_cwd, d->de_cwd, sizeof(sp.ls_cwd));
	/* The owner comes first: nice 19, and SCHED_IDLE unless told not. */
	sp.ls_nice = 19;
	sp.ls_sched = strcmp(conf_get(n->n_dc.dc_conf, "worker_sched_idle"),
	    "no") == 0 ? LPAD_SCHED_NICE : LPAD_SCHED_IDLE;
	sp.ls_allow_root = strcmp(conf_get(n->n_dc.dc_conf,
	    "allow_root_jobs"), "yes") == 0;
	for (i = 0; i < d->de_argc; i++)
		if (lpad_spec_add_arg(&sp, d->de_argv[i]) == -1)
			goto bad_entry;
	for (i = 0; i < d->de_envc; i++)
		if (lpad_spec_add_env(&sp, d->de_env[i]) == -1)
			goto bad_entry;
	memset(&pp, 0, sizeof(pp));
	pp.lpp_run_dir = n->n_run_dir;
	pp.lpp_state_dir = n->n_state_dir;
	pp.lpp_conf = n->n_dc.dc_args.da_cc.cc_conf_path;
	pp.lpp_linger = -1;
	pp.lpp_verbose = n->n_dc.dc_args.da_cc.cc_verbose;
	if (lpad_spawn(&sp, &pp, n->n_lpad_bin, &w->w_lpad, why,
	    sizeof(why)) == -1) {
		log_warnx("job %u task %u: the launch pad failed: %s",
		    d->de_job, d->de_task, why);
		goto out;
	}
	rc = 0;
	goto out;
 bad_entry:
	log_warn("job %u task %u: argv or environment entry %u refused",
	    d->de_job, d->de_task, i);
 out:
	lpad_spec_clear(&sp);
	return rc;
}

void
node_on_desc(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_desc d;
	struct worker *w;
	char why[256];

	(void)ep;
	if (n->n_want_job == 0 || n->n_current != NULL ||
	    !msg_addr_eq(&in->mi_from, &n->n_want_jobmgr) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, n->n_want_user, NULL))
		return;
	if (proto_desc_open(&d, n->n_dc.dc_keys, now_mono(), in->mi_data,
	    in->mi_len, why, sizeof(why)) == -1)
		goto refuse;
	if (d.de_job != n->n_want_job) {
		snprintf(why, sizeof(why), "for job %u, not %u", d.de_job,
		    n->n_want_job);
		goto refuse_free;
	}
	if (strcmp(d.de_user, n->n_want_user) != 0) {
		snprintf(why, sizeof(why), "signed by %s, not %s", d.de_user,
		    n->n_want_user);
		goto refuse_free;
	}
	backup(n, d.de_job, in->mi_data, in->mi_len);
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		proto_desc_free(&d);
		forget_assignment(n);
		return;
	}
	snprintf(w->w_id, sizeof(w->w_id), "j%u-t%u-%llx", d.de_job,
	    d.de_task, (unsigned long long)(n->n_boot & 0xffffff));
	w->w_job = d.de_job;
	w->w_task = d.de_task;
	strlcpy(w->w_user, d.de_user, sizeof(w->w_user));
	w->w_jobmgr = n->n_want_jobmgr;
	if (spawn(n, &d, w) == -1) {
		free(w);
		proto_desc_free(&d);
		forget_assignment(n);
		return;
	}
	proto_desc_free(&d);
	record(n, w);
	w->w_state = WORKER_RUNNING;
	TAILQ_INSERT_TAIL(&n->n_workers, w, w_entry);
	n->n_current = w;
	n->n_want_job = 0;
	n->n_started++;
	/* No pairing until the broker has counted us in the new job. */
	n->n_pair_block_until = now_mono() + 3 * n->n_quantum;
	n->n_jobmgr_seen = w->w_seen = now_mono();
	log_info("job %u task %u: worker %s started (launch pad %d)",
	    w->w_job, w->w_task, w->w_id, (int)w->w_lpad);
	node_set_state(n, PROTO_NS_RUNNING);
	return;
 refuse_free:
	proto_desc_free(&d);
 refuse:
	n->n_refused++;
	log_warnx("job %u: description refused: %s (%llu refused so far)",
	    n->n_want_job, why, (unsigned long long)n->n_refused);
	forget_assignment(n);
}

void
node_stop_current(struct node *n, const char *why)
{
	struct worker *w = n->n_current;
	int fd;

	if (w == NULL || w->w_state != WORKER_RUNNING)
		return;
	log_info("job %u: stopping worker %s: %s", w->w_job, w->w_id, why);
	if ((fd = lpad_connect(n->n_run_dir, w->w_id)) == -1 ||
	    lpad_stop(fd, n->n_grace) == -1)
		log_warn("%s: launch pad of %s", __func__, w->w_id);
	if (fd != -1)
		close(fd);
	w->w_state = WORKER_STOPPING;
	w->w_stop_at = now_mono();
	node_set_state(n, PROTO_NS_STOPPING);
}

/* A worker is gone: the node is free for the next job, or its owner. */
static void
worker_exited(struct node *n, struct worker *w, const struct lpad_status *st)
{
	w->w_status = st->st_how == LPAD_HOW_SIGNAL ? -(int32_t)st->st_code :
	    (int32_t)st->st_code;
	w->w_state = WORKER_EXITED;
	log_info("job %u: worker %s %s %d", w->w_job, w->w_id,
	    w->w_status < 0 ? "killed by signal" : "exited",
	    w->w_status < 0 ? -w->w_status : w->w_status);
	if (n->n_current != w)
		return;
	n->n_current = NULL;
	if (n->n_want_job != 0 && n->n_owner_away)
		start_switch(n);
	else
		node_set_state(n, n->n_owner_away ? PROTO_NS_IDLE :
		    PROTO_NS_BUSY);
}

static void
on_jobmgr_check(struct node *n)
{
	struct worker *w = n->n_current;
	double now = now_mono();
	uint8_t ping[MSG_PING_FIXED];
	size_t len;

	if (w == NULL || w->w_state != WORKER_RUNNING)
		return;
	if (now - n->n_jobmgr_seen > 3 * n->n_interval) {
		node_stop_current(n, "its job manager is gone");
		return;
	}
	len = msg_ping_build(ping, sizeof(ping), 0, now_real_ns());
	(void)msg_ep_send(n->n_dc.dc_ep, &w->w_jobmgr, MSG_SCHEME_USER,
	    MSG_H_PING, ping, len);
}

void
node_on_pong(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct worker *w;

	(void)ep;
	if (n->n_current != NULL &&
	    msg_addr_eq(&in->mi_from, &n->n_current->w_jobmgr))
		n->n_jobmgr_seen = now_mono();
	TAILQ_FOREACH(w, &n->n_workers, w_entry)
		if (msg_addr_eq(&in->mi_from, &w->w_jobmgr))
			w->w_seen = now_mono();
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct node *n = arg;
	struct worker *w, *next;
	struct lpad_status st;

	TAILQ_FOREACH_SAFE(w, &n->n_workers, w_entry, next) {
		if (w->w_state != WORKER_EXITED) {
			memset(&st, 0, sizeof(st));
			if (lpad_read_exit(n->n_state_dir, w->w_id, &st) == 0)
				worker_exited(n, w, &st);
		}
		node_relay(n, w);	/* may free w */
	}
	if (now_mono() - n->n_checked_at >= n->n_interval / 2) {
		n->n_checked_at = now_mono();
		on_jobmgr_check(n);
	}
	evloop_timer_add(loop, 0.2, on_tick, n);
}

void
node_workers_start(struct node *n)
{
	evloop_timer_add(n->n_dc.dc_loop, 0.2, on_tick, n);
}

/* After a restart: every launch pad still there is ours again. */
static int
adopt_one(const char *worker, void *arg)
{
	struct node *n = arg;
	struct lpad_status st;
	struct worker *w;
	char path[PATH_MAX + 64], text[80];
	FILE *f;
	int fd;

	if (worker[0] == 'r')	/* a restarted root's (roots.c) */
		return 0;
	if ((fd = lpad_connect(n->n_run_dir, worker)) == -1)
		return 0;
	if (lpad_status(fd, &st) == -1) {
		close(fd);
		return 0;
	}
	close(fd);
	if ((w = calloc(1, sizeof(*w))) == NULL)
		return 0;
	strlcpy(w->w_id, worker, sizeof(w->w_id));
	w->w_job = st.st_job;
	w->w_task = st.st_task;
	strlcpy(w->w_user, st.st_user, sizeof(w->w_user));
	w->w_lpad = (pid_t)st.st_lpad_pid;
	snprintf(path, sizeof(path), "%s/nm/%s", n->n_state_dir, worker);
	if ((f = fopen(path, "r")) == NULL ||
	    fgets(text, sizeof(text), f) == NULL ||
	    (text[strcspn(text, "\n")] = '\0',
	    msg_addr_parse(&w->w_jobmgr, text, 0)) == -1) {
		log_warnx("adopt %s: no record of its job manager", worker);
		if (f != NULL)
			fclose(f);
		free(w);
		return 0;
	}
	fclose(f);
	w->w_seen = now_mono();
	TAILQ_INSERT_TAIL(&n->n_workers, w, w_entry);
	if (st.st_state == LPAD_STATE_RUNNING && n->n_current == NULL) {
		w->w_state = WORKER_RUNNING;
		n->n_current = w;
		n->n_state = PROTO_NS_RUNNING;
		n->n_jobmgr_seen = now_mono();
	} else if (st.st_state == LPAD_STATE_RUNNING) {
		/* One worker a node: any other is retired. */
		w->w_state = WORKER_STOPPING;
		if ((fd = lpad_connect(n->n_run_dir, worker)) != -1) {
			if (lpad_stop(fd, n->n_grace) == -1)
				log_warn("%s: stop %s", __func__, worker);
			close(fd);
		}
	} else
		worker_exited(n, w, &st);
	log_info("adopted worker %s of job %u (%s)", worker, w->w_job,
	    st.st_state == LPAD_STATE_RUNNING ? "running" : "exited");
	return 0;
}

void
node_adopt(struct node *n)
{
	if (lpad_list(n->n_run_dir, adopt_one, n) == -1 && errno != ENOENT)
		log_warn("%s: %s", __func__, n->n_run_dir);
}
