/* CilkJobManager: registration, descriptions, output, the end. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jmacct.h"
#include "jobmgr.h"
#include "proto_refuse.h"
#include "log.h"
#include "mono.h"
#include "proto_kill.h"

static void	on_register_tick(struct evloop *, void *);
static void	on_quiet_check(struct evloop *, void *);

void
jobmgr_register(struct jobmgr *j)
{
	struct proto_job_reg r;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.jr_job = j->j_job;
	r.jr_boot = j->j_boot;
	/* With --tasks, nodes beyond the tasks left are of no use. */
	r.jr_max = j->j_max;
	if (j->j_want_tasks > 0) {
		uint32_t left = tt_left(&j->j_tt);

		if (left < 1)
			left = 1;
		if (r.jr_max == 0 || left < r.jr_max)
			r.jr_max = left;
	}
	r.jr_pri = j->j_pri;
	r.jr_cpus = j->j_cpus;
	r.jr_mem_mb = j->j_mem_mb;
	r.jr_start_ms = j->j_start_ms;
	strlcpy(r.jr_command, j->j_command, sizeof(r.jr_command));
	/* The broker acts only where it sent its cookie (on_cookie). */
	r.jr_has_cookie = (uint8_t)j->j_has_bcookie;
	memcpy(r.jr_cookie, j->j_bcookie, sizeof(r.jr_cookie));
	if ((len = proto_job_reg_enc(&r, j->j_buf, sizeof(j->j_buf))) == 0 ||
	    msg_ep_send(j->j_dc.dc_ep, &j->j_broker, MSG_SCHEME_USER,
	    PROTO_H_JOB_REGISTER, j->j_buf, len) == -1)
		log_warn("register: send to the broker");
	else
		j->j_reg_sent = 1;
}

static void
on_register_tick(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;
	double next;

	if (j->j_ending)
		return;
	if (j->j_job == 0 && now_mono() - j->j_started > j->j_timeout) {
		char text[64];

		msg_addr_text(&j->j_broker, text, sizeof(text));
		/* Under -W the clearinghouse says it, once. */
		if (!j->j_watch)
			fprintf(stderr, "CilkJobManager: the broker at %s did not "
		    "answer within %g s (is it running? same cluster key "
		    "and your public key in its user_keys?)\n", text,
		    j->j_timeout);
		jobmgr_withdraw(j, CLI_EXIT_TIMEOUT);
		return;
	}
	jobmgr_register(j);
	/* Until the first answer, ask often; then once an interval. */
	next = j->j_job == 0 ? 0.25 : j->j_interval;
	evloop_timer_add(loop, next, on_register_tick, j);
}

static void
on_time_limit(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;

	(void)loop;
	jobmgr_end(j, 124, "time limit reached");
}

static void
on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_ack a;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &j->j_broker) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_ack_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	if (j->j_ending) {
		/* Withdrawing (job 0): the broker acknowledges job 0. */
		if (a.ak_id == j->j_job)
			evloop_break(j->j_dc.dc_loop);
		return;
	}
	if (a.ak_id == 0)	/* only a withdrawal's answer */
		return;
	if (j->j_job == 0) {
		log_info("job %u registered", a.ak_id);
		if (j->j_time_limit > 0)
			evloop_timer_add(j->j_dc.dc_loop, j->j_time_limit,
			    on_time_limit, j);
	}
	j->j_job = a.ak_id;
	j->j_desc.de_job = a.ak_id;
	j->j_bcookies = 0;
	if (j->j_detach)
		jobmgr_detached(j);
}

/*
 * The broker registers us only with the cookie it sent to our address
 * (a forged address cannot have it): register again with it at once.
 * A few at once after each ACK; the register tick carries on otherwise.
 */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_cookie c;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &j->j_broker) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1 ||
	    j->j_ending)
		return;
	memcpy(j->j_bcookie, c.co_cookie, sizeof(j->j_bcookie));
	j->j_has_bcookie = 1;
	if (j->j_bcookies++ < 3)
		jobmgr_register(j);
}

void
jobmgr_on_error(struct jobmgr *j, const struct proto_error *e)
{
	if (e->er_handler == PROTO_H_ACCT) {
		jmacct_on_error(j, e);
		return;
	}
	log_warnx("the broker refused us: %s", e->er_reason);
	if (j->j_ending)
		evloop_break(j->j_dc.dc_loop);
}

