/*
 * Unit tests of proto_health: HEALTH_REQ and HEALTH round trips, and
 * what their decoders refuse (shapes, lengths, states, control bytes).
 */
#include <stdio.h>
#include <string.h>

#include "proto_health.h"
#include "tap.h"
#include "codec_robust.h"

static int
dec_req(const uint8_t *b, size_t n)
{
	static struct proto_health_req q;
	uint8_t again[1024];
	size_t len;

	if (proto_health_req_dec(&q, b, n) == -1)
		return -1;
	len = proto_health_req_enc(&q, again, sizeof(again));
	return len == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

static int
dec_ans(const uint8_t *b, size_t n)
{
	static struct proto_health a;
	static uint8_t again[MSG_PAYLOAD_MAX];
	size_t len;

	if (proto_health_dec(&a, b, n) == -1)
		return -1;
	len = proto_health_enc(&a, again, sizeof(again));
	return len == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

static int
dec_down(const uint8_t *b, size_t n)
{
	struct proto_node_down d;
	uint8_t again[512];
	size_t len;

	if (proto_node_down_dec(&d, b, n) == -1)
		return -1;
	len = proto_node_down_enc(&d, again, sizeof(again));
	return len == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

/* NODE_DOWN: a node down by itself, and why. */
static void
test_node_down(void)
{
	struct proto_node_down d, e;
	uint8_t buf[512];
	size_t len;

	memset(&d, 0, sizeof(d));
	d.nd_boot = 0x0102030405060708ULL;
	d.nd_gen = 2;
	strlcpy(d.nd_reason, "no space left in /var/lib/cilknow (0 KiB "
	    "free, spool_min_free 1024 KiB) (3 starts in a row)",
	    sizeof(d.nd_reason));
	len = proto_node_down_enc(&d, buf, sizeof(buf));
	ok(len > 0, "node down encodes");
	ok(proto_node_down_dec(&e, buf, len) == 0 &&
	    e.nd_boot == d.nd_boot && e.nd_gen == 2 &&
	    strcmp(e.nd_reason, d.nd_reason) == 0, "and decodes the same");
	robust("node down", dec_down, buf, len);
	ok(proto_node_down_enc(&d, buf, 10) == 0, "too small a buffer");
	d.nd_gen = 0;
	ok(proto_node_down_enc(&d, buf, sizeof(buf)) == 0,
	    "down number 0 is refused");
	d.nd_gen = 1;
	d.nd_reason[0] = '\0';
	ok(proto_node_down_enc(&d, buf, sizeof(buf)) == 0,
	    "no reason is refused");
	strlcpy(d.nd_reason, "a\tb", sizeof(d.nd_reason));
	ok(proto_node_down_enc(&d, buf, sizeof(buf)) == 0,
	    "a control byte in the reason is refused");
	/* Hand-made: gen 0, and a reason with a tab. */
	strlcpy(d.nd_reason, "ab", sizeof(d.nd_reason));
	len = proto_node_down_enc(&d, buf, sizeof(buf));
	ok(len == 8 + 4 + 2 + 2, "a short one is %zu bytes", len);
	memset(buf + 8, 0, 4);
	ok(proto_node_down_dec(&e, buf, len) == -1, "decoder: gen 0");
	buf[11] = 1;
	buf[14] = '\t';
	ok(proto_node_down_dec(&e, buf, len) == -1,
	    "decoder: a control byte");
	buf[14] = 'a';
	ok(proto_node_down_dec(&e, buf, len) == 0, "decoder: fixed, taken");
	buf[12] = 0;
	buf[13] = 0;
	ok(proto_node_down_dec(&e, buf, 14) == -1, "decoder: empty reason");
}

static size_t
req(uint8_t op, const char *node, const char *reason, uint8_t *buf,
    size_t cap)
{
	struct proto_health_req q;

	memset(&q, 0, sizeof(q));
	q.hq_op = op;
	strlcpy(q.hq_node, node, sizeof(q.hq_node));
	strlcpy(q.hq_reason, reason, sizeof(q.hq_reason));
	return proto_health_req_enc(&q, buf, cap);
}

int
main(void)
{
	static struct proto_health a, b;
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_health_req q, r;
	char longr[PROTO_HEALTH_REASON_MAX + 2];
	size_t len;
	uint16_t i;

	/* Requests. */
	memset(&q, 0, sizeof(q));
	q.hq_op = PROTO_HO_DRAIN;
	strlcpy(q.hq_node, "ws2", sizeof(q.hq_node));
	strlcpy(q.hq_reason, "bad disk, see ticket 42", sizeof(q.hq_reason));
	q.hq_has_cookie = 1;
	memset(q.hq_cookie, 0xab, sizeof(q.hq_cookie));
	len = proto_health_req_enc(&q, buf, sizeof(buf));
	ok(len > 0, "a drain encodes");
	ok(proto_health_req_dec(&r, buf, len) == 0 &&
	    r.hq_op == PROTO_HO_DRAIN && strcmp(r.hq_node, "ws2") == 0 &&
	    strcmp(r.hq_reason, q.hq_reason) == 0 && r.hq_has_cookie == 1 &&
	    memcmp(r.hq_cookie, q.hq_cookie, PROTO_COOKIE_LEN) == 0,
	    "and decodes the same");
	robust("drain", dec_req, buf, len);
	len = req(PROTO_HO_RESUME, "127.0.0.3", "", buf, sizeof(buf));
	ok(len > 0 && buf[len - 1] == 0, "a resume ends in has_cookie 0");
	ok(proto_health_req_dec(&r, buf, len) == 0 &&
	    r.hq_op == PROTO_HO_RESUME, "and decodes");
	len = req(PROTO_HO_LIST, "", "", buf, sizeof(buf));
	ok(len > 0 && proto_health_req_dec(&r, buf, len) == 0 &&
	    r.hq_op == PROTO_HO_LIST, "a list round trips");
	robust("list", dec_req, buf, len);

	/* What the encoder will not write (and so the decoder refuses). */
	ok(req(PROTO_HO_DRAIN, "ws2", "", buf, sizeof(buf)) == 0,
	    "a drain without a reason");
	ok(req(PROTO_HO_DRAIN, "", "x", buf, sizeof(buf)) == 0,
	    "a drain of no node");
	ok(req(PROTO_HO_DRAIN, "w s2", "x", buf, sizeof(buf)) == 0,
	    "a node name with a blank");
	ok(req(PROTO_HO_DRAIN, "ws2", "a\nforged line", buf, sizeof(buf)) ==
	    0, "a reason with a control character");
	memset(longr, 'x', sizeof(longr) - 1);
	longr[sizeof(longr) - 1] = '\0';
	ok(!proto_health_reason_ok(longr), "a reason over the maximum");
	longr[PROTO_HEALTH_REASON_MAX] = '\0';
	ok(proto_health_reason_ok(longr), "one of the maximum is a reason");
	ok(req(PROTO_HO_RESUME, "ws2", "x", buf, sizeof(buf)) == 0,
	    "a resume with a reason");
	ok(req(PROTO_HO_LIST, "ws2", "", buf, sizeof(buf)) == 0,
	    "a list naming a node");
	ok(req(0, "ws2", "x", buf, sizeof(buf)) == 0 &&
	    req(PROTO_HO_MAX, "ws2", "x", buf, sizeof(buf)) == 0,
	    "no such operation");
	/* The same, made by hand past the encoder. */
	len = req(PROTO_HO_RESUME, "ws2", "", buf, sizeof(buf));
	buf[0] = PROTO_HO_DRAIN;
	ok(proto_health_req_dec(&r, buf, len) == -1,
	    "decoder: a drain without a reason");
	buf[0] = PROTO_HO_MAX;
	ok(proto_health_req_dec(&r, buf, len) == -1,
	    "decoder: no such operation");
	buf[0] = PROTO_HO_RESUME;
	buf[len - 1] = 2;
	ok(proto_health_req_dec(&r, buf, len) == -1,
	    "decoder: has_cookie other than 0 or 1");
	buf[len - 1] = 1;
	ok(proto_health_req_dec(&r, buf, len) == -1,
	    "decoder: has_cookie without the cookie");

	/* Answers. */
	memset(&a, 0, sizeof(a));
	strlcpy(a.he_done, "node 2 (ws2) drained", sizeof(a.he_done));
	a.he_n = 3;
	a.he_total = 70;
	for (i = 0; i < a.he_n; i++) {
		a.he_rows[i].hr_node = i + 1;
		a.he_rows[i].hr_addr.ma_family = 4;
		a.he_rows[i].hr_addr.ma_addr[0] = 127;
		a.he_rows[i].hr_addr.ma_addr[3] = (uint8_t)(i + 2);
		a.he_rows[i].hr_addr.ma_port = 7411;
		snprintf(a.he_rows[i].hr_host, sizeof(a.he_rows[i].hr_host),
		    "ws%u", i + 2);
		a.he_rows[i].hr_state = i == 0 ? PROTO_NS_DRAIN : i == 1 ?
		    PROTO_NS_DRAINED : PROTO_NS_DOWN;
		strlcpy(a.he_rows[i].hr_reason, i == 2 ?
		    "silent since 2026-11-28T02:00:00Z" : "memory errors",
		    sizeof(a.he_rows[i].hr_reason));
		if (i < 2)
			strlcpy(a.he_rows[i].hr_user, "root",
			    sizeof(a.he_rows[i].hr_user));
		a.he_rows[i].hr_since_ms = 1764295200000ULL + i;
	}
	len = proto_health_enc(&a, buf, sizeof(buf));
	ok(len > 0, "an answer of 3 rows encodes");
	ok(proto_health_dec(&b, buf, len) == 0 && b.he_n == 3 &&
	    b.he_total == 70 && strcmp(b.he_done, a.he_done) == 0 &&
	    memcmp(b.he_rows, a.he_rows, sizeof(a.he_rows[0]) * 3) == 0,
	    "and decodes the same");
	robust("answer", dec_ans, buf, len);
	/* Every row of a full answer fits in one message. */
	for (i = 0; i < PROTO_HEALTH_ROWS_MAX; i++) {
		a.he_rows[i] = a.he_rows[0];
		memset(a.he_rows[i].hr_host, 'h', PROTO_HOST_MAX - 1);
		memset(a.he_rows[i].hr_reason, 'r', PROTO_HEALTH_REASON_MAX);
		memset(a.he_rows[i].hr_user, 'u', MSG_NAME_MAX);
	}
	a.he_n = PROTO_HEALTH_ROWS_MAX;
	ok(proto_health_enc(&a, buf, sizeof(buf)) > 0,
	    "%d rows of the longest fields fit", PROTO_HEALTH_ROWS_MAX);
	a.he_n = 1;
	a.he_rows[0].hr_state = PROTO_NS_IDLE;
	ok(proto_health_enc(&a, buf, sizeof(buf)) == 0,
	    "a row whose state is not held is refused");
	a.he_rows[0].hr_state = PROTO_NS_DOWN;
	a.he_rows[0].hr_reason[0] = '\0';
	ok(proto_health_enc(&a, buf, sizeof(buf)) == 0,
	    "a row without a reason is refused");
	strlcpy(a.he_rows[0].hr_reason, "x", sizeof(a.he_rows[0].hr_reason));
	strlcpy(a.he_rows[0].hr_user, "Bad User",
	    sizeof(a.he_rows[0].hr_user));
	ok(proto_health_enc(&a, buf, sizeof(buf)) == 0,
	    "a row whose user is not a user name is refused");
	a.he_rows[0].hr_user[0] = '\0';
	a.he_total = 0;
	ok(proto_health_enc(&a, buf, sizeof(buf)) == 0,
	    "fewer in all than rows is refused");
	a.he_total = 1;
	len = proto_health_enc(&a, buf, sizeof(buf));
	ok(len > 0, "one row encodes");
	/* he_total (after the done string "node 2 (ws2) drained") to 0. */
	memset(buf + 2 + strlen(a.he_done), 0, 4);
	ok(proto_health_dec(&b, buf, len) == -1,
	    "decoder: fewer in all than rows");
	a.he_n = PROTO_HEALTH_ROWS_MAX + 1;
	a.he_total = a.he_n;
	ok(proto_health_enc(&a, buf, sizeof(buf)) == 0,
	    "more rows than an answer holds are refused");
	test_node_down();
	return tap_done();
}
