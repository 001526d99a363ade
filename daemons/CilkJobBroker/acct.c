/* CilkJobBroker: the accounting database and its messages (bacct.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bacct.h"
#include "bpred.h"
#include "brokerq.h"
#include "log.h"
#include "mono.h"
#include "pred_auth.h"
#include "proto_acct.h"
#include "tasktab.h"

/* A peer can make these lines repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;
static struct log_rate db_log = LOG_RATE_DEFAULT;

static void
db_warn(struct bacct *ba, const char *what)
{
	if (log_rate(&db_log, now_mono(), "history database errors"))
		log_warnx("%s: %s: %s", ba->ba_path, what,
		    acct_error(ba->ba_db));
}

int
bacct_init(struct bacct *ba, struct dctx *dc, struct broker *br,
    char *err, size_t errlen)
{
	char sdir[PATH_MAX];

	memset(ba, 0, sizeof(*ba));
	ba->ba_dc = dc;
	ba->ba_br = br;
	if (conf_get_path(dc->dc_conf, "state_dir", sdir, sizeof(sdir)) ==
	    -1 || snprintf(ba->ba_path, sizeof(ba->ba_path), "%s/%s/%s", sdir,
	    BPRED_DIR, ACCT_FILE) >= (int)sizeof(ba->ba_path)) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	/* -n makes nothing: a database not made yet is fine. */
	if (dc->dc_args.da_check && access(ba->ba_path, F_OK) == -1 &&
	    errno == ENOENT)
		return 0;
	if ((ba->ba_db = acct_open(ba->ba_path, err, errlen)) == NULL)
		return -1;
	return 0;
}

static void
prune(struct evloop *loop, void *arg)
{
	struct bacct *ba = arg;
	unsigned days, jobs;
	int n;

	if (conf_get_count(ba->ba_dc->dc_conf, "history_days", &days) == -1)
		days = 30;
	if (conf_get_count(ba->ba_dc->dc_conf, "history_jobs", &jobs) == -1)
		jobs = 100000;
	if ((n = acct_prune(ba->ba_db, now_real_ms(), days, jobs)) == -1)
		db_warn(ba, "retention");
	else if (n > 0)
		log_info("%s: %d jobs past history_days=%u or history_jobs=%u "
		    "forgotten", ba->ba_path, n, days, jobs);
	if (loop != NULL)
		evloop_timer_add(loop, BACCT_PRUNE_EVERY, prune, ba);
}

/* Rows left running by a broker before us whose jobs never came back. */
static void
sweep(struct evloop *loop, void *arg)
{
	static struct acct_job rows[64];
	struct bacct *ba = arg;
	struct acct_filter f;
	uint32_t after = 0, i, n, lost = 0;
	int more = 1;

	(void)loop;
	memset(&f, 0, sizeof(f));
	f.af_state = ACCT_ST_RUNNING;
	while (more) {
		if (acct_jobs(ba->ba_db, &f, after, rows, 64, &n, &more) ==
		    -1) {
			db_warn(ba, "sweep");
			return;
		}
		for (i = 0; i < n; i++) {
			after = rows[i].aj_job;
			if (broker_job_find(ba->ba_br, after) != NULL)
				continue;
			bacct_job_left(ba, after, ACCT_ST_LOST);
			lost++;
		}
	}
	if (lost > 0)
		log_info("%s: %u jobs that ran before the broker's restart "
		    "never registered again: marked lost", ba->ba_path, lost);
}

void
bacct_start(struct bacct *ba, struct cookie_key *ck)
{
	ba->ba_cookie = ck;
	prune(ba->ba_dc->dc_loop, ba);
	evloop_timer_add(ba->ba_dc->dc_loop, 3 * ba->ba_br->br_interval + 1,
	    sweep, ba);
}

void
bacct_fini(struct bacct *ba)
{
	acct_close(ba->ba_db);
	ba->ba_db = NULL;
}

uint32_t
bacct_max_job(struct bacct *ba)
{
	return ba->ba_db != NULL ? acct_max_job(ba->ba_db) : 0;
}

