/*
 * CilkPs -j JOB: the job's tasks, asked of its job manager (whose
 * address the broker's job row gives) under the user scheme: signed by
 * the user's key or munge, answered only to the job's user or an
 * administrator, a page at a time, each page after the job manager's
 * cookie was echoed (proto_tasks.h).  The answer counts only if it is
 * signed by the job's user, from the job manager's address.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "brokerq.h"
#include "json.h"
#include "log.h"
#include "msg_keyring.h"
#include "proto_tasks.h"
#include "ps.h"

#define ASK_TRIES	3

struct ask {
	struct evloop			*a_loop;
	struct msg_ep			*a_ep;
	const struct proto_job_row	*a_row;
	struct proto_tasks_req		 a_req;
	struct proto_tasks		 a_ans;	/* the page */
	double				 a_timeout;
	int				 a_sent;
	struct evtimer			*a_resend_t, *a_deadline_t;
	int				 a_done;	/* 1 page, -1 no */
	char				 a_reason[PROTO_REASON_MAX];
};

static int
from_jobmgr(const struct ask *a, const struct msg_in *in)
{
	return msg_addr_eq(&in->mi_from, &a->a_row->jw_addr) &&
	    msg_verify_sender(in, MSG_SCHEME_USER, a->a_row->jw_user, NULL);
}

static void
send_req(struct ask *a)
{
	uint8_t buf[64];
	size_t len;

	if ((len = proto_tasks_req_enc(&a->a_req, buf, sizeof(buf))) == 0 ||
	    msg_ep_send(a->a_ep, &a->a_row->jw_addr, MSG_SCHEME_USER,
	    PROTO_H_TASKS_REQ, buf, len) == -1)
		log_debug("%s: send: %s", __func__, strerror(errno));
}

static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_cookie c;

	(void)ep;
	if (a->a_done || !from_jobmgr(a, in) ||
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1 ||
	    (a->a_req.tq_has_cookie && memcmp(a->a_req.tq_cookie,
	    c.co_cookie, sizeof(c.co_cookie)) == 0))
		return;	/* the same again: it was not ours to fix */
	a->a_req.tq_has_cookie = 1;
	memcpy(a->a_req.tq_cookie, c.co_cookie, sizeof(c.co_cookie));
	send_req(a);
}

static void
on_tasks(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;

	(void)ep;
	if (a->a_done || !from_jobmgr(a, in) ||
	    proto_tasks_dec(&a->a_ans, in->mi_data, in->mi_len) == -1 ||
	    a->a_ans.tk_job != a->a_req.tq_job ||
	    a->a_ans.tk_from != a->a_req.tq_from)
		return;
	a->a_done = 1;
	evloop_break(a->a_loop);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_error e;

	(void)ep;
	if (a->a_done || !from_jobmgr(a, in) ||
	    proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != PROTO_H_TASKS_REQ)
		return;
	brokerq_safe(a->a_reason, sizeof(a->a_reason), e.er_reason);
	a->a_done = -1;
	evloop_break(a->a_loop);
}

static void
on_resend(struct evloop *loop, void *arg)
{
	struct ask *a = arg;

	a->a_resend_t = NULL;
	if (a->a_done)
		return;
	send_req(a);
	if (++a->a_sent < ASK_TRIES)
		a->a_resend_t = evloop_timer_add(loop, a->a_timeout /
		    ASK_TRIES, on_resend, a);
}

static void
on_deadline(struct evloop *loop, void *arg)
{
	struct ask *a = arg;

	a->a_deadline_t = NULL;
	evloop_break(loop);
}

/* One page from a->a_req.tq_from on: 0, or an exit code. */
static int
page(struct ask *a)
{
	a->a_done = 0;
	a->a_sent = 0;
	on_resend(a->a_loop, a);
	a->a_deadline_t = evloop_timer_add(a->a_loop, a->a_timeout,
	    on_deadline, a);
	if (evloop_run(a->a_loop) == -1)
		log_warn("%s: event loop", __func__);
	if (a->a_deadline_t != NULL)
		evloop_timer_cancel(a->a_loop, a->a_deadline_t);
	if (a->a_resend_t != NULL)
		evloop_timer_cancel(a->a_loop, a->a_resend_t);
	a->a_deadline_t = a->a_resend_t = NULL;
	if (a->a_done == 1)
		return CLI_EXIT_OK;
	return a->a_done == -1 ? CLI_EXIT_FAILURE : CLI_EXIT_TIMEOUT;
}

