/*
 * wire_test — the big-endian field codec: every width round-trips with
 * its boundary values, byte order against literal bytes, the writer's
 * sticky overflow, readers that fail on short input without consuming,
 * wire_get_str's three refusals and wire_get_end with leftovers.
 */
#include "wire.h"

#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "tap.h"

static void	test_roundtrip(void);
static void	test_byte_order(void);
static void	test_overflow(void);
static void	test_short_reads(void);
static void	test_str(void);
static void	test_end(void);

static void
test_roundtrip(void)
{
	static const uint8_t v8[] = { 0, 1, 0x7f, 0x80, 0xfe, 0xff };
	static const uint16_t v16[] = { 0, 1, 0xff, 0x100, 0x7fff, 0x8000,
	    0xfffe, 0xffff };
	static const uint32_t v32[] = { 0, 1, 0xff, 0x100, 0xffff, 0x10000,
	    0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu };
	static const uint64_t v64[] = { 0, 1, 0xffffffffULL, 0x100000000ULL,
	    0x7fffffffffffffffULL, 0x8000000000000000ULL,
	    0xfffffffffffffffeULL, 0xffffffffffffffffULL,
	    0x0123456789abcdefULL };
	uint8_t buf[512], g8, blob[7] = { 9, 8, 7, 6, 5, 4, 3 }, back[7];
	uint16_t g16;
	uint32_t g32;
	uint64_t g64;
	struct wire_w w;
	struct wire_r r;
	size_t i, want;
	int bad;

	wire_w_init(&w, buf, sizeof(buf));
	for (i = 0; i < sizeof(v8); i++)
		wire_put_u8(&w, v8[i]);
	for (i = 0; i < sizeof(v16) / sizeof(v16[0]); i++)
		wire_put_u16(&w, v16[i]);
	for (i = 0; i < sizeof(v32) / sizeof(v32[0]); i++)
		wire_put_u32(&w, v32[i]);
	for (i = 0; i < sizeof(v64) / sizeof(v64[0]); i++)
		wire_put_u64(&w, v64[i]);
	wire_put_bytes(&w, blob, sizeof(blob));
	wire_put_bytes(&w, NULL, 0);
	wire_put_str(&w, "hello");
	wire_put_str(&w, "");
	is_int(wire_w_ok(&w), 0, "writer ok after the boundary values");
	want = sizeof(v8) + 2 * (sizeof(v16) / sizeof(v16[0])) +
	    4 * (sizeof(v32) / sizeof(v32[0])) +
	    8 * (sizeof(v64) / sizeof(v64[0])) + sizeof(blob) + 2 + 5 + 2;
	is_int(w.ww_len, want, "writer length is the sum of the widths");

	wire_r_init(&r, buf, w.ww_len);
	bad = 0;
	for (i = 0; i < sizeof(v8); i++)
		if (wire_get_u8(&r, &g8) != 0 || g8 != v8[i])
			bad++;
	is_int(bad, 0, "u8 boundary values round-trip");
	bad = 0;
	for (i = 0; i < sizeof(v16) / sizeof(v16[0]); i++)
		if (wire_get_u16(&r, &g16) != 0 || g16 != v16[i])
			bad++;
	is_int(bad, 0, "u16 boundary values round-trip");
	bad = 0;
	for (i = 0; i < sizeof(v32) / sizeof(v32[0]); i++)
		if (wire_get_u32(&r, &g32) != 0 || g32 != v32[i])
			bad++;
	is_int(bad, 0, "u32 boundary values round-trip");
	bad = 0;
	for (i = 0; i < sizeof(v64) / sizeof(v64[0]); i++)
		if (wire_get_u64(&r, &g64) != 0 || g64 != v64[i])
			bad++;
	is_int(bad, 0, "u64 boundary values round-trip");
	ok(wire_get_bytes(&r, back, sizeof(back)) == 0 &&
	    memcmp(back, blob, sizeof(blob)) == 0, "bytes round-trip");
	is_int(wire_get_bytes(&r, NULL, 0), 0, "zero bytes read");
	{
		char s[16];

		ok(wire_get_str(&r, s, sizeof(s)) == 0 &&
		    strcmp(s, "hello") == 0, "str round-trips");
		ok(wire_get_str(&r, s, sizeof(s)) == 0 && s[0] == '\0',
		    "empty str round-trips");
	}
	is_int(wire_get_end(&r), 0, "everything consumed");
}

