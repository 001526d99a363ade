/* Unit tests of TASKS_REQ and TASKS (proto_tasks.h): CilkPs -j. */
#include <stdio.h>
#include <string.h>

#include "proto_tasks.h"
#include "tap.h"
#include "codec_robust.h"

static uint8_t	buf[MSG_PAYLOAD_MAX];
static uint8_t	again[MSG_PAYLOAD_MAX];

static int
rt_req(const uint8_t *b, size_t n)
{
	struct proto_tasks_req q;
	size_t m;

	if (proto_tasks_req_dec(&q, b, n) == -1)
		return -1;
	m = proto_tasks_req_enc(&q, again, sizeof(again));
	return m == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

static int
rt_tasks(const uint8_t *b, size_t n)
{
	static struct proto_tasks t;
	size_t m;

	if (proto_tasks_dec(&t, b, n) == -1)
		return -1;
	m = proto_tasks_enc(&t, again, sizeof(again));
	return m == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

static void
test_req(void)
{
	struct proto_tasks_req q, out;
	size_t n;

	memset(&q, 0, sizeof(q));
	q.tq_job = 7;
	q.tq_from = 256;
	q.tq_has_cookie = 1;
	memset(q.tq_cookie, 0xab, sizeof(q.tq_cookie));
	n = proto_tasks_req_enc(&q, buf, sizeof(buf));
	is_int(n, 25, "TASKS_REQ: 25 bytes");
	ok(proto_tasks_req_dec(&out, buf, n) == 0 && out.tq_job == 7 &&
	    out.tq_from == 256 && out.tq_has_cookie == 1 &&
	    memcmp(out.tq_cookie, q.tq_cookie, sizeof(q.tq_cookie)) == 0,
	    "TASKS_REQ: round trip");
	robust("TASKS_REQ", rt_req, buf, n);
	buf[8] = 2;
	ok(proto_tasks_req_dec(&out, buf, n) == -1, "has_cookie 2 refused");
	q.tq_job = 0;
	is_int(proto_tasks_req_enc(&q, buf, sizeof(buf)), 0,
	    "job 0 is not encoded");
	memset(buf, 0, 25);
	ok(proto_tasks_req_dec(&out, buf, 25) == -1, "job 0 refused");
}

static void
test_tasks(void)
{
	static struct proto_tasks t, out;
	size_t n;
	uint16_t i;

	memset(&t, 0, sizeof(t));
	t.tk_job = 9;
	t.tk_want = 3;
	t.tk_tasks = 3;
	t.tk_count[PROTO_TS_DONE - 1] = 1;
	t.tk_count[PROTO_TS_GIVEN_UP - 1] = 1;
	t.tk_count[PROTO_TS_RUNNING - 1] = 1;
	t.tk_n = 3;
	for (i = 0; i < 3; i++) {
		t.tk_rows[i].tr_task = i;
		t.tk_rows[i].tr_tries = 1;
		t.tk_rows[i].tr_ms = 1500 * i;
		snprintf(t.tk_rows[i].tr_node, sizeof(t.tk_rows[i].tr_node),
		    "127.0.0.%u/1", i + 2);
	}
	t.tk_rows[0].tr_state = PROTO_TS_DONE;
	t.tk_rows[0].tr_ended = 1;
	t.tk_rows[1].tr_state = PROTO_TS_GIVEN_UP;
	t.tk_rows[1].tr_ended = 1;
	t.tk_rows[1].tr_status = -9;
	t.tk_rows[1].tr_failures = 1;
	t.tk_rows[2].tr_state = PROTO_TS_RUNNING;
	n = proto_tasks_enc(&t, buf, sizeof(buf));
	ok(n > 0, "TASKS: encoded (%zu bytes)", n);
	ok(proto_tasks_dec(&out, buf, n) == 0 && out.tk_job == 9 &&
	    out.tk_n == 3 && out.tk_rows[1].tr_status == -9 &&
	    out.tk_rows[1].tr_state == PROTO_TS_GIVEN_UP &&
	    strcmp(out.tk_rows[2].tr_node, "127.0.0.4/1") == 0 &&
	    out.tk_count[PROTO_TS_DONE - 1] == 1 &&
	    out.tk_rows[2].tr_ms == 3000,
	    "TASKS: round trip, a signal as a negative status");
	robust("TASKS", rt_tasks, buf, n);

	t.tk_rows[2].tr_state = PROTO_TS_MAX;
	is_int(proto_tasks_enc(&t, buf, sizeof(buf)), 0,
	    "a row of an unknown state is not encoded");
	t.tk_rows[2].tr_state = PROTO_TS_RUNNING;
	t.tk_n = PROTO_TASKS_ROWS + 1;
	is_int(proto_tasks_enc(&t, buf, sizeof(buf)), 0,
	    "more than PROTO_TASKS_ROWS rows are not encoded");
	/* A full page fits one message. */
	t.tk_n = PROTO_TASKS_ROWS;
	for (i = 0; i < PROTO_TASKS_ROWS; i++) {
		t.tk_rows[i].tr_state = PROTO_TS_PENDING;
		memset(t.tk_rows[i].tr_node, 'x', PROTO_HOST_MAX - 1);
		t.tk_rows[i].tr_node[PROTO_HOST_MAX - 1] = '\0';
	}
	n = proto_tasks_enc(&t, buf, sizeof(buf));
	ok(n > 0 && n < MSG_PAYLOAD_MAX, "a full page of the longest rows: "
	    "%zu bytes", n);
	/* The row count beyond the limit, on the wire. */
	t.tk_n = 1;
	n = proto_tasks_enc(&t, buf, sizeof(buf));
	buf[48] = 0x01;		/* u16 rows after 12 u32: 0x0101 */
	ok(proto_tasks_dec(&out, buf, n) == -1, "rows 257 refused");
	is_str(proto_task_state_name(PROTO_TS_GIVEN_UP), "given-up",
	    "state names");
	is_str(proto_task_state_name(PROTO_TS_UNDEF), "?", "no state: ?");
}

int
main(void)
{
	test_req();
	test_tasks();
	return tap_done();
}