/*
 * The broker ended the job for CilkKill: the workers are being stopped
 * by their nodes and the job is gone from the registry, so there is
 * nothing to unregister; say so and exit.
 */
static void
on_ended(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_job_ended e;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &j->j_broker) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_job_ended_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    j->j_job == 0 || e.je_job != j->j_job || e.je_boot != j->j_boot)
		return;
	log_info("job %u was ended by CilkKill (user %s); %u done, %u "
	    "failed, %u stopped by their nodes", j->j_job, e.je_by,
	    j->j_tt.tt_done, j->j_tt.tt_failures, j->j_tt.tt_stopped);
	if (!j->j_ending)
		j->j_exit = JOBMGR_EXIT_KILLED;
	j->j_ending = 1;
	evloop_break(j->j_dc.dc_loop);
}

/*
 * A node manager asks what to run: a task from the table, the same one
 * if it asks again (the answer was lost), signed with its attempt.
 */
static void
on_desc_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_desc_req r;
	uint32_t task;
	size_t len;

	if (!msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_desc_req_dec(&r, in->mi_data, in->mi_len) == -1 ||
	    j->j_job == 0 || r.dr_job != j->j_job)
		return;
	if (j->j_ending) {
		/* Said, or the node waits out its retries for nothing. */
		proto_reply_error(ep, in, "the job is ending");
		return;
	}
	switch (tt_take_fetch(&j->j_tt, r.dr_node, r.dr_fetch, now_mono(),
	    &task)) {
	case TT_TAKE_RESTARTED:
		log_warning("task %u on %s: its node asks for it afresh (it "
		    "restarted): attempt %u was lost with it and counts as "
		    "stopped; attempt %u starts there", task, r.dr_node,
		    j->j_tt.tt_t[task].tk_attempts - 1,
		    j->j_tt.tt_t[task].tk_attempts);
		/* FALLTHROUGH */
	case TT_TAKE_NEW:
		jobmgr_out_begin(j, task, r.dr_node);
		jmacct_task_start(j, task);
		jobmgr_stage_restart(j, task);
		j->j_last_activity = now_mono();
		break;
	case TT_TAKE_AGAIN:
		break;
	case TT_TAKE_GONE:
		/* Said, so the node goes on to other jobs at once. */
		proto_reply_error(ep, in, "this node cannot run the job");
		return;
	case TT_TAKE_FULL:
		log_warnx("%s: out of task numbers", __func__);
		/* FALLTHROUGH */
	default:
		proto_reply_error(ep, in, "no task to run");
		return;
	}
	j->j_desc.de_task = task;
	/* Named, so a node of many processors knows which one it is for. */
	strlcpy(j->j_desc.de_node, r.dr_node, sizeof(j->j_desc.de_node));
	j->j_desc.de_issued_ms = now_real_ms();
	snprintf(j->j_attempt_env, sizeof(j->j_attempt_env),
	    "CILKNOW_ATTEMPT=%u", j->j_tt.tt_t[task].tk_attempts);
	j->j_desc.de_env[j->j_envc] = j->j_attempt_env;
	j->j_desc.de_envc = (uint16_t)(j->j_envc + 1);
	if ((len = proto_desc_seal(&j->j_desc, j->j_dc.dc_keys, j->j_buf,
	    sizeof(j->j_buf))) == 0) {
		log_warnx("%s: description too large", __func__);
		return;
	}
	log_debug("task %u attempt %u to node %s", task,
	    j->j_tt.tt_t[task].tk_attempts, r.dr_node);
	(void)msg_ep_reply(ep, in, PROTO_H_DESC, j->j_buf, len);
}

/*
 * Without --tasks, the job is over once every instance ran to its end
 * and no node has asked for more for a second (others may be on the
 * way); instances their nodes stopped do not count: they run again.
 */
static void
on_quiet_check(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;
	long failed = j->j_tt.tt_failures;

	(void)loop;
	/* Under -W only the clearinghouse ends the job. */
	if (j->j_ending || j->j_watch || j->j_want_tasks > 0 ||
	    tt_running(&j->j_tt) > 0 ||
	    j->j_tt.tt_done + j->j_tt.tt_failures == 0)
		return;
	if (now_mono() - j->j_last_activity < QUIET_END) {
		evloop_timer_add(j->j_dc.dc_loop, QUIET_END / 4,
		    on_quiet_check, j);
		return;
	}
	jobmgr_end(j, failed > 0 ? 1 : 0, failed > 0 ?
	    "every instance ended, some failed" : "every instance ended");
}

