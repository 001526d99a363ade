/*
 * CilkJobManager: the task table for CilkPs -j (TASKS_REQ, TASKS in
 * proto_tasks.h).  Only the job's user and administrators (admins) may
 * see it; a page goes only to an address that echoed our cookie, so
 * no forged request makes us send a page elsewhere.
 */
#include <stdlib.h>
#include <string.h>

#include "cookie.h"
#include "jobmgr.h"
#include "log.h"
#include "mono.h"
#include "msg_users.h"
#include "pred_auth.h"
#include "proto_tasks.h"

int
jobmgr_tasks_init(struct jobmgr *j)
{
	struct msg_keyring *kr = j->j_dc.dc_keys;
	int verbose = j->j_dc.dc_args.da_cc.cc_verbose;
	struct cookie_key *k;

	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -1;
	cookie_init(k);
	j->j_cookie = k;
	/*
	 * Every user's public key, so that another user's CilkPs -j is
	 * refused in words and an administrator's answered; the count goes
	 * to syslog, not onto the terminal of CilkRun.
	 */
	if (kr->kr_users == NULL && kr->kr_users_dir[0] != '\0') {
		if (!j->j_detach)
			log_init(0, "CilkJobManager", verbose);
		kr->kr_users = msg_users_load(kr->kr_users_dir);
		if (!j->j_detach)
			log_init(1, "CilkJobManager", verbose);
		if (kr->kr_users == NULL)
			return -1;
	}
	return 0;
}

static void
row(struct jobmgr *j, uint32_t i, double now, struct proto_task_row *r)
{
	const struct tt_task *tk = &j->j_tt.tt_t[i];
	const struct task *t = &j->j_tasks[i];
	double end;

	memset(r, 0, sizeof(*r));
	r->tr_task = i;
	r->tr_state = (uint8_t)(tk->tk_state + 1);
	r->tr_tries = tk->tk_attempts;
	r->tr_failures = tk->tk_failures;
	strlcpy(r->tr_node, tk->tk_node, sizeof(r->tr_node));
	if (tk->tk_attempts == 0)
		return;
	r->tr_ended = tk->tk_state != TT_RUNNING && t->t_exited;
	r->tr_status = r->tr_ended ? tk->tk_status : 0;
	end = tk->tk_state == TT_RUNNING || t->t_end < t->t_start ? now :
	    t->t_end;
	if (end > t->t_start && t->t_start > 0)
		r->tr_ms = end - t->t_start > 4e6 ? UINT32_MAX :
		    (uint32_t)((end - t->t_start) * 1000);
}

void
jobmgr_on_tasks_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	static struct proto_tasks a;
	struct jobmgr *j = arg;
	struct proto_tasks_req q;
	const char *user = j->j_desc.de_user;
	char why[PROTO_REASON_MAX];
	double now = now_mono();
	uint32_t i;
	size_t len;

	if (proto_tasks_req_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	if (j->j_job == 0 || q.tq_job != j->j_job) {
		proto_reply_error(ep, in, "no such job here");
		return;
	}
	/* A user's own signature speaks for the user; so for admins. */
	if (strcmp(in->mi_name, user) != 0 &&
	    !(msg_user_name_ok(in->mi_name) &&
	    pred_auth_listed(conf_get(j->j_dc.dc_conf, "admins"),
	    in->mi_name))) {
		log_info("task table of job %u refused to %s", j->j_job,
		    in->mi_name);
		snprintf(why, sizeof(why), "job %u is %s's: only %s or an "
		    "administrator may see its tasks", j->j_job, user, user);
		proto_reply_error(ep, in, why);
		return;
	}
	if (!cookie_proved(j->j_cookie, ep, in, now, q.tq_has_cookie,
	    q.tq_cookie))
		return;
	memset(&a, 0, sizeof(a));
	a.tk_job = j->j_job;
	a.tk_want = j->j_tt.tt_want;
	a.tk_tasks = j->j_tt.tt_n;
	a.tk_from = q.tq_from;
	for (i = 0; i < j->j_tt.tt_n; i++)
		if (j->j_tt.tt_t[i].tk_state < TASKS_COUNT_MAX)
			a.tk_count[j->j_tt.tt_t[i].tk_state]++;
	for (i = q.tq_from; i < j->j_tt.tt_n && a.tk_n < PROTO_TASKS_ROWS;
	    i++)
		row(j, i, now, &a.tk_rows[a.tk_n++]);
	a.tk_next = i < j->j_tt.tt_n ? i : 0;
	if ((len = proto_tasks_enc(&a, j->j_buf, sizeof(j->j_buf))) == 0) {
		proto_reply_error(ep, in, "the answer does not fit");
		return;
	}
	(void)msg_ep_reply(ep, in, PROTO_H_TASKS, j->j_buf, len);
}
