/* CilkJobManager: records for the broker's history. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jmacct.h"
#include "log.h"
#include "mono.h"
#include "proto_acct.h"

struct jmrec {
	struct proto_acct	 r_m;
	double			 r_sent;	/* now_mono(), 0: never */
};

struct jmacct {
	struct jmrec		*a_q;		/* JMACCT_QUEUE_MAX */
	uint32_t		 a_n;
	uint64_t		*a_start;	/* per task: its try's start */
	uint64_t		 a_first_ms;	/* the first task's start */
	int			 a_job_sent;	/* the job's record queued */
	int			 a_off;		/* the broker refused them */
	int			 a_draining;
	struct evtimer		*a_timer;
};

static struct log_rate full_log = LOG_RATE_DEFAULT;

int
jmacct_init(struct jobmgr *j)
{
	struct jmacct *a;

	if ((a = calloc(1, sizeof(*a))) == NULL ||
	    (a->a_q = calloc(JMACCT_QUEUE_MAX, sizeof(*a->a_q))) == NULL ||
	    (a->a_start = calloc(TASKS_MAX, sizeof(*a->a_start))) == NULL) {
		if (a != NULL)
			free(a->a_q);
		free(a);
		return -1;
	}
	j->j_acct = a;
	return 0;
}

void
jmacct_free(struct jobmgr *j)
{
	if (j->j_acct == NULL)
		return;
	free(j->j_acct->a_q);
	free(j->j_acct->a_start);
	free(j->j_acct);
	j->j_acct = NULL;
}

static void
send_rec(struct jobmgr *j, struct jmrec *r)
{
	size_t len;

	r->r_m.ac_job.aj_job = j->j_job;
	r->r_m.ac_task.at_job = j->j_job;
	r->r_m.ac_boot = j->j_boot;
	if ((len = proto_acct_enc(&r->r_m, j->j_buf, sizeof(j->j_buf))) == 0) {
		log_warnx("%s: a record does not encode", __func__);
		return;
	}
	if (msg_ep_send(j->j_dc.dc_ep, &j->j_broker, MSG_SCHEME_USER,
	    PROTO_H_ACCT, j->j_buf, len) == -1)
		log_debug("%s: %s", __func__, strerror(errno));
	r->r_sent = now_mono();
}

static void
on_resend(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;
	struct jmacct *a = j->j_acct;
	double now = now_mono();
	uint32_t i, sent = 0;

	a->a_timer = NULL;
	if (a->a_n == 0)
		return;
	/* A burst at most, so a large job does not flood the broker. */
	for (i = 0; i < a->a_n && sent < 64; i++)
		if (now - a->a_q[i].r_sent >= JMACCT_RESEND) {
			send_rec(j, &a->a_q[i]);
			sent++;
		}
	a->a_timer = evloop_timer_add(loop, JMACCT_RESEND / 2, on_resend, j);
}

static void
queue(struct jobmgr *j, const struct proto_acct *m)
{
	struct jmacct *a = j->j_acct;
	struct jmrec *r;

	if (a == NULL || a->a_off || j->j_job == 0)
		return;
	if (a->a_n == JMACCT_QUEUE_MAX) {
		if (log_rate(&full_log, now_mono(), "history records lost"))
			log_warnx("%s: %u records wait for the broker; one "
			    "is not kept in the history", __func__, a->a_n);
		return;
	}
	r = &a->a_q[a->a_n++];
	memset(r, 0, sizeof(*r));
	r->r_m = *m;
	send_rec(j, r);
	if (a->a_timer == NULL)
		a->a_timer = evloop_timer_add(j->j_dc.dc_loop,
		    JMACCT_RESEND / 2, on_resend, j);
}

void
jmacct_task_start(struct jobmgr *j, uint32_t task)
{
	struct jmacct *a = j->j_acct;
	uint64_t now = now_real_ms();

	if (a == NULL || task >= TASKS_MAX)
		return;
	a->a_start[task] = now;
	if (a->a_first_ms == 0)
		a->a_first_ms = now;
}