/* What may end the job after a task ended or was taken back. */
static void
tasks_changed(struct jobmgr *j)
{
	char list[128], why[256];

	if (j->j_want_tasks == 0) {
		on_quiet_check(j->j_dc.dc_loop, j);
		return;
	}
	if (!tt_over(&j->j_tt)) {
		jobmgr_register(j);	/* fewer nodes wanted now */
		return;
	}
	if (j->j_tt.tt_given_up == 0) {
		jobmgr_end(j, 0, "all tasks done");
		return;
	}
	snprintf(why, sizeof(why), "all tasks ended, %u given up after %ld "
	    "failures (task%s %s)", j->j_tt.tt_given_up, j->j_retries,
	    j->j_tt.tt_given_up > 1 ? "s" : "",
	    tt_given_up_list(&j->j_tt, list, sizeof(list)));
	jobmgr_end(j, 1, why);
}

/* The node could not start the task: reason is the node's words. */
static void
task_nostart(struct jobmgr *j, uint32_t task, const char *node,
    const uint8_t *reason, size_t len)
{
	char raw[PROTO_REASON_MAX], text[PROTO_REASON_MAX + 2 * PROTO_PATH_MAX];
	size_t i;

	/* Bytes from afar: printable only, and cut. */
	for (i = 0; i < len && i < sizeof(raw) - 1; i++)
		raw[i] = reason[i] >= 0x20 && reason[i] < 0x7f ?
		    (char)reason[i] : '?';
	raw[i] = '\0';
	tt_nostart_text(j->j_desc.de_cwd, node, raw, text, sizeof(text));
	log_warnx("task %u: %s; node %s given up", task, text, node);
	/* Nothing ever ran and nothing else is starting: it never will. */
	if (j->j_tt.tt_ran == 0 && tt_running(&j->j_tt) == 0)
		jobmgr_end(j, 1, text);
	else
		tasks_changed(j);
}

/*
 * The node could not start the task for a reason of its own (its user
 * unknown there, its spool full: PROTO_EXIT_NODE_FAULT): not the task's
 * failure nor the job's.  The whole node is given up for the job, the
 * task runs elsewhere, and the reason is said once per node (CilkRun
 * shows it).  Unlike task_nostart, it never ends the job: other nodes
 * may run it.
 */
static void
task_node_fault(struct jobmgr *j, uint32_t task, const char *node,
    const uint8_t *reason, size_t len)
{
	char why[PROTO_REASON_MAX], host[TT_NODE_MAX], line[PROTO_REASON_MAX +
	    TT_NODE_MAX + 64];

	nf_reason(reason, len, why, sizeof(why));
	nf_host(node, host, sizeof(host));
	tt_give_host_up(&j->j_tt, host);
	if (nf_first(&j->j_nf_said, node, why)) {
		nf_line(node, why, task, tt_running(&j->j_tt) > 0 ||
		    j->j_tt.tt_ran > 0, line, sizeof(line));
		log_warnx("%s", line);
	} else
		log_debug("task %u: node %s: %s (said before)", task, node,
		    why);
	tasks_changed(j);
}

