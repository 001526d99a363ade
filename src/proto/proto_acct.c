/* proto_acct — ACCT, ACCT_ACK, ACCT_REQ and ACCT_ROWS (proto_acct.h). */
#include <string.h>

#include "proto_acct.h"
#include "wire.h"

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

static int
state_ok(uint8_t s)
{
	return s > ACCT_ST_UNDEF && s < ACCT_ST_MAX;
}

/* Text from afar is shown later: printable ASCII and UTF-8 only. */
static int
text_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static void
put_opt(struct wire_w *w, int64_t v)
{
	wire_put_u64(w, v < 0 ? PROTO_ACCT_NONE : (uint64_t)v);
}

static int
get_opt(struct wire_r *r, int64_t *v)
{
	uint64_t u;

	if (wire_get_u64(r, &u) == -1 || (u != PROTO_ACCT_NONE &&
	    u > (uint64_t)INT64_MAX))
		return -1;
	*v = u == PROTO_ACCT_NONE ? ACCT_UNKNOWN : (int64_t)u;
	return 0;
}

int64_t
proto_acct_usage(uint64_t v, uint64_t max)
{
	if (v == PROTO_USAGE_NONE)
		return ACCT_UNKNOWN;
	if (max > (uint64_t)INT64_MAX)
		max = (uint64_t)INT64_MAX;
	return (int64_t)(v < max ? v : max);
}

static int
acct_valid(const struct proto_acct *m)
{
	const struct acct_task *t = &m->ac_task;
	const struct acct_job *j = &m->ac_job;

	if (j->aj_job == 0 || j->aj_has_exit > 1)
		return 0;
	switch (m->ac_kind) {
	case PROTO_AK_JOB:
		return state_ok(j->aj_state);
	case PROTO_AK_TASK:
		return state_ok(t->at_state) && t->at_tries > 0 &&
		    t->at_node[0] != '\0' && text_ok(t->at_node);
	default:
		return 0;
	}
}

size_t
proto_acct_enc(const struct proto_acct *m, uint8_t *buf, size_t cap)
{
	const struct acct_task *t = &m->ac_task;
	const struct acct_job *j = &m->ac_job;
	int task = m->ac_kind == PROTO_AK_TASK;
	struct wire_w w;

	if (!acct_valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->ac_kind);
	wire_put_u32(&w, j->aj_job);
	wire_put_u64(&w, m->ac_boot);
	wire_put_u32(&w, task ? t->at_task : 0);
	wire_put_u32(&w, task ? t->at_tries : 0);
	wire_put_str(&w, task ? t->at_node : "");
	wire_put_u8(&w, task ? t->at_state : j->aj_state);
	wire_put_u8(&w, task ? 1 : j->aj_has_exit);
	wire_put_u32(&w, (uint32_t)(task ? t->at_exit : j->aj_exit));
	wire_put_u32(&w, task ? 0 : j->aj_tasks);
	wire_put_u32(&w, task ? 0 : j->aj_failed);
	wire_put_u64(&w, task ? t->at_start_ms : j->aj_start_ms);
	wire_put_u64(&w, task ? t->at_end_ms : j->aj_end_ms);
	put_opt(&w, task ? t->at_cpu_ms : ACCT_UNKNOWN);
	put_opt(&w, task ? t->at_maxrss_kb : ACCT_UNKNOWN);
	return finish(&w);
}

int
proto_acct_dec(struct proto_acct *m, const uint8_t *buf, size_t len)
{
	struct acct_task *t = &m->ac_task;
	struct acct_job *j = &m->ac_job;
	uint32_t u, tasks, failed;
	uint64_t start, end;
	uint8_t state, has;
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->ac_kind) == -1 ||
	    wire_get_u32(&r, &j->aj_job) == -1 ||
	    wire_get_u64(&r, &m->ac_boot) == -1 ||
	    wire_get_u32(&r, &t->at_task) == -1 ||
	    wire_get_u32(&r, &t->at_tries) == -1 ||
	    wire_get_str(&r, t->at_node, sizeof(t->at_node)) == -1 ||
	    wire_get_u8(&r, &state) == -1 || wire_get_u8(&r, &has) == -1 ||
	    wire_get_u32(&r, &u) == -1 || wire_get_u32(&r, &tasks) == -1 ||
	    wire_get_u32(&r, &failed) == -1 ||
	    wire_get_u64(&r, &start) == -1 || wire_get_u64(&r, &end) == -1 ||
	    get_opt(&r, &t->at_cpu_ms) == -1 ||
	    get_opt(&r, &t->at_maxrss_kb) == -1 || wire_get_end(&r) == -1)
		return -1;
	t->at_job = j->aj_job;
	if (m->ac_kind == PROTO_AK_TASK) {
		if (has != 1 || tasks != 0 || failed != 0)
			return -1;
		t->at_state = state;
		t->at_exit = (int32_t)u;
		t->at_start_ms = start;
		t->at_end_ms = end;
	} else if (m->ac_kind == PROTO_AK_JOB) {
		if (t->at_task != 0 || t->at_tries != 0 ||
		    t->at_node[0] != '\0' || t->at_cpu_ms != ACCT_UNKNOWN ||
		    t->at_maxrss_kb != ACCT_UNKNOWN)
			return -1;
		j->aj_state = state;
		j->aj_has_exit = has;
		j->aj_exit = (int32_t)u;
		j->aj_tasks = tasks;
		j->aj_failed = failed;
		j->aj_start_ms = start;
		j->aj_end_ms = end;
	}
	return acct_valid(m) ? 0 : -1;
}

