/* Unit tests of a node's history: the ring, HIST_REQ and HIST (proto_hist.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

static uint8_t	buf[MSG_PAYLOAD_MAX];

static void
sample(struct proto_hist_sample *s, uint64_t t, uint8_t state, uint32_t job)
{
	memset(s, 0, sizeof(*s));
	s->hs_time_ms = t;
	s->hs_state = state;
	s->hs_owner_milli = 350;
	s->hs_guest_milli = 1000;
	s->hs_idle = 912;
	s->hs_users = 2;
	strlcpy(s->hs_names, "ann,bob", sizeof(s->hs_names));
	s->hs_job = job;
	if (job != 0)
		strlcpy(s->hs_job_user, "carol", sizeof(s->hs_job_user));
}

static void
test_ring(void)
{
	static struct proto_hist_ring r;
	static struct proto_hist h;
	struct proto_hist_sample s;
	uint32_t i, since, got;
	int order = 1;

	proto_hist_ring_init(&r);
	proto_hist_ring_page(&r, 0, &h);
	ok(h.hi_first == 0 && h.hi_last == 0 && h.hi_n == 0 &&
	    proto_hist_ring_last(&r) == NULL, "an empty ring pages nothing");
	for (i = 0; i < 10; i++) {
		sample(&s, 1000 * i, PROTO_NS_IDLE, 0);
		proto_hist_ring_push(&r, &s);
	}
	proto_hist_ring_page(&r, 0, &h);
	ok(h.hi_first == 1 && h.hi_last == 10 && h.hi_n == 10 &&
	    h.hi_s[0].hs_seq == 1 && h.hi_s[9].hs_seq == 10 &&
	    h.hi_s[9].hs_time_ms == 9000, "ten samples, numbered 1..10");
	proto_hist_ring_page(&r, 7, &h);
	ok(h.hi_n == 3 && h.hi_s[0].hs_seq == 8, "since 7: 8, 9, 10");
	proto_hist_ring_page(&r, 10, &h);
	ok(h.hi_n == 0 && h.hi_last == 10, "since the last: nothing new");
	/* Past the bound: the oldest go, the numbers go on. */
	for (i = 10; i < PROTO_HIST_KEEP + 100; i++) {
		sample(&s, 1000 * i, i % 2 ? PROTO_NS_RUNNING : PROTO_NS_BUSY,
		    i % 2 ? 7 : 0);
		proto_hist_ring_push(&r, &s);
	}
	ok(r.hr_n == PROTO_HIST_KEEP && proto_hist_ring_last(&r)->hs_seq ==
	    PROTO_HIST_KEEP + 100, "the ring keeps %d samples", PROTO_HIST_KEEP);
	proto_hist_ring_page(&r, 5, &h);
	ok(h.hi_first == 101 && h.hi_last == PROTO_HIST_KEEP + 100 &&
	    h.hi_n == PROTO_HIST_PAGE && h.hi_s[0].hs_seq == 101,
	    "since a dropped number: from the oldest kept, one page");
	/* Paging through: every kept sample once, in order. */
	for (since = 0, got = 0; ; since = h.hi_s[h.hi_n - 1].hs_seq) {
		proto_hist_ring_page(&r, since, &h);
		if (h.hi_n == 0)
			break;
		for (i = 0; i < h.hi_n; i++)
			if (h.hi_s[i].hs_seq != h.hi_first + got + i ||
			    h.hi_s[i].hs_time_ms != 1000ull *
			    (h.hi_s[i].hs_seq - 1))
				order = 0;
		got += h.hi_n;
	}
	ok(got == PROTO_HIST_KEEP && order, "paging gives every kept sample "
	    "once, in order (%u)", got);
}

static void
test_names(void)
{
	const char *few[] = { "ann", "bob" };
	const char *many[40];
	char out[PROTO_HIST_NAMES_MAX + 1], name[40][16];
	int i;

	proto_hist_names(out, sizeof(out), few, 2);
	ok(strcmp(out, "ann,bob") == 0, "names: ann,bob");
	proto_hist_names(out, sizeof(out), few, 0);
	ok(out[0] == '\0', "no names: empty");
	for (i = 0; i < 40; i++) {
		snprintf(name[i], sizeof(name[i]), "user%02d", i);
		many[i] = name[i];
	}
	proto_hist_names(out, sizeof(out), many, 40);
	ok(strlen(out) <= PROTO_HIST_NAMES_MAX && strncmp(out, "user00,user01,",
	    14) == 0 && strcmp(out + strlen(out) - 4, ",...") == 0,
	    "too many names: cut at a name, ending ,... (%s)", out);
}