static void
task_exit(struct jobmgr *j, uint32_t task, const char *node,
    const struct proto_output *o)
{
	int32_t status = o->ou_status;
	const struct tt_task *tk = &j->j_tt.tt_t[task];
	char how[48];
	enum tt_end end;

	j->j_last_activity = now_mono();
	jobmgr_stage_task_end(j, task);
	if (status >= 0)
		snprintf(how, sizeof(how), "exited %d", status);
	else
		snprintf(how, sizeof(how), "killed by signal %d", -status);
	if ((end = tt_exit(&j->j_tt, task, node, status,
	    o->ou_len > 0)) == TT_END_STALE)
		return;
	/* Its partial lines out, its files shut (output.c). */
	j->j_tasks[task].t_end = now_mono();
	j->j_tasks[task].t_exited = end != TT_END_NOSTART;
	jobmgr_out_end(j, task, node);
	switch (end) {
	case TT_END_NOSTART:
		if (status == PROTO_EXIT_NODE_FAULT)
			task_node_fault(j, task, node, o->ou_data, o->ou_len);
		else
			task_nostart(j, task, node, o->ou_data, o->ou_len);
		return;
	case TT_END_STOPPED:
		log_info("task %u on %s stopped by its node%s", task, node,
		    j->j_want_tasks > 0 ? "; it runs again" : "");
		return;
	case TT_END_RETRY:
		log_info("task %u on %s %s (failure %u of %ld; it runs "
		    "again)", task, node, how, tk->tk_failures,
		    j->j_retries);
		break;
	case TT_END_GIVEN_UP:
		log_warnx("task %u on %s %s: given up after %u failures",
		    task, node, how, tk->tk_failures);
		break;
	default:
		log_info("task %u on %s %s", task, node, how);
		break;
	}
	jmacct_task_end(j, task, node, status, end, o->ou_cpu_ms,
	    o->ou_maxrss_kb);
	tasks_changed(j);
}