static int
ack_valid(const struct proto_acct_ack *m)
{
	if (m->aa_kind == PROTO_AK_AFTER)
		return m->aa_state > PROTO_AFTER_UNDEF &&
		    m->aa_state < PROTO_AFTER_MAX;
	return (m->aa_kind == PROTO_AK_JOB || m->aa_kind == PROTO_AK_TASK) &&
	    m->aa_job != 0 && m->aa_state == 0;
}

size_t
proto_acct_ack_enc(const struct proto_acct_ack *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	if (!ack_valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->aa_kind);
	wire_put_u32(&w, m->aa_job);
	wire_put_u32(&w, m->aa_task);
	wire_put_u32(&w, m->aa_tries);
	wire_put_u8(&w, m->aa_state);
	return finish(&w);
}

int
proto_acct_ack_dec(struct proto_acct_ack *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->aa_kind) == -1 ||
	    wire_get_u32(&r, &m->aa_job) == -1 ||
	    wire_get_u32(&r, &m->aa_task) == -1 ||
	    wire_get_u32(&r, &m->aa_tries) == -1 ||
	    wire_get_u8(&r, &m->aa_state) == -1 || wire_get_end(&r) == -1)
		return -1;
	return ack_valid(m) ? 0 : -1;
}

static int
req_valid(const struct proto_acct_req *m)
{
	if (m->aq_has_cookie > 1 || (m->aq_user[0] != '\0' &&
	    !msg_user_name_ok(m->aq_user)))
		return 0;
	return m->aq_what == PROTO_AW_JOBS ||
	    (m->aq_what == PROTO_AW_TASKS && m->aq_job != 0);
}

size_t
proto_acct_req_enc(const struct proto_acct_req *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;

	if (!req_valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->aq_what);
	wire_put_u32(&w, m->aq_job);
	wire_put_str(&w, m->aq_user);
	wire_put_u64(&w, m->aq_since_ms);
	wire_put_u32(&w, m->aq_from);
	wire_put_u8(&w, m->aq_has_cookie);
	if (m->aq_has_cookie)
		wire_put_bytes(&w, m->aq_cookie, sizeof(m->aq_cookie));
	return finish(&w);
}

int
proto_acct_req_dec(struct proto_acct_req *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->aq_what) == -1 ||
	    wire_get_u32(&r, &m->aq_job) == -1 ||
	    wire_get_str(&r, m->aq_user, sizeof(m->aq_user)) == -1 ||
	    wire_get_u64(&r, &m->aq_since_ms) == -1 ||
	    wire_get_u32(&r, &m->aq_from) == -1 ||
	    wire_get_u8(&r, &m->aq_has_cookie) == -1 ||
	    m->aq_has_cookie > 1 || (m->aq_has_cookie &&
	    wire_get_bytes(&r, m->aq_cookie, sizeof(m->aq_cookie)) == -1) ||
	    wire_get_end(&r) == -1)
		return -1;
	return req_valid(m) ? 0 : -1;
}

static int
job_row_valid(const struct acct_job *j)
{
	return j->aj_job != 0 && msg_user_name_ok(j->aj_user) &&
	    text_ok(j->aj_host) && text_ok(j->aj_command) &&
	    state_ok(j->aj_state) && j->aj_has_exit <= 1;
}

static int
task_row_valid(const struct acct_task *t)
{
	return text_ok(t->at_node) && state_ok(t->at_state);
}

static void
put_job(struct wire_w *w, const struct acct_job *j)
{
	wire_put_u32(w, j->aj_job);
	wire_put_str(w, j->aj_user);
	wire_put_str(w, j->aj_host);
	wire_put_str(w, j->aj_command);
	wire_put_u64(w, j->aj_submit_ms);
	wire_put_u64(w, j->aj_start_ms);
	wire_put_u64(w, j->aj_end_ms);
	wire_put_u8(w, j->aj_state);
	wire_put_u8(w, j->aj_has_exit);
	wire_put_u32(w, (uint32_t)j->aj_exit);
	wire_put_u32(w, j->aj_tasks);
	wire_put_u32(w, j->aj_failed);
}