/* Text for the history: control characters become '?'. */
static void
clean(char *dst, size_t sz, const char *src)
{
	size_t i;

	strlcpy(dst, src, sz);
	for (i = 0; dst[i] != '\0'; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

void
bacct_job_registered(struct bacct *ba, const struct broker_job *j)
{
	struct acct_job a;

	memset(&a, 0, sizeof(a));
	a.aj_job = j->bj_id;
	strlcpy(a.aj_user, j->bj_user, sizeof(a.aj_user));
	brokerq_host(&j->bj_addr, a.aj_host, sizeof(a.aj_host));
	clean(a.aj_command, sizeof(a.aj_command), j->bj_command);
	a.aj_submit_ms = j->bj_start_ms != 0 ? j->bj_start_ms : now_real_ms();
	if (acct_job_begin(ba->ba_db, &a) == -1)
		db_warn(ba, "job");
}

void
bacct_job_left(struct bacct *ba, uint32_t job, uint8_t state)
{
	if (acct_job_mark(ba->ba_db, job, state, now_real_ms()) == -1)
		db_warn(ba, "job end");
}

void
bacct_expire(struct bacct *ba, double now)
{
	struct broker_job *j;

	/* As broker_expire() decides (MISSED intervals of silence). */
	TAILQ_FOREACH(j, &ba->ba_br->br_jobs, bj_entry)
		if (now - j->bj_seen > 3 * ba->ba_br->br_interval)
			bacct_job_left(ba, j->bj_id, ACCT_ST_LOST);
}

void
bacct_withdraw(struct bacct *ba, const char *user, const struct msg_addr *a)
{
	struct broker_job *j;

	TAILQ_FOREACH(j, &ba->ba_br->br_jobs, bj_entry)
		if (strcmp(j->bj_user, user) == 0 &&
		    msg_addr_eq(&j->bj_addr, a))
			bacct_job_left(ba, j->bj_id, ACCT_ST_ENDED);
}

static void
refuse(struct msg_ep *ep, const struct msg_in *in, const char *what,
    const char *why)
{
	if (log_rate(&refused_log, now_mono(), "refused history requests"))
		log_info("%s from %s refused: %s", what, in->mi_name, why);
	proto_reply_error(ep, in, why);
}

/*
 * Whose record it may be: the job's registered user from its job
 * manager's address and boot while it is registered, else the user of
 * its row in the history.  NULL if allowed, else why not ("" for a
 * database error: no answer, so the job manager sends it again).
 */
static const char *
record_refused(struct bacct *ba, const struct msg_in *in,
    const struct proto_acct *m)
{
	struct broker_job *j;
	struct acct_job row;
	int rc;

	if ((j = broker_job_find(ba->ba_br, m->ac_job.aj_job)) != NULL) {
		if (strcmp(j->bj_user, in->mi_name) != 0)
			return "not your job";
		if (!msg_addr_eq(&j->bj_addr, &in->mi_from) ||
		    j->bj_boot != m->ac_boot)
			return "not from the job's manager";
		bacct_job_registered(ba, j);	/* a row, whatever came */
		return NULL;
	}
	if ((rc = acct_job_get(ba->ba_db, m->ac_job.aj_job, &row)) == -1) {
		db_warn(ba, "job");
		return "";
	}
	if (rc == 1)
		return "no such job";
	return strcmp(row.aj_user, in->mi_name) == 0 ? NULL : "not your job";
}

void
bacct_on_acct(struct bacct *ba, struct msg_ep *ep, const struct msg_in *in)
{
	struct proto_acct m;
	struct proto_acct_ack a;
	const char *why;
	uint8_t buf[64];
	size_t len;
	int rc;

	if (!msg_user_name_ok(in->mi_name) ||
	    proto_acct_dec(&m, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	if (m.ac_kind == PROTO_AK_TASK && m.ac_task.at_task >= TT_TASKS_MAX) {
		refuse(ep, in, "accounting record", "task number too large");
		return;
	}
	if ((why = record_refused(ba, in, &m)) != NULL) {
		if (why[0] != '\0')
			refuse(ep, in, "accounting record", why);
		return;
	}
	rc = m.ac_kind == PROTO_AK_TASK ? acct_task_put(ba->ba_db,
	    &m.ac_task) : acct_job_end(ba->ba_db, &m.ac_job);
	if (rc == -1) {
		/* Not acknowledged: the job manager sends it again. */
		db_warn(ba, "record");
		return;
	}
	if (m.ac_kind == PROTO_AK_JOB)
		log_info("job %u of %s ended: %s", m.ac_job.aj_job,
		    in->mi_name, acct_state_name(m.ac_job.aj_state));
	memset(&a, 0, sizeof(a));
	a.aa_kind = m.ac_kind;
	a.aa_job = m.ac_job.aj_job;
	if (m.ac_kind == PROTO_AK_TASK) {
		a.aa_task = m.ac_task.at_task;
		a.aa_tries = m.ac_task.at_tries;
	}
	if ((len = proto_acct_ack_enc(&a, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_ACCT_ACK, buf, len);
}

static void
reply_rows(struct bacct *ba, struct msg_ep *ep, const struct msg_in *in,
    const struct proto_acct_rows *rows)
{
	size_t len;

	if ((len = proto_acct_rows_enc(rows, ba->ba_buf,
	    sizeof(ba->ba_buf))) == 0) {
		log_warnx("%s: %u rows do not fit", __func__, rows->ar_n);
		proto_reply_error(ep, in, "the answer does not fit");
		return;
	}
	(void)msg_ep_reply(ep, in, PROTO_H_ACCT_ROWS, ba->ba_buf, len);
}

void
bacct_on_req(struct bacct *ba, struct msg_ep *ep, const struct msg_in *in)
{
	static struct proto_acct_rows rows;
	struct proto_acct_req q;
	struct acct_filter f;
	struct acct_job row;
	uint32_t n;
	int admin, more, rc;

	if (!msg_user_name_ok(in->mi_name) ||
	    proto_acct_req_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	/* A page is far larger than the request: only to a proven address. */
	if (!cookie_proved(ba->ba_cookie, ep, in, now_mono(),
	    q.aq_has_cookie, q.aq_cookie))
		return;
	admin = pred_auth_listed(conf_get(ba->ba_dc->dc_conf, "admins"),
	    in->mi_name);
	if (!admin && q.aq_user[0] != '\0' &&
	    strcmp(q.aq_user, in->mi_name) != 0) {
		refuse(ep, in, "history", "only an administrator sees other "
		    "users' jobs");
		return;
	}
	memset(&rows, 0, sizeof(rows));
	rows.ar_what = q.aq_what;
	if (q.aq_what == PROTO_AW_TASKS) {
		if ((rc = acct_job_get(ba->ba_db, q.aq_job, &row)) == -1) {
			db_warn(ba, "job");
			proto_reply_error(ep, in, "history database error");
			return;
		}
		/* Another's job is as absent as none, to a user. */
		if (rc == 1 || (!admin && strcmp(row.aj_user, in->mi_name) !=
		    0)) {
			refuse(ep, in, "history", "no such job in the history");
			return;
		}
		rc = acct_tasks(ba->ba_db, q.aq_job, q.aq_from, rows.ar_tasks,
		    PROTO_ACCT_TASK_ROWS, &n, &more);
		if (rc == 0 && more && n > 0)
			rows.ar_next = rows.ar_tasks[n - 1].at_task + 1;
	} else {
		memset(&f, 0, sizeof(f));
		f.af_user = q.aq_user[0] != '\0' ? q.aq_user : admin ? NULL :
		    in->mi_name;
		f.af_job = q.aq_job;
		f.af_since_ms = q.aq_since_ms;
		rc = acct_jobs(ba->ba_db, &f, q.aq_from, rows.ar_jobs,
		    PROTO_ACCT_JOB_ROWS, &n, &more);
		if (rc == 0 && more && n > 0)
			rows.ar_next = rows.ar_jobs[n - 1].aj_job;
	}
	if (rc == -1) {
		db_warn(ba, "query");
		proto_reply_error(ep, in, "history database error");
		return;
	}
	rows.ar_n = (uint16_t)n;
	reply_rows(ba, ep, in, &rows);
}

/* How job stands for a job held by --after. */
static uint8_t
after_state(struct bacct *ba, uint32_t job)
{
	struct acct_job row;
	uint64_t now = now_real_ms();
	int rc;

	if (broker_job_find(ba->ba_br, job) != NULL)
		return PROTO_AFTER_WAIT;
	if ((rc = acct_job_get(ba->ba_db, job, &row)) == -1) {
		db_warn(ba, "job");
		return PROTO_AFTER_WAIT;
	}
	if (rc == 1)
		return PROTO_AFTER_UNKNOWN;
	switch (row.aj_state) {
	case ACCT_ST_COMPLETED:
		return row.aj_has_exit && row.aj_exit == 0 ? PROTO_AFTER_OK :
		    PROTO_AFTER_FAILED;
	case ACCT_ST_RUNNING:
		/* Its job manager registers again after our restart. */
		return PROTO_AFTER_WAIT;
	case ACCT_ST_ENDED:
		/* Its job manager's own record may be on the way. */
		return row.aj_end_ms + BACCT_END_GRACE * 1000 > now ?
		    PROTO_AFTER_WAIT : PROTO_AFTER_FAILED;
	default:
		return PROTO_AFTER_FAILED;
	}
}

void
bacct_on_after(struct bacct *ba, struct msg_ep *ep, const struct msg_in *in)
{
	struct proto_job_unreg q;
	struct proto_acct_ack a;
	uint8_t buf[64];
	size_t len;

	if (!msg_user_name_ok(in->mi_name) ||
	    proto_job_unreg_dec(&q, in->mi_data, in->mi_len) == -1 ||
	    q.ju_job == 0) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.aa_kind = PROTO_AK_AFTER;
	a.aa_job = q.ju_job;
	a.aa_state = after_state(ba, q.ju_job);
	if ((len = proto_acct_ack_enc(&a, buf, sizeof(buf))) > 0)
		(void)msg_ep_reply(ep, in, PROTO_H_ACCT_ACK, buf, len);
}