static void
test_byte_order(void)
{
	static const uint8_t want[] = {
		0xa5,
		0x12, 0x34,
		0xde, 0xad, 0xbe, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x00, 0x03, 'a', 'b', 'c',
	};
	uint8_t buf[64];
	struct wire_w w;
	struct wire_r r;
	uint16_t g16;
	uint32_t g32;
	uint64_t g64;
	const uint8_t *p;

	memset(buf, 0xee, sizeof(buf));
	wire_w_init(&w, buf, sizeof(buf));
	wire_put_u8(&w, 0xa5);
	wire_put_u16(&w, 0x1234);
	wire_put_u32(&w, 0xdeadbeef);
	wire_put_u64(&w, 0x0123456789abcdefULL);
	wire_put_str(&w, "abc");
	is_int(w.ww_len, sizeof(want), "encoded length");
	ok(memcmp(buf, want, sizeof(want)) == 0,
	    "big-endian encoding matches the literal bytes");
	is_int(buf[sizeof(want)], 0xee, "nothing written past the end");

	wire_r_init(&r, want + 1, 2);
	ok(wire_get_u16(&r, &g16) == 0 && g16 == 0x1234,
	    "u16 decodes 12 34 as 0x1234");
	wire_r_init(&r, want + 3, 4);
	ok(wire_get_u32(&r, &g32) == 0 && g32 == 0xdeadbeef,
	    "u32 decodes de ad be ef as 0xdeadbeef");
	wire_r_init(&r, want + 7, 8);
	ok(wire_get_u64(&r, &g64) == 0 && g64 == 0x0123456789abcdefULL,
	    "u64 decodes 01..ef as 0x0123456789abcdef");
	wire_r_init(&r, want, sizeof(want));
	ok(wire_get_ref(&r, &p, 3) == 0 && p == want && r.wr_left ==
	    sizeof(want) - 3 && r.wr_p == want + 3,
	    "get_ref points into the buffer and advances");
}

static void
test_overflow(void)
{
	uint8_t buf[16], guard[4];
	struct wire_w w;
	size_t i;

	memset(buf, 0, sizeof(buf));
	wire_w_init(&w, buf, 7);
	wire_put_u32(&w, 0x01020304);
	wire_put_u16(&w, 0x0506);
	is_int(wire_w_ok(&w), 0, "6 of 7 bytes: ok");
	wire_put_u16(&w, 0x0708);
	is_int(wire_w_ok(&w), -1, "u16 into 1 byte of room overflows");
	is_int(w.ww_len, 6, "the failed write left the length alone");
	is_int(buf[6], 0, "and wrote nothing");
	wire_put_u8(&w, 0x09);
	is_int(w.ww_len, 6, "overflow sticks: a fitting u8 is refused");
	is_int(buf[6], 0, "and not written");
	is_int(wire_w_ok(&w), -1, "still overflowed");

	/* Every width into a buffer one byte too small. */
	for (i = 0; i < 4; i++) {
		static const size_t width[] = { 1, 2, 4, 8 };

		memset(buf, 0, sizeof(buf));
		wire_w_init(&w, buf, width[i] - 1);
		switch (i) {
		case 0:
			wire_put_u8(&w, 0xff);
			break;
		case 1:
			wire_put_u16(&w, 0xffff);
			break;
		case 2:
			wire_put_u32(&w, 0xffffffff);
			break;
		default:
			wire_put_u64(&w, UINT64_MAX);
			break;
		}
		ok(wire_w_ok(&w) == -1 && w.ww_len == 0 && buf[0] == 0,
		    "%zu-byte put into %zu bytes overflows, writes nothing",
		    width[i], width[i] - 1);
	}
	wire_w_init(&w, buf, 3);
	wire_put_bytes(&w, guard, 4);
	ok(wire_w_ok(&w) == -1 && w.ww_len == 0, "bytes overflow");
	wire_w_init(&w, buf, 4);
	wire_put_str(&w, "abc");
	ok(wire_w_ok(&w) == -1, "str of 2 + 3 bytes into 4 overflows");
	wire_w_init(&w, buf, 5);
	wire_put_str(&w, "abc");
	ok(wire_w_ok(&w) == 0 && w.ww_len == 5, "str of 2 + 3 into 5 fits");
	{
		static char big[70000];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		wire_w_init(&w, buf, sizeof(buf));
		wire_put_str(&w, big);
		ok(wire_w_ok(&w) == -1 && w.ww_len == 0,
		    "str longer than 65535 overflows without writing");
	}
	wire_w_init(&w, buf, 0);
	wire_put_bytes(&w, NULL, 0);
	is_int(wire_w_ok(&w), 0, "zero bytes into zero room is fine");
}