static int
get_job(struct wire_r *r, struct acct_job *j)
{
	uint32_t u;

	if (wire_get_u32(r, &j->aj_job) == -1 ||
	    wire_get_str(r, j->aj_user, sizeof(j->aj_user)) == -1 ||
	    wire_get_str(r, j->aj_host, sizeof(j->aj_host)) == -1 ||
	    wire_get_str(r, j->aj_command, sizeof(j->aj_command)) == -1 ||
	    wire_get_u64(r, &j->aj_submit_ms) == -1 ||
	    wire_get_u64(r, &j->aj_start_ms) == -1 ||
	    wire_get_u64(r, &j->aj_end_ms) == -1 ||
	    wire_get_u8(r, &j->aj_state) == -1 ||
	    wire_get_u8(r, &j->aj_has_exit) == -1 ||
	    wire_get_u32(r, &u) == -1 ||
	    wire_get_u32(r, &j->aj_tasks) == -1 ||
	    wire_get_u32(r, &j->aj_failed) == -1)
		return -1;
	j->aj_exit = (int32_t)u;
	return job_row_valid(j) ? 0 : -1;
}

static void
put_task(struct wire_w *w, const struct acct_task *t)
{
	wire_put_u32(w, t->at_task);
	wire_put_str(w, t->at_node);
	wire_put_u32(w, t->at_tries);
	wire_put_u8(w, t->at_state);
	wire_put_u32(w, (uint32_t)t->at_exit);
	wire_put_u64(w, t->at_start_ms);
	wire_put_u64(w, t->at_end_ms);
	put_opt(w, t->at_cpu_ms);
	put_opt(w, t->at_maxrss_kb);
}

static int
get_task(struct wire_r *r, struct acct_task *t)
{
	uint32_t u;

	if (wire_get_u32(r, &t->at_task) == -1 ||
	    wire_get_str(r, t->at_node, sizeof(t->at_node)) == -1 ||
	    wire_get_u32(r, &t->at_tries) == -1 ||
	    wire_get_u8(r, &t->at_state) == -1 ||
	    wire_get_u32(r, &u) == -1 ||
	    wire_get_u64(r, &t->at_start_ms) == -1 ||
	    wire_get_u64(r, &t->at_end_ms) == -1 ||
	    get_opt(r, &t->at_cpu_ms) == -1 ||
	    get_opt(r, &t->at_maxrss_kb) == -1)
		return -1;
	t->at_exit = (int32_t)u;
	return task_row_valid(t) ? 0 : -1;
}

size_t
proto_acct_rows_enc(const struct proto_acct_rows *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;
	uint16_t i;

	if ((m->ar_what == PROTO_AW_JOBS && m->ar_n > PROTO_ACCT_JOB_ROWS) ||
	    (m->ar_what == PROTO_AW_TASKS && m->ar_n > PROTO_ACCT_TASK_ROWS) ||
	    (m->ar_what != PROTO_AW_JOBS && m->ar_what != PROTO_AW_TASKS))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->ar_what);
	wire_put_u32(&w, m->ar_next);
	wire_put_u16(&w, m->ar_n);
	for (i = 0; i < m->ar_n; i++) {
		if (m->ar_what == PROTO_AW_JOBS) {
			if (!job_row_valid(&m->ar_jobs[i]))
				return 0;
			put_job(&w, &m->ar_jobs[i]);
		} else {
			if (!task_row_valid(&m->ar_tasks[i]))
				return 0;
			put_task(&w, &m->ar_tasks[i]);
		}
	}
	return finish(&w);
}

int
proto_acct_rows_dec(struct proto_acct_rows *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->ar_what) == -1 ||
	    wire_get_u32(&r, &m->ar_next) == -1 ||
	    wire_get_u16(&r, &m->ar_n) == -1)
		return -1;
	if (m->ar_what == PROTO_AW_JOBS) {
		if (m->ar_n > PROTO_ACCT_JOB_ROWS)
			return -1;
		for (i = 0; i < m->ar_n; i++)
			if (get_job(&r, &m->ar_jobs[i]) == -1)
				return -1;
	} else if (m->ar_what == PROTO_AW_TASKS) {
		if (m->ar_n > PROTO_ACCT_TASK_ROWS)
			return -1;
		for (i = 0; i < m->ar_n; i++) {
			if (get_task(&r, &m->ar_tasks[i]) == -1)
				return -1;
		}
	} else
		return -1;
	return wire_get_end(&r);
}
