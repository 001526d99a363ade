/* CilkJobBroker: ending jobs for CilkKill, telling their job managers. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bkill.h"
#include "gone.h"
#include "log.h"
#include "mono.h"
#include "pred_auth.h"

/* A peer can make these lines repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;

void
bkill_init(struct bkill *bk, struct dctx *dc, struct broker *br,
    void (*changed)(void *), void *arg)
{
	memset(bk, 0, sizeof(*bk));
	bk->bk_dc = dc;
	bk->bk_br = br;
	bk->bk_changed = changed;
	bk->bk_arg = arg;
	broker_kill_init(&bk->bk_mem);
}

void
bkill_fini(struct bkill *bk)
{
	broker_kill_fini(&bk->bk_mem);
}

static size_t
ended_msg(struct bkill *bk, const struct broker_ended *e)
{
	struct proto_job_ended m;

	memset(&m, 0, sizeof(m));
	m.je_job = e->be_job;
	m.je_boot = e->be_boot;
	strlcpy(m.je_by, e->be_by, sizeof(m.je_by));
	return proto_job_ended_enc(&m, bk->bk_buf, sizeof(bk->bk_buf));
}

/* Signed as @cluster, as every broker message to a job manager. */
static void
on_ended(const struct broker_ended *e, void *arg)
{
	struct bkill *bk = arg;
	size_t len;

	log_info("job %u of %s ended by CilkKill (user %s): %s", e->be_job,
	    e->be_user, e->be_by, e->be_command);
	if ((len = ended_msg(bk, e)) == 0 ||
	    msg_ep_send(bk->bk_dc->dc_ep, &e->be_addr, MSG_SCHEME_USER,
	    PROTO_H_JOB_ENDED, bk->bk_buf, len) == -1)
		log_warnx("job %u: could not tell its job manager that it "
		    "was ended: %s", e->be_job, strerror(errno));
	broker_tell_gone(bk->bk_dc->dc_ep, bk->bk_br, e->be_job);
	if (bk->bk_acct != NULL)
		bacct_job_left(bk->bk_acct, e->be_job, ACCT_ST_KILLED);
}

static void
log_refused(const struct msg_in *in, const char *what)
{
	if (log_rate(&refused_log, now_mono(), "refused kill requests"))
		log_info("kill from %s refused: %s", in->mi_name, what);
}

void
bkill_on_req(struct bkill *bk, struct msg_ep *ep, const struct msg_in *in)
{
	static struct proto_kill_ans ans;
	struct proto_kill_req q;
	const struct proto_kill_row *r;
	char why[PROTO_REASON_MAX], what[64];
	uint64_t epoch = bk->bk_br->br_epoch;
	int admin;
	uint16_t i;
	size_t len;

	if (proto_kill_req_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	if (bk->bk_cookie == NULL || !cookie_proved(bk->bk_cookie, ep, in,
	    now_mono(), q.kq_has_cookie, q.kq_cookie))
		return;		/* a COOKIE went back; nothing is ended */
	/* Only a user's own signature speaks for a user (not @cluster). */
	admin = msg_user_name_ok(in->mi_name) &&
	    pred_auth_listed(conf_get(bk->bk_dc->dc_conf, "admins"),
	    in->mi_name);
	if (broker_kill(&bk->bk_mem, bk->bk_br, &q, in->mi_name, admin,
	    now_mono(), &ans, on_ended, bk, why, sizeof(why)) == -1) {
		log_refused(in, why);
		proto_reply_error(ep, in, why);
		return;
	}
	for (i = 0; i < ans.kn_n; i++) {
		r = &ans.kn_rows[i];
		if (r->kr_result != PROTO_KR_NOT_YOURS &&
		    r->kr_result != PROTO_KR_NO_JOB)
			continue;
		snprintf(what, sizeof(what), "job %u: %s", r->kr_job,
		    proto_kill_result_name(r->kr_result));
		log_refused(in, what);
	}
	/* The nodes learn at once that the jobs are gone. */
	if (bk->bk_br->br_epoch != epoch && bk->bk_changed != NULL)
		bk->bk_changed(bk->bk_arg);
	if ((len = proto_kill_ans_enc(&ans, bk->bk_buf,
	    sizeof(bk->bk_buf))) == 0) {
		proto_reply_error(ep, in, "the answer does not fit");
		return;
	}
	(void)msg_ep_reply(ep, in, PROTO_H_KILL_ANSWER, bk->bk_buf, len);
}

int
bkill_on_register(struct bkill *bk, struct msg_ep *ep,
    const struct msg_in *in, const struct proto_job_reg *r)
{
	const struct broker_ended *e;
	size_t len;

	if (r->jr_job == 0 || (e = broker_kill_find(&bk->bk_mem, r->jr_job,
	    r->jr_boot)) == NULL || strcmp(e->be_user, in->mi_name) != 0)
		return 0;
	(void)broker_kill_seen(&bk->bk_mem, r->jr_job, r->jr_boot,
	    now_mono());
	log_debug("job %u registers again after it was ended: told again",
	    e->be_job);
	if ((len = ended_msg(bk, e)) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_JOB_ENDED, bk->bk_buf, len);
	return 1;
}

void
bkill_expire(struct bkill *bk, double now)
{
	broker_kill_expire(&bk->bk_mem, now, 3 * bk->bk_br->br_interval);
}