static void
test_short_reads(void)
{
	static const uint8_t src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct wire_r r;
	uint8_t g8 = 0xaa, dst[8];
	uint16_t g16 = 0xaaaa;
	uint32_t g32 = 0xaaaaaaaa;
	uint64_t g64 = 0xaaaaaaaaaaaaaaaaULL;
	const uint8_t *p = NULL;
	size_t n;
	int bad;

	wire_r_init(&r, src, 0);
	ok(wire_get_u8(&r, &g8) == -1 && g8 == 0xaa && r.wr_left == 0,
	    "u8 from 0 bytes fails, untouched");
	bad = 0;
	for (n = 0; n < 2; n++) {
		wire_r_init(&r, src, n);
		if (wire_get_u16(&r, &g16) != -1 || g16 != 0xaaaa ||
		    r.wr_left != n || r.wr_p != src)
			bad++;
	}
	is_int(bad, 0, "u16 from 0..1 bytes fails without consuming");
	bad = 0;
	for (n = 0; n < 4; n++) {
		wire_r_init(&r, src, n);
		if (wire_get_u32(&r, &g32) != -1 || g32 != 0xaaaaaaaa ||
		    r.wr_left != n || r.wr_p != src)
			bad++;
	}
	is_int(bad, 0, "u32 from 0..3 bytes fails without consuming");
	bad = 0;
	for (n = 0; n < 8; n++) {
		wire_r_init(&r, src, n);
		if (wire_get_u64(&r, &g64) != -1 ||
		    g64 != 0xaaaaaaaaaaaaaaaaULL || r.wr_left != n ||
		    r.wr_p != src)
			bad++;
	}
	is_int(bad, 0, "u64 from 0..7 bytes fails without consuming");
	bad = 0;
	for (n = 0; n < 8; n++) {
		memset(dst, 0xaa, sizeof(dst));
		wire_r_init(&r, src, n);
		if (wire_get_bytes(&r, dst, n + 1) != -1 || dst[0] != 0xaa ||
		    r.wr_left != n || r.wr_p != src)
			bad++;
		wire_r_init(&r, src, n);
		if (wire_get_ref(&r, &p, n + 1) != -1 || p != NULL ||
		    r.wr_left != n)
			bad++;
	}
	is_int(bad, 0, "bytes and ref of n+1 from n fail without consuming");

	/* A failed read in the middle leaves the cursor where it was. */
	wire_r_init(&r, src, 7);
	ok(wire_get_u32(&r, &g32) == 0 && g32 == 0x01020304,
	    "u32 from 7 bytes");
	ok(wire_get_u32(&r, &g32) == -1 && r.wr_left == 3 &&
	    r.wr_p == src + 4, "second u32 fails, cursor at 4");
	ok(wire_get_u16(&r, &g16) == 0 && g16 == 0x0506,
	    "a u16 still reads what is left");
	ok(wire_get_u8(&r, &g8) == 0 && g8 == 7 && wire_get_end(&r) == 0,
	    "and a u8 ends it");
}

