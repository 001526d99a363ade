/*
 * Unit tests of proto_refuse: DESC_REFUSED round trips, and what its
 * decoder refuses (job 0, an empty or blank node, an empty reason or
 * one with control bytes, truncations, leftover bytes, bit flips).
 */
#include <stdio.h>
#include <string.h>

#include "proto_refuse.h"
#include "tap.h"
#include "codec_robust.h"

static int
dec(const uint8_t *b, size_t n)
{
	struct proto_desc_refused m;
	uint8_t again[512];
	size_t len;

	if (proto_desc_refused_dec(&m, b, n) == -1)
		return -1;
	len = proto_desc_refused_enc(&m, again, sizeof(again));
	return len == n && memcmp(again, b, n) == 0 ? 0 : 1;
}

static struct proto_desc_refused
good(void)
{
	struct proto_desc_refused m;

	memset(&m, 0, sizeof(m));
	m.rf_job = 12;
	m.rf_fetch = 0x1122334455667788ULL;
	strlcpy(m.rf_node, "127.0.0.3/1", sizeof(m.rf_node));
	strlcpy(m.rf_reason, "not started: the description is signed by "
	    "bob, not ann", sizeof(m.rf_reason));
	return m;
}

int
main(void)
{
	struct proto_desc_refused m = good(), e;
	uint8_t buf[512];
	size_t len, n;

	len = proto_desc_refused_enc(&m, buf, sizeof(buf));
	ok(len > 0, "encodes");
	ok(proto_desc_refused_dec(&e, buf, len) == 0 && e.rf_job == 12 &&
	    e.rf_fetch == m.rf_fetch && strcmp(e.rf_node, m.rf_node) == 0 &&
	    strcmp(e.rf_reason, m.rf_reason) == 0, "and decodes the same");
	robust("desc refused", dec, buf, len);
	ok(proto_desc_refused_enc(&m, buf, 20) == 0, "too small a buffer");
	memset(m.rf_reason, 'r', sizeof(m.rf_reason) - 1);
	m.rf_reason[sizeof(m.rf_reason) - 1] = '\0';
	memset(m.rf_node, 'n', sizeof(m.rf_node) - 1);
	m.rf_node[sizeof(m.rf_node) - 1] = '\0';
	ok((len = proto_desc_refused_enc(&m, buf, sizeof(buf))) > 0 &&
	    proto_desc_refused_dec(&e, buf, len) == 0,
	    "the longest node and reason round-trip");
	m = good();
	m.rf_job = 0;
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "job 0 is refused");
	m = good();
	m.rf_node[0] = '\0';
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "no node is refused");
	strlcpy(m.rf_node, "ws 2", sizeof(m.rf_node));
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "a node with a blank is refused");
	m = good();
	m.rf_reason[0] = '\0';
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "no reason is refused");
	strlcpy(m.rf_reason, "a\nb", sizeof(m.rf_reason));
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "a control byte in the reason is refused");
	m = good();
	m.rf_kind = PROTO_REFUSED_WITHDRAWN;
	ok((len = proto_desc_refused_enc(&m, buf, sizeof(buf))) > 0 &&
	    proto_desc_refused_dec(&e, buf, len) == 0 &&
	    e.rf_kind == PROTO_REFUSED_WITHDRAWN, "a withdrawal round-trips");
	m.rf_kind = PROTO_REFUSED_WITHDRAWN + 1;
	ok(proto_desc_refused_enc(&m, buf, sizeof(buf)) == 0,
	    "an unknown kind is refused");
	/* Hand-made refusals: the decoder checks what the encoder does. */
	m = good();
	strlcpy(m.rf_node, "ws2", sizeof(m.rf_node));
	strlcpy(m.rf_reason, "ab", sizeof(m.rf_reason));
	len = proto_desc_refused_enc(&m, buf, sizeof(buf));
	ok(len == 4 + 1 + 8 + 2 + 3 + 2 + 2, "a short one is %zu bytes", len);
	memset(buf, 0, 4);
	ok(proto_desc_refused_dec(&e, buf, len) == -1, "decoder: job 0");
	buf[3] = 1;
	buf[4] = 2;
	ok(proto_desc_refused_dec(&e, buf, len) == -1,
	    "decoder: an unknown kind");
	buf[4] = PROTO_REFUSED_WITHDRAWN;
	buf[16] = ' ';
	ok(proto_desc_refused_dec(&e, buf, len) == -1,
	    "decoder: a blank in the node");
	buf[16] = 's';
	buf[21] = 0x7f;
	ok(proto_desc_refused_dec(&e, buf, len) == -1,
	    "decoder: DEL in the reason");
	buf[21] = 'b';
	ok(proto_desc_refused_dec(&e, buf, len) == 0 &&
	    e.rf_kind == PROTO_REFUSED_WITHDRAWN, "decoder: fixed, taken");
	n = len;
	buf[18] = 0;
	buf[19] = 0;
	ok(proto_desc_refused_dec(&e, buf, n - 2) == -1,
	    "decoder: an empty reason");
	return tap_done();
}
