/* proto_tasks — TASKS_REQ and TASKS codecs (proto_tasks.h). */
#include <string.h>

#include "proto_tasks.h"
#include "wire.h"

static size_t
finish(const struct wire_w *w)
{
	return wire_w_ok(w) == 0 ? w->ww_len : 0;
}

size_t
proto_tasks_req_enc(const struct proto_tasks_req *m, uint8_t *buf,
    size_t cap)
{
	struct wire_w w;

	if (m->tq_job == 0 || m->tq_has_cookie > 1)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->tq_job);
	wire_put_u32(&w, m->tq_from);
	wire_put_u8(&w, m->tq_has_cookie);
	wire_put_bytes(&w, m->tq_cookie, sizeof(m->tq_cookie));
	return finish(&w);
}

int
proto_tasks_req_dec(struct proto_tasks_req *m, const uint8_t *buf,
    size_t len)
{
	struct wire_r r;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->tq_job) == -1 ||
	    wire_get_u32(&r, &m->tq_from) == -1 ||
	    wire_get_u8(&r, &m->tq_has_cookie) == -1 ||
	    wire_get_bytes(&r, m->tq_cookie, sizeof(m->tq_cookie)) == -1 ||
	    wire_get_end(&r) == -1 || m->tq_job == 0 || m->tq_has_cookie > 1)
		return -1;
	return 0;
}

static int
row_valid(const struct proto_task_row *t)
{
	return t->tr_state > PROTO_TS_UNDEF && t->tr_state < PROTO_TS_MAX &&
	    t->tr_ended <= 1 && memchr(t->tr_node, '\0',
	    sizeof(t->tr_node)) != NULL;
}

size_t
proto_tasks_enc(const struct proto_tasks *m, uint8_t *buf, size_t cap)
{
	const struct proto_task_row *t;
	struct wire_w w;
	uint16_t i;
	int k;

	if (m->tk_job == 0 || m->tk_n > PROTO_TASKS_ROWS)
		return 0;
	wire_w_init(&w, buf, cap);
	wire_put_u32(&w, m->tk_job);
	wire_put_u32(&w, m->tk_want);
	wire_put_u32(&w, m->tk_tasks);
	for (k = 0; k < TASKS_COUNT_MAX; k++)
		wire_put_u32(&w, m->tk_count[k]);
	wire_put_u32(&w, m->tk_from);
	wire_put_u32(&w, m->tk_next);
	wire_put_u16(&w, m->tk_n);
	for (i = 0; i < m->tk_n; i++) {
		t = &m->tk_rows[i];
		if (!row_valid(t))
			return 0;
		wire_put_u32(&w, t->tr_task);
		wire_put_u8(&w, t->tr_state);
		wire_put_u32(&w, t->tr_tries);
		wire_put_u32(&w, t->tr_failures);
		wire_put_u8(&w, t->tr_ended);
		wire_put_u32(&w, (uint32_t)t->tr_status);
		wire_put_u32(&w, t->tr_ms);
		wire_put_str(&w, t->tr_node);
	}
	return finish(&w);
}

int
proto_tasks_dec(struct proto_tasks *m, const uint8_t *buf, size_t len)
{
	struct proto_task_row *t;
	struct wire_r r;
	uint32_t status;
	uint16_t i;
	int k;

	memset(m, 0, sizeof(*m));
	wire_r_init(&r, buf, len);
	if (wire_get_u32(&r, &m->tk_job) == -1 ||
	    wire_get_u32(&r, &m->tk_want) == -1 ||
	    wire_get_u32(&r, &m->tk_tasks) == -1)
		return -1;
	for (k = 0; k < TASKS_COUNT_MAX; k++)
		if (wire_get_u32(&r, &m->tk_count[k]) == -1)
			return -1;
	if (wire_get_u32(&r, &m->tk_from) == -1 ||
	    wire_get_u32(&r, &m->tk_next) == -1 ||
	    wire_get_u16(&r, &m->tk_n) == -1 || m->tk_job == 0 ||
	    m->tk_n > PROTO_TASKS_ROWS)
		return -1;
	for (i = 0; i < m->tk_n; i++) {
		t = &m->tk_rows[i];
		if (wire_get_u32(&r, &t->tr_task) == -1 ||
		    wire_get_u8(&r, &t->tr_state) == -1 ||
		    wire_get_u32(&r, &t->tr_tries) == -1 ||
		    wire_get_u32(&r, &t->tr_failures) == -1 ||
		    wire_get_u8(&r, &t->tr_ended) == -1 ||
		    wire_get_u32(&r, &status) == -1 ||
		    wire_get_u32(&r, &t->tr_ms) == -1 ||
		    wire_get_str(&r, t->tr_node, sizeof(t->tr_node)) == -1 ||
		    !row_valid(t))
			return -1;
		t->tr_status = (int32_t)status;
	}
	return wire_get_end(&r);
}

const char *
proto_task_state_name(enum proto_task_state s)
{
	static const char *const names[PROTO_TS_MAX] = {
		[PROTO_TS_PENDING] = "pending",
		[PROTO_TS_RUNNING] = "running",
		[PROTO_TS_DONE] = "done",
		[PROTO_TS_FAILED] = "failed",
		[PROTO_TS_GIVEN_UP] = "given-up",
		[PROTO_TS_STOPPED] = "stopped",
		[PROTO_TS_LOST] = "lost",
	};

	return s > PROTO_TS_UNDEF && s < PROTO_TS_MAX ? names[s] : "?";
}