void
jmacct_task_end(struct jobmgr *j, uint32_t task, const char *node,
    int32_t status, enum tt_end how, uint64_t cpu_ms, uint64_t maxrss_kb)
{
	const struct tt_task *tk = &j->j_tt.tt_t[task];
	struct proto_acct m;

	if (j->j_acct == NULL || task >= TASKS_MAX)
		return;
	memset(&m, 0, sizeof(m));
	m.ac_kind = PROTO_AK_TASK;
	m.ac_task.at_task = task;
	strlcpy(m.ac_task.at_node, node, sizeof(m.ac_task.at_node));
	m.ac_task.at_tries = tk->tk_attempts > 0 ? tk->tk_attempts : 1;
	m.ac_task.at_state = how == TT_END_RETRY ? ACCT_ST_RETRIED :
	    how == TT_END_GIVEN_UP || status != 0 ? ACCT_ST_FAILED :
	    ACCT_ST_COMPLETED;
	m.ac_task.at_exit = status;
	m.ac_task.at_start_ms = j->j_acct->a_start[task];
	m.ac_task.at_end_ms = now_real_ms();
	/*
	 * The node's word, as trusted as its exit status, but for display
	 * only: held to what a task could use.
	 */
	m.ac_task.at_cpu_ms = proto_acct_usage(cpu_ms, PROTO_USAGE_CPU_MS_MAX);
	m.ac_task.at_maxrss_kb = proto_acct_usage(maxrss_kb,
	    PROTO_USAGE_RSS_KB_MAX);
	queue(j, &m);
}

static uint8_t
job_state(int status)
{
	switch (status) {
	case 0:
		return ACCT_ST_COMPLETED;
	case 124:
		return ACCT_ST_TIMEOUT;
	case 130:
		return ACCT_ST_INTERRUPTED;
	case JOBMGR_EXIT_KILLED:
		return ACCT_ST_KILLED;
	default:
		return ACCT_ST_FAILED;
	}
}

void
jmacct_job_end(struct jobmgr *j, int status)
{
	struct jmacct *a = j->j_acct;
	struct proto_acct m;

	if (a == NULL || a->a_job_sent || j->j_job == 0)
		return;
	a->a_job_sent = 1;
	memset(&m, 0, sizeof(m));
	m.ac_kind = PROTO_AK_JOB;
	m.ac_job.aj_state = job_state(status);
	m.ac_job.aj_has_exit = 1;
	m.ac_job.aj_exit = status;
	m.ac_job.aj_tasks = j->j_tt.tt_n;
	m.ac_job.aj_failed = j->j_want_tasks > 0 ? j->j_tt.tt_given_up :
	    j->j_tt.tt_failures;
	m.ac_job.aj_start_ms = a->a_first_ms;
	m.ac_job.aj_end_ms = now_real_ms();
	queue(j, &m);
}

static void
on_drain_deadline(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;

	j->j_acct->a_draining = 0;
	evloop_break(loop);
}

void
jmacct_drain(struct jobmgr *j)
{
	struct jmacct *a = j->j_acct;
	double until = now_mono() + JMACCT_DRAIN_MAX;

	if (a == NULL || j->j_job == 0)
		return;
	jmacct_job_end(j, j->j_exit);
	if (a->a_n == 0)
		return;
	a->a_draining = 1;
	evloop_timer_add(j->j_dc.dc_loop, JMACCT_DRAIN_MAX, on_drain_deadline,
	    j);
	/* Other timers of the ending may break the loop: go on. */
	while (a->a_draining && a->a_n > 0 && now_mono() < until)
		if (dctx_run(&j->j_dc) == -1)
			break;
	if (a->a_n > 0)
		log_warnx("job %u: %u records for the history were not "
		    "acknowledged by the broker", j->j_job, a->a_n);
}

void
jmacct_on_error(struct jobmgr *j, const struct proto_error *e)
{
	struct jmacct *a = j->j_acct;

	if (a == NULL)
		return;
	/* All records of this job are refused alike: stop sending. */
	if (!a->a_off)
		log_warnx("the broker refused the job's history records: %s",
		    e->er_reason);
	a->a_off = 1;
	a->a_n = 0;
	if (a->a_draining) {
		a->a_draining = 0;
		evloop_break(j->j_dc.dc_loop);
	}
}

void
jmacct_acked(struct jobmgr *j, const struct proto_acct_ack *k)
{
	struct jmacct *a = j->j_acct;
	struct jmrec *r;
	uint32_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->a_n; i++) {
		r = &a->a_q[i];
		if (r->r_m.ac_kind != k->aa_kind || k->aa_job != j->j_job ||
		    (k->aa_kind == PROTO_AK_TASK &&
		    (r->r_m.ac_task.at_task != k->aa_task ||
		    r->r_m.ac_task.at_tries != k->aa_tries)))
			continue;
		a->a_q[i] = a->a_q[--a->a_n];
		break;
	}
	if (a->a_n == 0 && a->a_draining) {
		a->a_draining = 0;
		evloop_break(j->j_dc.dc_loop);
	}
}

