/*
 * CilkJobManager's --after JOB: the job is held (not registered) while
 * the broker says JOB runs, starts once it says JOB ended successfully,
 * and ends with one line if JOB failed or is unknown.  The broker's
 * answers come as acknowledgements (PROTO_AK_AFTER) and its refusal as
 * an ERROR about AFTER_REQ: this file receives the broker's ERROR and
 * ACCT_ACK messages, keeps those about --after and hands the rest to
 * job.c and acct.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jmacct.h"
#include "jmafter.h"
#include "log.h"
#include "mono.h"
#include "proto_acct.h"

static void	after_ask(struct evloop *, void *);

static void
after_answer(struct jobmgr *j, uint8_t state)
{
	if (!j->j_held)
		return;
	j->j_after_answered = 1;
	switch (state) {
	case PROTO_AFTER_WAIT:
		return;
	case PROTO_AFTER_OK:
		log_info("job %u ended successfully: the job starts",
		    j->j_after);
		j->j_held = 0;
		jobmgr_go(j);
		return;
	case PROTO_AFTER_UNKNOWN:
		fprintf(stderr, "CilkJobManager: --after %u: no such job "
		    "(neither running nor in the history); not run\n",
		    j->j_after);
		break;
	default:
		fprintf(stderr, "CilkJobManager: --after %u: that job did "
		    "not end successfully (CilkHist -j %u); not run\n",
		    j->j_after, j->j_after);
		break;
	}
	j->j_held = 0;
	jobmgr_withdraw(j, CLI_EXIT_FAILURE);
}

static void
on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_acct_ack k;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &j->j_broker) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_acct_ack_dec(&k, in->mi_data, in->mi_len) == -1)
		return;
	if (k.aa_kind != PROTO_AK_AFTER) {
		jmacct_acked(j, &k);
		return;
	}
	if (k.aa_job == j->j_after)
		after_answer(j, k.aa_state);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_error e;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &j->j_broker) ||
	    proto_error_dec(&e, in->mi_data, in->mi_len) == -1)
		return;
	if (e.er_handler != PROTO_H_AFTER_REQ) {
		jobmgr_on_error(j, &e);
		return;
	}
	if (!j->j_held)
		return;
	fprintf(stderr, "CilkJobManager: --after %u: the broker refused: "
	    "%s\n", j->j_after, e.er_reason);
	j->j_held = 0;
	jobmgr_withdraw(j, CLI_EXIT_FAILURE);
}

static void
after_ask(struct evloop *loop, void *arg)
{
	struct jobmgr *j = arg;
	struct proto_job_unreg q;
	char text[64];
	size_t len;

	if (!j->j_held || j->j_ending)
		return;
	if (!j->j_after_answered &&
	    now_mono() - j->j_after_asked > j->j_timeout) {
		msg_addr_text(&j->j_broker, text, sizeof(text));
		fprintf(stderr, "CilkJobManager: the broker at %s did not "
		    "answer within %g s (is it running? same cluster key and "
		    "your public key in its user_keys?)\n", text,
		    j->j_timeout);
		j->j_held = 0;
		jobmgr_withdraw(j, CLI_EXIT_TIMEOUT);
		return;
	}
	q.ju_job = j->j_after;
	if ((len = proto_job_unreg_enc(&q, j->j_buf, sizeof(j->j_buf))) > 0 &&
	    msg_ep_send(j->j_dc.dc_ep, &j->j_broker, MSG_SCHEME_USER,
	    PROTO_H_AFTER_REQ, j->j_buf, len) == -1)
		log_debug("%s: %s", __func__, strerror(errno));
	/* Often until the first answer; then slower, up to a bound. */
	if (!j->j_after_answered) {
		evloop_timer_add(loop, 0.25, after_ask, j);
		return;
	}
	j->j_after_poll = j->j_after_poll < 0.5 ? 0.5 : j->j_after_poll * 1.5;
	if (j->j_after_poll > JMAFTER_POLL_MAX)
		j->j_after_poll = JMAFTER_POLL_MAX;
	evloop_timer_add(loop, j->j_after_poll, after_ask, j);
}

int
jmafter_hold(struct jobmgr *j)
{
	if (j->j_after == 0)
		return 0;
	log_info("held until job %u has ended successfully", j->j_after);
	j->j_held = 1;
	j->j_after_asked = now_mono();
	after_ask(j->j_dc.dc_loop, j);
	return 1;
}

const struct msg_handler *
jmafter_table(void)
{
	static struct msg_handler t[PROTO_H_MAX];

	memcpy(t, jobmgr_table(), sizeof(t));
	t[PROTO_H_ERROR] = (struct msg_handler){ "error",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_error };
	t[PROTO_H_ACCT_ACK] = (struct msg_handler){ "acct-ack",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_ack };
	return t;
}