static void
exit_text(const struct proto_task_row *r, char *buf, size_t bufsz)
{
	/* As sacct's ExitCode: CODE:SIGNAL. */
	if (!r->tr_ended)
		strlcpy(buf, "-", bufsz);
	else if (r->tr_status >= 0)
		snprintf(buf, bufsz, "%d:0", r->tr_status);
	else
		snprintf(buf, bufsz, "0:%d", -r->tr_status);
}

static void
print_text(const struct proto_job_row *row, const struct proto_tasks *sum,
    const struct proto_task_row *rows, uint32_t n)
{
	char node[PROTO_HOST_MAX], user[MSG_NAME_MAX + 1], ex[24];
	uint32_t i;
	int s, first = 1;

	brokerq_safe(user, sizeof(user), row->jw_user);
	printf("job %u of %s: %u task%s", row->jw_job, user, sum->tk_tasks,
	    sum->tk_tasks == 1 ? "" : "s");
	for (s = 0; s < TASKS_COUNT_MAX; s++) {
		if (sum->tk_count[s] == 0)
			continue;
		printf("%s %u %s", first ? ":" : ",", sum->tk_count[s],
		    proto_task_state_name((enum proto_task_state)(s + 1)));
		first = 0;
	}
	printf("\n%5s %-9s %-15s %5s %6s %8s\n", "TASK", "STATE", "NODE",
	    "TRIES", "EXIT", "SECONDS");
	for (i = 0; i < n; i++) {
		brokerq_safe(node, sizeof(node), rows[i].tr_node);
		exit_text(&rows[i], ex, sizeof(ex));
		printf("%5u %-9s %-15s %5u %6s ", rows[i].tr_task,
		    proto_task_state_name(rows[i].tr_state),
		    node[0] != '\0' ? node : "-", rows[i].tr_tries, ex);
		if (rows[i].tr_tries == 0)
			printf("%8s\n", "-");
		else
			printf("%8.1f\n", rows[i].tr_ms / 1000.0);
	}
}

static void
print_json(const struct proto_job_row *row, const struct proto_tasks *sum,
    const struct proto_task_row *rows, uint32_t n)
{
	const struct proto_task_row *r;
	uint32_t i;
	int s;

	printf("{\"schema\": 1, \"job\": %u, \"user\": ", row->jw_job);
	json_put_str(stdout, row->jw_user);
	printf(", \"want\": ");
	if (sum->tk_want == 0)
		printf("null");
	else
		printf("%u", sum->tk_want);
	printf(", \"counts\": {");
	for (s = 0; s < TASKS_COUNT_MAX; s++)
		printf("%s\"%s\": %u", s ? ", " : "",
		    proto_task_state_name((enum proto_task_state)(s + 1)),
		    sum->tk_count[s]);
	printf("}, \"tasks\": [");
	for (i = 0; i < n; i++) {
		r = &rows[i];
		printf("%s{\"task\": %u, \"state\": \"%s\", \"node\": ",
		    i ? ", " : "", r->tr_task,
		    proto_task_state_name(r->tr_state));
		if (r->tr_node[0] == '\0')
			printf("null");
		else
			json_put_str(stdout, r->tr_node);
		printf(", \"tries\": %u, \"failures\": %u, \"exit\": ",
		    r->tr_tries, r->tr_failures);
		if (!r->tr_ended)
			printf("null");
		else
			printf("{\"code\": %d, \"signal\": %d}",
			    r->tr_status >= 0 ? r->tr_status : 0,
			    r->tr_status < 0 ? -r->tr_status : 0);
		if (r->tr_tries == 0)
			printf(", \"seconds\": null}");
		else
			printf(", \"seconds\": %.3f}", r->tr_ms / 1000.0);
	}
	printf("]}\n");
}

static int
ask_all(struct ask *a, struct proto_task_row **rowsp, uint32_t *np,
    struct proto_tasks *sum)
{
	struct proto_task_row *rows = NULL, *nr;
	uint32_t n = 0;
	int rc, pages = 0;