static void
test_str(void)
{
	uint8_t buf[64];
	struct wire_r r, save;
	char dst[8];

	/* Length larger than what is left. */
	memcpy(buf, "\x00\x05" "abcd", 6);
	wire_r_init(&r, buf, 6);
	save = r;
	memset(dst, 'Z', sizeof(dst));
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1,
	    "str with length 5 and 4 bytes left fails");
	ok(r.wr_p == save.wr_p && r.wr_left == save.wr_left,
	    "and consumes nothing");
	is_int(dst[0], 'Z', "and writes nothing");

	/* Length >= dstsz. */
	memcpy(buf, "\x00\x08" "abcdefgh", 10);
	wire_r_init(&r, buf, 10);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1 && r.wr_left == 10,
	    "str of 8 bytes into dstsz 8 fails (no room for NUL)");
	memcpy(buf, "\x00\x07" "abcdefg", 9);
	wire_r_init(&r, buf, 9);
	ok(wire_get_str(&r, dst, sizeof(dst)) == 0 &&
	    strcmp(dst, "abcdefg") == 0 && r.wr_left == 0,
	    "str of 7 bytes into dstsz 8 fits");
	wire_r_init(&r, buf, 9);
	ok(wire_get_str(&r, dst, 0) == -1 && r.wr_left == 9,
	    "dstsz 0 fails");
	memcpy(buf, "\x00\x00", 2);
	wire_r_init(&r, buf, 2);
	ok(wire_get_str(&r, dst, 1) == 0 && dst[0] == '\0',
	    "empty str into dstsz 1 fits");

	/* Embedded NUL, at the start, middle and end. */
	memcpy(buf, "\x00\x03" "a\0c", 5);
	wire_r_init(&r, buf, 5);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1 && r.wr_left == 5,
	    "str with NUL in the middle fails without consuming");
	memcpy(buf, "\x00\x03" "\0bc", 5);
	wire_r_init(&r, buf, 5);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1, "leading NUL fails");
	memcpy(buf, "\x00\x03" "ab\0", 5);
	wire_r_init(&r, buf, 5);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1, "trailing NUL fails");

	/* Truncated length prefix. */
	wire_r_init(&r, buf, 1);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1 && r.wr_left == 1,
	    "str with a 1-byte length prefix fails without consuming");
	/* Large length in the prefix. */
	memcpy(buf, "\xff\xff" "abc", 5);
	wire_r_init(&r, buf, 5);
	ok(wire_get_str(&r, dst, sizeof(dst)) == -1 && r.wr_left == 5,
	    "str with length 65535 fails");
}

static void
test_end(void)
{
	static const uint8_t src[3] = { 1, 2, 3 };
	struct wire_r r;
	uint8_t g;

	wire_r_init(&r, src, 3);
	is_int(wire_get_end(&r), -1, "3 bytes left: not the end");
	(void)wire_get_u8(&r, &g);
	(void)wire_get_u8(&r, &g);
	is_int(wire_get_end(&r), -1, "1 byte left: not the end");
	(void)wire_get_u8(&r, &g);
	is_int(wire_get_end(&r), 0, "0 bytes left: the end");
	wire_r_init(&r, NULL, 0);
	is_int(wire_get_end(&r), 0, "empty input is at its end");
}

int
main(void)
{
	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	test_roundtrip();
	test_byte_order();
	test_overflow();
	test_short_reads();
	test_str();
	test_end();
	return tap_done();
}