static void
on_output(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_output o;
	struct proto_output_ack a;
	struct task *t;
	uint8_t buf[64];
	size_t len;

	if (!msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_output_dec(&o, in->mi_data, in->mi_len) == -1 ||
	    o.ou_job != j->j_job || o.ou_task >= j->j_tt.tt_n)
		return;
	memset(&a, 0, sizeof(a));
	a.oa_job = o.ou_job;
	a.oa_task = o.ou_task;
	a.oa_stream = o.ou_stream;
	/*
	 * From a node the task was taken from (it was not heard of for
	 * long): acknowledged, so that node lets go, and not written.
	 */
	if (!tt_holds(&j->j_tt, o.ou_task, o.ou_node)) {
		a.oa_offset = o.ou_stream == PROTO_STREAM_EXIT ? 0 :
		    o.ou_offset + o.ou_len;
		goto ack;
	}
	t = &j->j_tasks[o.ou_task];
	tt_seen(&j->j_tt, o.ou_task, o.ou_node, now_mono());
	/* In order only: what is early is dropped and sent again. */
	if (o.ou_stream == PROTO_STREAM_EXIT) {
		if (t->t_off[o.ou_stream] == 0) {
			t->t_off[o.ou_stream] = 1;
			task_exit(j, o.ou_task, o.ou_node, &o);
		}
	} else if (o.ou_offset == t->t_off[o.ou_stream] &&
	    o.ou_stream == PROTO_STREAM_STAGE) {
		jobmgr_stage_output(j, o.ou_task, o.ou_data, o.ou_len);
		t->t_off[o.ou_stream] += o.ou_len;
	} else if (o.ou_offset == t->t_off[o.ou_stream]) {
		/* A chunk of no bytes is a node saying the worker lives. */
		if (o.ou_len > 0)
			jobmgr_out_data(j, o.ou_task, o.ou_node, o.ou_stream,
			    o.ou_data, o.ou_len);
		t->t_off[o.ou_stream] += o.ou_len;
	}
	a.oa_offset = t->t_off[o.ou_stream];
	/*
	 * The exit's acknowledgement says whether a task waits: the node
	 * asks for it at once (CilkNodeManager(8)), rather than when the
	 * broker next thinks of it.
	 */
	if (o.ou_stream == PROTO_STREAM_EXIT && !j->j_ending &&
	    tt_waiting(&j->j_tt) > 0)
		a.oa_offset = PROTO_EXIT_ACK_MORE;
 ack:
	if ((len = proto_output_ack_enc(&a, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_OUTPUT_ACK, buf, len);
}

/*
 * A processor withdrew the task its fetch was handed before it started
 * it (its owner came back, say): no fault of anyone's, and no reason to
 * wait for the reclaim (3 register intervals and 30 s) to run it
 * elsewhere.
 */
static void
task_withdrawn(struct jobmgr *j, const struct proto_desc_refused *m)
{
	int64_t task;

	if (j->j_ending ||
	    (task = tt_withdraw(&j->j_tt, m->rf_node, m->rf_fetch)) < 0)
		return;		/* not its task (any more), or never handed */
	j->j_last_activity = now_mono();
	log_info("task %u on %s %s; %s", (unsigned)task, m->rf_node,
	    m->rf_reason, j->j_want_tasks > 0 ? "it runs again" :
	    "counted as lost");
	j->j_tasks[task].t_end = now_mono();
	jobmgr_out_end(j, (uint32_t)task, m->rf_node);
	tasks_changed(j);
}

/*
 * A processor that fetched a task refused it for its node's own reason
 * (DESC_REFUSED, proto_refuse.h): as if it had reported an exit with
 * status PROTO_EXIT_NODE_FAULT, at once rather than at the reclaim.
 */
static void
on_desc_refused(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_desc_refused m;
	struct proto_output o;
	const struct tt_task *tk;
	uint32_t i;

	(void)ep;
	if (!msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_desc_refused_dec(&m, in->mi_data, in->mi_len) == -1 ||
	    m.rf_job != j->j_job)
		return;
	if (m.rf_kind == PROTO_REFUSED_WITHDRAWN) {
		task_withdrawn(j, &m);
		return;
	}
	/* The task handed to that processor, by that fetch. */
	for (i = 0; i < j->j_tt.tt_n; i++) {
		tk = &j->j_tt.tt_t[i];
		if (tt_holds(&j->j_tt, i, m.rf_node) &&
		    tk->tk_state == TT_RUNNING && (m.rf_fetch == 0 ||
		    tk->tk_fetch == 0 || tk->tk_fetch == m.rf_fetch))
			break;
	}
	if (i == j->j_tt.tt_n)
		return;		/* not its task (any more) */
	memset(&o, 0, sizeof(o));
	o.ou_job = m.rf_job;
	o.ou_task = i;
	o.ou_stream = PROTO_STREAM_EXIT;
	o.ou_status = PROTO_EXIT_NODE_FAULT;
	o.ou_data = (const uint8_t *)m.rf_reason;
	o.ou_len = (uint16_t)strlen(m.rf_reason);
	strlcpy(o.ou_node, m.rf_node, sizeof(o.ou_node));
	task_exit(j, i, m.rf_node, &o);
}

static void
on_lost(uint32_t task, const struct tt_task *tk, void *arg)
{
	struct jobmgr *j = arg;

	log_warning("task %u on %s: no word of it from its node; %s", task,
	    tk->tk_node, j->j_want_tasks > 0 ? "it runs again" :
	    "counted as lost");
	j->j_tasks[task].t_end = now_mono();
	jobmgr_out_end(j, task, tk->tk_node);
}

/*
 * Node managers say every half interval that their workers live; a task
 * not heard of for three intervals (and a launch's time) never started,
 * or its node is gone: it is taken back, or it would run forever.
 */
static void
on_reclaim_tick(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;

	if (j->j_ending)
		return;
	if (tt_reclaim(&j->j_tt, now_mono(), 3 * j->j_interval + RECLAIM_SLACK,
	    on_lost, j) > 0) {
		j->j_last_activity = now_mono();
		tasks_changed(j);
	}
	evloop_timer_add(loop, 1.0, on_reclaim_tick, j);
}

static void
on_unregister_tick(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_job_unreg u;
	size_t len;

	/*
	 * Datagrams get lost: say it a few times, then go anyway.  Job 0
	 * withdraws whatever the broker registered from our address.
	 */
	if (j->j_job == 0 && !j->j_reg_sent) {
		evloop_break(loop);
		return;
	}
	if (j->j_unreg_tries++ >= 5) {
		log_info("the broker did not answer the job's unregistration "
		    "(%d tries); ending all the same", j->j_unreg_tries - 1);
		evloop_break(loop);
		return;
	}
	u.ju_job = j->j_job;
	if ((len = proto_job_unreg_enc(&u, j->j_buf, sizeof(j->j_buf))) > 0)
		(void)msg_ep_send(j->j_dc.dc_ep, &j->j_broker,
		    MSG_SCHEME_USER, PROTO_H_JOB_UNREGISTER, j->j_buf, len);
	evloop_timer_add(loop, 0.2, on_unregister_tick, j);
}

void
jobmgr_end(struct jobmgr *j, int status, const char *why)
{
	if (j->j_ending)
		return;
	if (status == 0 && jobmgr_stage_failures(j) > 0) {
		status = 1;	/* the results are not all here */
		why = "all tasks done, some stage-out files not copied back";
	}
	log_info("job %u ends: %s (%u done, %u failed, %u stopped by "
	    "their nodes)", j->j_job, why, j->j_tt.tt_done,
	    j->j_tt.tt_failures, j->j_tt.tt_stopped);
	/* Output that did not reach its file is a failure (output.c). */
	if (j->j_out_errors > 0 && status == 0) {
		log_warnx("job %u: %u output file%s could not be written "
		    "(above)", j->j_job, j->j_out_errors,
		    j->j_out_errors == 1 ? "" : "s");
		status = 1;
	}
	j->j_ending = 1;
	j->j_exit = status;
	jmacct_job_end(j, status);	/* before the unregistration */
	on_unregister_tick(j->j_dc.dc_loop, j);
}

void
jobmgr_withdraw(struct jobmgr *j, int status)
{
	if (j->j_ending)
		return;
	j->j_ending = 1;
	j->j_exit = status;
	on_unregister_tick(j->j_dc.dc_loop, j);
}

static const struct msg_handler handlers[PROTO_H_MAX] = {
	[PROTO_H_JOB_ACK] = { "job-ack", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_ack },
	[PROTO_H_COOKIE] = { "cookie", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_cookie },
	[PROTO_H_JOB_ENDED] = { "job-ended", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_ended },
	[PROTO_H_DESC_REQ] = { "desc-req", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_desc_req },
	[PROTO_H_OUTPUT] = { "output", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_output },
	[PROTO_H_TASKS_REQ] = { "tasks-req", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    jobmgr_on_tasks_req },
	[PROTO_H_STAGE_REQ] = { "stage-req",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), jobmgr_on_stage_req },
	[PROTO_H_DESC_REFUSED] = { "desc-refused",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_desc_refused },
};

const struct msg_handler *
jobmgr_table(void)
{
	return handlers;
}

/*
 * -W: lines from the clearinghouse.  "max N": the job can use about N
 * workers (0: no limit); the registrations carry it, within -m.
 */
static void
stdin_line(struct jobmgr *j, const char *line)
{
	const char *errstr;
	uint32_t max;

	if (strncmp(line, "max ", 4) != 0) {
		log_debug("%s: '%s' ignored", __func__, line);
		return;
	}
	max = (uint32_t)strtonum(line + 4, 0, 1000000, &errstr);
	if (errstr != NULL)
		return;
	if (j->j_user_max > 0 && (max == 0 || max > j->j_user_max))
		max = j->j_user_max;
	if (max == j->j_max)
		return;
	if (max > 0)
		log_info("job %u: useful workers about %u", j->j_job, max);
	else
		log_info("job %u: useful workers: no limit", j->j_job);
	j->j_max = max;
	if (j->j_job != 0 && !j->j_ending)
		jobmgr_register(j);
}

static void
stdin_lines(struct jobmgr *j, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (j->j_linelen < sizeof(j->j_line) - 1)
				j->j_line[j->j_linelen++] = p[i];
			continue;
		}
		j->j_line[j->j_linelen] = '\0';
		stdin_line(j, j->j_line);
		j->j_linelen = 0;
	}
}

/* -W: our stdin is a pipe from the clearinghouse; EOF is the end. */
static void
on_stdin(struct evloop *loop, int fd, short revents, void *arg)
{
	struct jobmgr *j = arg;
	char buf[64];
	ssize_t n;

	(void)revents;
	if ((n = read(fd, buf, sizeof(buf))) > 0) {
		stdin_lines(j, buf, (size_t)n);
		return;
	}
	(void)evloop_del_fd(loop, fd);
	if (j->j_job == 0) {		/* never registered: just go */
		jobmgr_withdraw(j, 0);
		return;
	}
	jobmgr_end(j, 0, "the clearinghouse ended");
}

void
jobmgr_start(struct jobmgr *j)
{
	if (j->j_watch && evloop_add_fd(j->j_dc.dc_loop, STDIN_FILENO,
	    POLLIN, on_stdin, j) == -1)
		log_warn("%s: stdin", __func__);
}

void
jobmgr_go(struct jobmgr *j)
{
	j->j_started = now_mono();	/* the broker's timeout from now */
	on_register_tick(j->j_dc.dc_loop, j);
	evloop_timer_add(j->j_dc.dc_loop, 1.0, on_reclaim_tick, j);
}
