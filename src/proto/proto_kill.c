/* proto_kill — KILL_REQ, KILL_ANSWER and JOB_ENDED codecs (proto_kill.h). */
#include <string.h>

#include "proto_kill.h"
#include "wire.h"

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

/* "" or a valid user name: what a row's user may be. */
static int
user_or_empty(const char *s)
{
	return s[0] == '\0' || msg_user_name_ok(s);
}

/* The shape the decoder insists on, so that encoding is canonical. */
static int
req_valid(const struct proto_kill_req *m)
{
	uint16_t i;

	switch (m->kq_what) {
	case PROTO_KILL_JOBS:
		if (m->kq_njobs == 0 || m->kq_njobs > PROTO_KILL_JOBS_MAX ||
		    m->kq_user[0] != '\0')
			return 0;
		for (i = 0; i < m->kq_njobs; i++)
			if (m->kq_jobs[i] == 0)
				return 0;
		return 1;
	case PROTO_KILL_USER:
		return m->kq_njobs == 0 && msg_user_name_ok(m->kq_user);
	default:
		return 0;
	}
}

size_t
proto_kill_req_enc(const struct proto_kill_req *m, uint8_t *buf, size_t cap)
{
	struct wire_w w;
	uint16_t i;

	if (!req_valid(m))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u8(&w, m->kq_what);
	wire_put_u16(&w, m->kq_njobs);
	for (i = 0; i < m->kq_njobs; i++)
		wire_put_u32(&w, m->kq_jobs[i]);
	wire_put_str(&w, m->kq_user);
	wire_put_u8(&w, m->kq_has_cookie ? 1 : 0);
	if (m->kq_has_cookie)
		wire_put_bytes(&w, m->kq_cookie, PROTO_COOKIE_LEN);
	return finish(&w);
}

int
proto_kill_req_dec(struct proto_kill_req *m, const uint8_t *buf, size_t len)
{
	struct wire_r r;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u8(&r, &m->kq_what) == -1 ||
	    wire_get_u16(&r, &m->kq_njobs) == -1 ||
	    m->kq_njobs > PROTO_KILL_JOBS_MAX)
		return -1;
	for (i = 0; i < m->kq_njobs; i++)
		if (wire_get_u32(&r, &m->kq_jobs[i]) == -1)
			return -1;
	if (wire_get_str(&r, m->kq_user, sizeof(m->kq_user)) == -1 ||
	    wire_get_u8(&r, &m->kq_has_cookie) == -1 ||
	    m->kq_has_cookie > 1 || (m->kq_has_cookie &&
	    wire_get_bytes(&r, m->kq_cookie, PROTO_COOKIE_LEN) == -1) ||
	    wire_get_end(&r) == -1 || !req_valid(m))
		return -1;
	return 0;
}

size_t
proto_kill_ans_enc(const struct proto_kill_ans *m, uint8_t *buf, size_t cap)
{
	const struct proto_kill_row *k;
	struct wire_w w;
	uint16_t i;

	if (m->kn_n > PROTO_KILL_ROWS_MAX)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u16(&w, m->kn_n);
	for (i = 0; i < m->kn_n; i++) {
		k = &m->kn_rows[i];
		if (k->kr_job == 0 || k->kr_result == PROTO_KR_UNDEF ||
		    k->kr_result >= PROTO_KR_MAX || !user_or_empty(k->kr_user))
			return 0;
		wire_put_u32(&w, k->kr_job);
		wire_put_u8(&w, k->kr_result);
		wire_put_str(&w, k->kr_user);
	}
	return finish(&w);
}

int
proto_kill_ans_dec(struct proto_kill_ans *m, const uint8_t *buf, size_t len)
{
	struct proto_kill_row *k;
	struct wire_r r;
	uint16_t i;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u16(&r, &m->kn_n) == -1 || m->kn_n > PROTO_KILL_ROWS_MAX)
		return -1;
	for (i = 0; i < m->kn_n; i++) {
		k = &m->kn_rows[i];
		if (wire_get_u32(&r, &k->kr_job) == -1 || k->kr_job == 0 ||
		    wire_get_u8(&r, &k->kr_result) == -1 ||
		    k->kr_result == PROTO_KR_UNDEF ||
		    k->kr_result >= PROTO_KR_MAX ||
		    wire_get_str(&r, k->kr_user, sizeof(k->kr_user)) == -1 ||
		    !user_or_empty(k->kr_user))
			return -1;
	}
	return wire_get_end(&r);
}

size_t
proto_job_ended_enc(const struct proto_job_ended *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (m->je_job == 0 || !msg_user_name_ok(m->je_by))
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->je_job);
	wire_put_u64(&w, m->je_boot);
	wire_put_str(&w, m->je_by);
	return finish(&w);
}

int
proto_job_ended_dec(struct proto_job_ended *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->je_job) == -1 || m->je_job == 0 ||
	    wire_get_u64(&r, &m->je_boot) == -1 ||
	    wire_get_str(&r, m->je_by, sizeof(m->je_by)) == -1 ||
	    !msg_user_name_ok(m->je_by))
		return -1;
	return wire_get_end(&r);
}

const char *
proto_kill_result_name(enum proto_kill_result r)
{
	switch (r) {
	case PROTO_KR_ENDED:
		return "ended";
	case PROTO_KR_ALREADY:
		return "already ended";
	case PROTO_KR_NO_JOB:
		return "no such job";
	case PROTO_KR_NOT_YOURS:
		return "not yours";
	default:
		return "?";
	}
}