	for (;;) {
		if ((rc = page(a)) != CLI_EXIT_OK)
			break;
		if (pages++ == 0)
			*sum = a->a_ans;
		if ((nr = reallocarray(rows, n + a->a_ans.tk_n,
		    sizeof(*rows))) == NULL) {
			rc = CLI_EXIT_FAILURE;
			break;
		}
		rows = nr;
		memcpy(rows + n, a->a_ans.tk_rows, a->a_ans.tk_n *
		    sizeof(*rows));
		n += a->a_ans.tk_n;
		/* Onward only: a page that does not advance ends it. */
		if (a->a_ans.tk_next == 0 ||
		    a->a_ans.tk_next <= a->a_req.tq_from)
			break;
		a->a_req.tq_from = a->a_ans.tk_next;
	}
	*rowsp = rows;
	*np = n;
	return rc;
}

int
ps_tasks(const struct cli_common *cc, const struct proto_job_row *row)
{
	struct msg_handler table[PROTO_H_MAX];
	static struct proto_tasks sum;
	static struct ask a;
	struct proto_task_row *rows = NULL;
	struct msg_keyring keys;
	struct msg_ep_opts eo;
	struct msg_addr any;
	struct conf *cf;
	char err[BROKERQ_ERR_MAX], text[64];
	uint32_t n = 0;
	int rc = CLI_EXIT_FAILURE;

	memset(&keys, 0, sizeof(keys));
	memset(&a, 0, sizeof(a));
	if ((cf = cli_conf_load(cc, "CilkPs")) == NULL)
		return CLI_EXIT_USAGE;
	a.a_row = row;
	a.a_req.tq_job = row->jw_job;
	if (conf_get_seconds(cf, "timeout", &a.a_timeout) == -1 ||
	    a.a_timeout <= 0)
		a.a_timeout = 3;
	msg_addr_text(&row->jw_addr, text, sizeof(text));
	/*
	 * Every user's public key: the job's user signs the answer.  How
	 * many there are is no news on the terminal (syslog has it).
	 */
	log_init(0, "CilkPs", cc->cc_verbose);
	rc = msg_keyring_load(&keys, cf, MSG_KR_USER_OPT | MSG_KR_USERS,
	    "tool", err, sizeof(err));
	log_init(1, "CilkPs", cc->cc_verbose);
	if (rc == -1) {
		warnx("%s", err);
		rc = CLI_EXIT_FAILURE;
		goto out;
	}
	rc = CLI_EXIT_FAILURE;
	if (msg_keyring_user_name(&keys)[0] == '\0') {
		msg_keyring_no_user(cf, err, sizeof(err));
		brokerq_warn("CilkPs", err);
		goto out;
	}
	memset(table, 0, sizeof(table));
	table[PROTO_H_TASKS] = (struct msg_handler){ "tasks",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_tasks };
	table[PROTO_H_COOKIE] = (struct msg_handler){ "cookie",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_cookie };
	table[PROTO_H_ERROR] = (struct msg_handler){ "error",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_error };
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = row->jw_addr.ma_family;
	if ((a.a_loop = evloop_new()) == NULL ||
	    (a.a_ep = msg_ep_new(a.a_loop, &keys, table, PROTO_H_MAX, &a,
	    &eo)) == NULL || msg_ep_bind(a.a_ep, &any) == -1) {
		warnx("endpoint: %s", strerror(errno));
		goto out;
	}
	rc = ask_all(&a, &rows, &n, &sum);
	if (rc == CLI_EXIT_FAILURE && a.a_done == -1)
		warnx("job %u: its job manager at %s refused: %s", row->jw_job,
		    text, a.a_reason);
	else if (rc == CLI_EXIT_TIMEOUT)
		warnx("job %u: no answer from its job manager at %s within "
		    "%g s (is it still running? your key, %s's, is the one "
		    "it needs, or an administrator's)", row->jw_job, text,
		    a.a_timeout, msg_keyring_user_name(&keys));
	else if (rc == CLI_EXIT_OK && cc->cc_json)
		print_json(row, &sum, rows, n);
	else if (rc == CLI_EXIT_OK)
		print_text(row, &sum, rows, n);
	else
		warnx("job %u: out of memory", row->jw_job);
 out:
	free(rows);
	msg_ep_free(a.a_ep);
	evloop_free(a.a_loop);
	msg_keyring_clear(&keys);
	conf_free(cf);
	return rc;
}