static void
test_codecs(void)
{
	static struct proto_hist h, h2;
	struct proto_hist_req q, q2;
	size_t n;
	int i;

	memset(&q, 0, sizeof(q));
	q.hq_since = 42;
	n = proto_hist_req_enc(&q, buf, sizeof(buf));
	ok(n == 5 && proto_hist_req_dec(&q2, buf, n) == 0 &&
	    q2.hq_since == 42 && !q2.hq_has_cookie, "HIST_REQ round trip");
	robust("HIST_REQ", rt_proto_hist_req, buf, n);
	q.hq_has_cookie = 1;
	memset(q.hq_cookie, 0xab, sizeof(q.hq_cookie));
	n = proto_hist_req_enc(&q, buf, sizeof(buf));
	ok(n == 21 && proto_hist_req_dec(&q2, buf, n) == 0 &&
	    q2.hq_has_cookie == 1 && q2.hq_cookie[15] == 0xab,
	    "HIST_REQ with a cookie round trip");
	robust("HIST_REQ with a cookie", rt_proto_hist_req, buf, n);

	memset(&h, 0, sizeof(h));
	strlcpy(h.hi_node, "127.0.0.3", sizeof(h.hi_node));
	h.hi_boot = 0x1122334455667788ull;
	h.hi_now_ms = 1790000000000ull;
	h.hi_first = 3;
	h.hi_last = 9;
	h.hi_n = 2;
	sample(&h.hi_s[0], 1790000000000ull, PROTO_NS_IDLE, 0);
	h.hi_s[0].hs_seq = 4;
	sample(&h.hi_s[1], 1790000005000ull, PROTO_NS_RUNNING, 7);
	h.hi_s[1].hs_seq = 6;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(n > 0 && proto_hist_dec(&h2, buf, n) == 0 && h2.hi_n == 2 &&
	    h2.hi_s[1].hs_job == 7 && strcmp(h2.hi_s[1].hs_job_user,
	    "carol") == 0 && strcmp(h2.hi_s[0].hs_names, "ann,bob") == 0 &&
	    h2.hi_s[0].hs_guest_milli == 1000 && h2.hi_boot == h.hi_boot,
	    "HIST round trip");
	robust("HIST", rt_proto_hist, buf, n);

	h.hi_s[1].hs_seq = 4;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: numbers must rise");
	h.hi_s[1].hs_seq = 10;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: a number past last "
	    "refused");
	h.hi_s[1].hs_seq = 6;
	h.hi_s[1].hs_state = PROTO_NS_MAX;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: an unknown state "
	    "refused");
	h.hi_s[1].hs_state = PROTO_NS_RUNNING;
	h.hi_s[1].hs_total = 8;
	h.hi_s[1].hs_lent = 5;
	h.hi_s[1].hs_running = 5;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == 0 && h2.hi_s[1].hs_total == 8 &&
	    h2.hi_s[1].hs_lent == 5 && h2.hi_s[1].hs_running == 5,
	    "HIST: a sample's processors, lent and running");
	h.hi_s[1].hs_lent = 9;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: more lent than there "
	    "are refused");
	h.hi_s[1].hs_lent = 5;
	h.hi_s[1].hs_running = 9;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: more running than "
	    "there are refused");
	h.hi_s[1].hs_running = 5;
	h.hi_first = 0;
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(proto_hist_dec(&h2, buf, n) == -1, "HIST: samples of an empty "
	    "range refused");
	h.hi_n = PROTO_HIST_PAGE + 1;
	ok(proto_hist_enc(&h, buf, sizeof(buf)) == 0, "HIST: more than a "
	    "page is not encoded");

	/* The fullest page: the longest names everywhere, still one message. */
	h.hi_first = 1;
	h.hi_last = PROTO_HIST_PAGE;
	h.hi_n = PROTO_HIST_PAGE;
	memset(h.hi_node, 'n', sizeof(h.hi_node) - 1);
	for (i = 0; i < PROTO_HIST_PAGE; i++) {
		sample(&h.hi_s[i], 1000 * (uint64_t)i, PROTO_NS_RUNNING, 9);
		h.hi_s[i].hs_seq = (uint32_t)i + 1;
		memset(h.hi_s[i].hs_names, 'u', PROTO_HIST_NAMES_MAX);
		memset(h.hi_s[i].hs_job_user, 'j', MSG_NAME_MAX);
	}
	n = proto_hist_enc(&h, buf, sizeof(buf));
	ok(n > 0 && n <= MSG_PAYLOAD_MAX && proto_hist_dec(&h2, buf, n) == 0,
	    "the fullest page fits in one message (%zu bytes)", n);
	ok(proto_hist_enc(&h, buf, 1000) == 0, "HIST: no room, no message");
}

int
main(void)
{
	test_ring();
	test_names();
	test_codecs();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
