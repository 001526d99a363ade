/*
 * msg_frag_test — cutting a sealed message into datagrams and putting it
 * back: any order, duplicates, interleaving, every lie a fragment header
 * can tell, memory bounds per sender and in total under a storm of
 * reassemblies, and timeouts.
 */
#include "msg_frag.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "tap.h"

#define BLOB	60000
#define NFRAG_MAX	MSG_FRAG_COUNT_MAX

/* Fragment header offsets. */
#define F_MAGIC		0
#define F_VERSION	1
#define F_KIND		2
#define F_RESERVED	3
#define F_MSGID		4
#define F_INDEX		8
#define F_COUNT		10
#define F_TOTAL		12

static uint8_t	blob[MSG_SEALED_MAX];
static uint8_t	frag[NFRAG_MAX][MSG_DGRAM_MAX + 1];
static size_t	fraglen[NFRAG_MAX];
static uint8_t	got[MSG_SEALED_MAX];
static size_t	gotlen;
static struct msg_addr from_a, from_b;

static size_t	cut(uint32_t, const uint8_t *, size_t);
static void	put16(uint8_t *, uint16_t);
static void	put32(uint8_t *, uint32_t);
static enum msg_drop feed(struct msg_frag *, const struct msg_addr *,
		    const uint8_t *, size_t, double, int *);
static int	reassemble(struct msg_frag *, const size_t *, size_t, size_t,
		    size_t);
static void	test_count_build(void);
static void	test_orders(void);
static void	test_interleave(void);
static void	test_lies(void);
static void	test_storm(void);
static void	test_timeout(void);
static void	test_fair(void);

/* Cuts blob[0..len) into frag[], returning the count. */
static size_t
cut(uint32_t msgid, const uint8_t *src, size_t len)
{
	size_t i, n = msg_frag_count(len);

	for (i = 0; i < n && i < NFRAG_MAX; i++)
		fraglen[i] = msg_frag_build(msgid, i, src, len, frag[i]);
	return n;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

/*
 * Feeds one datagram from an exact-size copy (so ASan sees over-reads);
 * on completion copies the message to got and sets *done.
 */
static enum msg_drop
feed(struct msg_frag *f, const struct msg_addr *from, const uint8_t *d,
    size_t len, double now, int *done)
{
	const uint8_t *whole = (const uint8_t *)"sentinel";
	size_t wholelen = 0;
	enum msg_drop r;
	uint8_t *copy;

	if ((copy = malloc(len ? len : 1)) == NULL) {
		printf("Bail out! malloc\n");
		exit(1);
	}
	if (len > 0)
		memcpy(copy, d, len);
	r = msg_frag_input(f, from, copy, len, now, &whole, &wholelen);
	free(copy);
	if (done != NULL)
		*done = 0;
	if (whole != NULL) {
		if (r != MSG_DROP_NONE || wholelen > sizeof(got)) {
			printf("# whole set with reason %d, %zu bytes\n", r,
			    wholelen);
			return MSG_DROP_MAX;
		}
		memcpy(got, whole, wholelen);
		gotlen = wholelen;
		if (done != NULL)
			*done = 1;
	}
	return r;
}

/*
 * Feeds the fragments in the order given; 1 if the message completed
 * exactly at the last one, came out identical to blob[0..len), and no
 * memory is left held.
 */
static int
reassemble(struct msg_frag *f, const size_t *order, size_t n, size_t nfrag,
    size_t len)
{
	size_t i;
	int done, completed = 0;

	gotlen = 0;
	for (i = 0; i < n; i++) {
		if (feed(f, &from_a, frag[order[i]], fraglen[order[i]], 1.0,
		    &done) != MSG_DROP_NONE)
			return 0;
		if (done) {
			if (completed++ || i != n - 1) {
				printf("# completed at %zu of %zu\n", i, n);
				return 0;
			}
		}
	}
	(void)nfrag;
	return completed == 1 && gotlen == len &&
	    memcmp(got, blob, len) == 0 && msg_frag_bytes(f) == 0;
}

static void
test_count_build(void)
{
	size_t n, i, total;
	int bad;

	is_int(msg_frag_count(0), 1, "count(0) = 1");
	is_int(msg_frag_count(MSG_DGRAM_MAX), 1, "count(MSG_DGRAM_MAX) = 1");
	is_int(msg_frag_count(MSG_DGRAM_MAX + 1), 2,
	    "count(MSG_DGRAM_MAX + 1) = 2");
	is_int(msg_frag_count(2 * MSG_FRAG_DATA), 2, "count(2 * data) = 2");
	is_int(msg_frag_count(2 * MSG_FRAG_DATA + 1), 3,
	    "count(2 * data + 1) = 3");
	is_int(msg_frag_count(MSG_SEALED_MAX), MSG_FRAG_COUNT_MAX,
	    "count(MSG_SEALED_MAX) = MSG_FRAG_COUNT_MAX (%d)",
	    MSG_FRAG_COUNT_MAX);

	randombytes_buf(blob, sizeof(blob));
	n = cut(0x01020304, blob, BLOB);
	is_int(n, (BLOB + MSG_FRAG_DATA - 1) / MSG_FRAG_DATA,
	    "60000 bytes need %zu fragments", n);
	bad = 0;
	total = 0;
	for (i = 0; i < n; i++) {
		if (fraglen[i] > MSG_DGRAM_MAX || fraglen[i] <= MSG_FRAG_HDR)
			bad++;
		if (i + 1 < n && fraglen[i] != MSG_DGRAM_MAX)
			bad++;
		total += fraglen[i] - MSG_FRAG_HDR;
	}
	is_int(bad, 0, "every fragment <= MSG_DGRAM_MAX, all but the last "
	    "full");
	is_int(total, BLOB, "fragment data adds up to the message");
	ok(frag[1][F_MAGIC] == MSG_MAGIC && frag[1][F_VERSION] ==
	    MSG_VERSION && frag[1][F_KIND] == MSG_KIND_FRAGMENT &&
	    frag[1][F_RESERVED] == 0 && memcmp(frag[1] + F_MSGID,
	    "\x01\x02\x03\x04", 4) == 0 && frag[1][F_INDEX] == 0 &&
	    frag[1][F_INDEX + 1] == 1 && frag[1][F_COUNT + 1] == n &&
	    frag[1][F_TOTAL + 2] == (BLOB >> 8 & 0xff) &&
	    frag[1][F_TOTAL + 3] == (BLOB & 0xff),
	    "fragment 1 header bytes: magic, version, kind, 0, msgid, "
	    "index, count, total");
	ok(memcmp(frag[1] + MSG_FRAG_HDR, blob + MSG_FRAG_DATA,
	    MSG_FRAG_DATA) == 0, "fragment 1 carries bytes 1456..2911");
	ok(memcmp(frag[n - 1] + MSG_FRAG_HDR, blob + (n - 1) * MSG_FRAG_DATA,
	    BLOB - (n - 1) * MSG_FRAG_DATA) == 0, "the last carries the rest");
}

static void
test_orders(void)
{
	struct msg_frag *f;
	size_t order[2 * NFRAG_MAX] = { 0 }, n, i, j, t;
	static const size_t sizes[] = { MSG_DGRAM_MAX + 1, 2 * MSG_FRAG_DATA,
	    2 * MSG_FRAG_DATA + 1, BLOB, MSG_SEALED_MAX };

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL,
	    MSG_FRAG_TIMEOUT);
	ok(f != NULL, "msg_frag_new");
	randombytes_buf(blob, sizeof(blob));
	n = cut(7, blob, BLOB);
	for (i = 0; i < n; i++)
		order[i] = i;
	ok(reassemble(f, order, n, n, BLOB), "in order: identical bytes");
	for (i = 0; i < n; i++)
		order[i] = n - 1 - i;
	ok(reassemble(f, order, n, n, BLOB), "reverse order: identical");
	for (t = 0; t < 5; t++) {
		for (i = 0; i < n; i++)
			order[i] = i;
		for (i = n - 1; i > 0; i--) {
			size_t k = randombytes_uniform((uint32_t)i + 1), x;

			x = order[i];
			order[i] = order[k];
			order[k] = x;
		}
		ok(reassemble(f, order, n, n, BLOB),
		    "random order %zu: identical", t + 1);
	}
	/* Every fragment twice (the duplicate right after), last once. */
	for (i = 0, j = 0; i < n; i++) {
		order[j++] = i;
		if (i + 1 < n)
			order[j++] = i;
	}
	ok(reassemble(f, order, j, n, BLOB), "with duplicates: identical");
	/* Duplicates that arrive much later, after other fragments. */
	for (i = 0, j = 0; i + 1 < n; i++)
		order[j++] = i;
	for (i = 0; i + 1 < n; i += 3)
		order[j++] = i;
	order[j++] = n - 1;
	ok(reassemble(f, order, j, n, BLOB), "with late duplicates: identical");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		randombytes_buf(blob, sizes[i]);
		n = cut(100 + (uint32_t)i, blob, sizes[i]);
		for (j = 0; j < n; j++)
			order[j] = n - 1 - j;
		ok(reassemble(f, order, n, n, sizes[i]),
		    "%zu bytes in %zu fragments, reversed: identical",
		    sizes[i], n);
	}
	msg_frag_free(f);
	msg_frag_free(NULL);
}

static void
test_interleave(void)
{
	static uint8_t blob2[BLOB], fragb[NFRAG_MAX][MSG_DGRAM_MAX];
	static size_t lenb[NFRAG_MAX];
	struct msg_frag *f;
	size_t n, i;
	int done, done_a = 0, done_b = 0, ok_a = 0, ok_b = 0;

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL,
	    MSG_FRAG_TIMEOUT);
	randombytes_buf(blob, BLOB);
	randombytes_buf(blob2, BLOB);
	n = msg_frag_count(BLOB);
	for (i = 0; i < n; i++)
		lenb[i] = msg_frag_build(55, i, blob2, BLOB, fragb[i]);
	(void)cut(55, blob, BLOB);	/* the same msgid from A */
	for (i = 0; i < n; i++) {
		if (feed(f, &from_a, frag[i], fraglen[i], 1.0, &done) ==
		    MSG_DROP_NONE && done) {
			done_a++;
			ok_a = gotlen == BLOB && memcmp(got, blob, BLOB) == 0;
		}
		if (feed(f, &from_b, fragb[n - 1 - i], lenb[n - 1 - i], 1.0,
		    &done) == MSG_DROP_NONE && done) {
			done_b++;
			ok_b = gotlen == BLOB && memcmp(got, blob2, BLOB) == 0;
		}
	}
	ok(done_a == 1 && ok_a, "sender A's message, interleaved: identical");
	ok(done_b == 1 && ok_b,
	    "sender B's message with the same msgid, reversed: identical");
	is_int(msg_frag_bytes(f), 0, "nothing held afterwards");

	/* Two messages from one sender, interleaved. */
	for (i = 0; i < n; i++)
		lenb[i] = msg_frag_build(56, i, blob2, BLOB, fragb[i]);
	done_a = done_b = ok_a = ok_b = 0;
	for (i = 0; i < n; i++) {
		if (feed(f, &from_a, fragb[i], lenb[i], 1.0, &done) ==
		    MSG_DROP_NONE && done) {
			done_b++;
			ok_b = gotlen == BLOB && memcmp(got, blob2, BLOB) == 0;
		}
		if (feed(f, &from_a, frag[i], fraglen[i], 1.0, &done) ==
		    MSG_DROP_NONE && done) {
			done_a++;
			ok_a = gotlen == BLOB && memcmp(got, blob, BLOB) == 0;
		}
	}
	ok(done_a == 1 && ok_a && done_b == 1 && ok_b,
	    "two msgids from one sender, interleaved: both identical");
	is_int(msg_frag_bytes(f), 0, "nothing held afterwards");

	/* A's fragments do not complete B's reassembly. */
	(void)feed(f, &from_b, fragb[0], lenb[0], 1.0, NULL);
	done_b = 0;
	for (i = 1; i < n; i++)
		if (feed(f, &from_a, fragb[i], lenb[i], 1.0, &done) ==
		    MSG_DROP_NONE && done)
			done_b++;
	is_int(done_b, 0, "fragments from another address never complete "
	    "a reassembly");
	is_int(msg_frag_bytes(f), 2 * BLOB, "two partial reassemblies held");
	msg_frag_free(f);	/* ASan: nothing leaks */
}

static void
test_lies(void)
{
	struct msg_frag *f;
	uint8_t d[MSG_DGRAM_MAX + 8];
	size_t n, last, lastlen;
	int done;
	struct {
		const char	*what;
		int		 field;		/* offset, or -1 */
		int		 width;
		uint32_t	 value;
		int		 lendelta;
		int		 which;		/* 0 first, 1 last */
		enum msg_drop	 want;
	} lies[] = {
		{ "count 0", F_COUNT, 2, 0, 0, 0, MSG_DROP_BAD_LENGTH },
		{ "count 1", F_COUNT, 2, 1, 0, 0, MSG_DROP_BAD_LENGTH },
		{ "count 41 (one short)", F_COUNT, 2, 41, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "count 43 (one over)", F_COUNT, 2, 43, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "count MSG_FRAG_COUNT_MAX + 1", F_COUNT, 2,
		    MSG_FRAG_COUNT_MAX + 1, 0, 0, MSG_DROP_BAD_LENGTH },
		{ "count 65535", F_COUNT, 2, 65535, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "index == count", F_INDEX, 2, 42, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "index 65535", F_INDEX, 2, 65535, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "index 64 (past the bitmap)", F_INDEX, 2, 64, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "total 59696 (41 fragments' worth)", F_TOTAL, 4, 59696, 0,
		    0, MSG_DROP_BAD_LENGTH },
		{ "total 61153 (43 fragments' worth)", F_TOTAL, 4, 61153, 0,
		    0, MSG_DROP_BAD_LENGTH },
		{ "total 0", F_TOTAL, 4, 0, 0, 0, MSG_DROP_BAD_LENGTH },
		{ "total MSG_DGRAM_MAX", F_TOTAL, 4, MSG_DGRAM_MAX, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "total MSG_SEALED_MAX + 1", F_TOTAL, 4, MSG_SEALED_MAX + 1,
		    0, 0, MSG_DROP_BAD_LENGTH },
		{ "total 0xffffffff", F_TOTAL, 4, 0xffffffffu, 0, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "non-last fragment 1 byte short", -1, 0, 0, -1, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "non-last fragment 1 byte long", -1, 0, 0, 1, 0,
		    MSG_DROP_BAD_LENGTH },
		{ "last fragment 1 byte short", -1, 0, 0, -1, 1,
		    MSG_DROP_BAD_LENGTH },
		{ "last fragment 1 byte long", -1, 0, 0, 1, 1,
		    MSG_DROP_BAD_LENGTH },
		{ "last fragment 8 bytes long", -1, 0, 0, 8, 1,
		    MSG_DROP_BAD_LENGTH },
		{ "non-last index with the last's length", F_INDEX, 2, 40, 0,
		    1, MSG_DROP_BAD_LENGTH },
		{ "bad magic", F_MAGIC, 1, 0xc0, 0, 0, MSG_DROP_BAD_HEADER },
		{ "version 0", F_VERSION, 1, 0, 0, 0, MSG_DROP_BAD_HEADER },
		{ "version 2", F_VERSION, 1, 2, 0, 0, MSG_DROP_BAD_HEADER },
		{ "kind message", F_KIND, 1, MSG_KIND_MESSAGE, 0, 0,
		    MSG_DROP_BAD_HEADER },
		{ "kind 3", F_KIND, 1, 3, 0, 0, MSG_DROP_BAD_HEADER },
		{ "reserved byte 1", F_RESERVED, 1, 1, 0, 0,
		    MSG_DROP_BAD_HEADER },
		{ "reserved byte 0x80", F_RESERVED, 1, 0x80, 0, 0,
		    MSG_DROP_BAD_HEADER },
	};
	size_t i, k;
	int held;

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL,
	    MSG_FRAG_TIMEOUT);
	randombytes_buf(blob, BLOB);
	n = cut(9, blob, BLOB);
	is_int(n, 42, "60000 bytes are 42 fragments (the lies assume it)");
	last = n - 1;
	lastlen = fraglen[last];
	held = 0;
	for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		size_t src = lies[i].which ? last : 0;
		size_t len = fraglen[src];

		memset(d, 0xab, sizeof(d));
		memcpy(d, frag[src], len);
		if (lies[i].field >= 0) {
			if (lies[i].width == 1)
				d[lies[i].field] = (uint8_t)lies[i].value;
			else if (lies[i].width == 2)
				put16(d + lies[i].field,
				    (uint16_t)lies[i].value);
			else
				put32(d + lies[i].field, lies[i].value);
		}
		len = (size_t)((long)len + lies[i].lendelta);
		is_int(feed(f, &from_a, d, len, 1.0, &done), lies[i].want,
		    "%s: %s", lies[i].what, msg_drop_name(lies[i].want));
		if (msg_frag_bytes(f) != 0)
			held++;
	}
	is_int(held, 0, "no lie left any memory held");
	(void)lastlen;

	/* Runts and oversize datagrams. */
	for (k = 0; k <= MSG_FRAG_HDR; k++)
		if (feed(f, &from_a, frag[0], k, 1.0, NULL) !=
		    MSG_DROP_BAD_LENGTH)
			break;
	is_int(k, MSG_FRAG_HDR + 1,
	    "datagrams of 0..16 bytes: all bad length");
	memcpy(d, frag[0], MSG_DGRAM_MAX);
	is_int(feed(f, &from_a, d, MSG_DGRAM_MAX + 1, 1.0, NULL),
	    MSG_DROP_BAD_LENGTH, "MSG_DGRAM_MAX + 1 bytes: bad length");

	/* Truncating any fragment at any byte is refused, holding nothing. */
	held = 0;
	for (k = 0; k < fraglen[0]; k++)
		if (feed(f, &from_a, frag[0], k, 1.0, NULL) == MSG_DROP_NONE ||
		    msg_frag_bytes(f) != 0)
			held++;
	for (k = 0; k < fraglen[last]; k++)
		if (feed(f, &from_a, frag[last], k, 1.0, NULL) ==
		    MSG_DROP_NONE || msg_frag_bytes(f) != 0)
			held++;
	is_int(held, 0, "every truncation of the first and last fragment "
	    "refused, nothing held");

	/* A later fragment that disagrees with the reassembly it joins. */
	is_int(feed(f, &from_a, frag[0], fraglen[0], 1.0, NULL),
	    MSG_DROP_NONE, "first fragment starts a reassembly");
	is_int(msg_frag_bytes(f), BLOB, "holding 60000 bytes");
	{
		static uint8_t other[BLOB + 2000], o[MSG_DGRAM_MAX];
		size_t ol;

		randombytes_buf(other, sizeof(other));
		ol = msg_frag_build(9, 1, other, BLOB + 2000, o);
		is_int(feed(f, &from_a, o, ol, 1.0, NULL),
		    MSG_DROP_BAD_HEADER, "same msgid, other count and total: "
		    "bad header");
		ol = msg_frag_build(9, 1, other, BLOB + 100, o);
		is_int(feed(f, &from_a, o, ol, 1.0, NULL),
		    MSG_DROP_BAD_HEADER, "same msgid and count, other total: "
		    "bad header");
	}
	is_int(msg_frag_bytes(f), BLOB, "still only the one reassembly");
	/* The honest rest still completes it. */
	for (k = 1, done = 0; k < n; k++)
		(void)feed(f, &from_a, frag[k], fraglen[k], 1.0, &done);
	ok(done && gotlen == BLOB && memcmp(got, blob, BLOB) == 0,
	    "and the honest fragments still complete it");
	is_int(msg_frag_bytes(f), 0, "nothing held");
	msg_frag_free(f);
}

static void
test_storm(void)
{
	struct msg_frag *f;
	struct msg_addr from;
	size_t n, max_bytes = 0, per_sender = 3 * BLOB, total = 20 * BLOB;
	unsigned dropped = 0, started = 0, other = 0;
	uint32_t id;
	enum msg_drop d;

	randombytes_buf(blob, BLOB);
	f = msg_frag_new(per_sender, total, MSG_FRAG_TIMEOUT);
	for (id = 0; id < 1000; id++) {
		n = cut(1000 + id, blob, BLOB);
		d = feed(f, &from_a, frag[id % n], fraglen[id % n], 1.0, NULL);
		if (d == MSG_DROP_NONE)
			started++;
		else if (d == MSG_DROP_REASSEMBLY)
			dropped++;
		else
			other++;
		if (msg_frag_bytes(f) > max_bytes)
			max_bytes = msg_frag_bytes(f);
	}
	ok(max_bytes <= per_sender, "1000 msgids from one sender: at most %zu "
	    "bytes held (per_sender %zu)", max_bytes, per_sender);
	is_int(started, 3, "3 reassemblies fit");
	is_int(dropped, 997, "the other 997 dropped as reassembly");
	is_int(other, 0, "no other reason");
	/* Another sender is not starved by the first one's storm. */
	n = cut(5, blob, BLOB);
	is_int(feed(f, &from_b, frag[0], fraglen[0], 1.0, NULL),
	    MSG_DROP_NONE, "another sender can still start one");
	msg_frag_free(f);

	/* Many senders: bounded by the total. */
	f = msg_frag_new(per_sender, total, MSG_FRAG_TIMEOUT);
	max_bytes = 0;
	started = dropped = other = 0;
	memset(&from, 0, sizeof(from));
	from.ma_family = 4;
	from.ma_addr[0] = 10;
	for (id = 0; id < 500; id++) {
		from.ma_addr[2] = (uint8_t)(id >> 8);
		from.ma_addr[3] = (uint8_t)id;
		from.ma_port = (uint16_t)(7000 + id);
		n = cut(id, blob, BLOB);
		d = feed(f, &from, frag[1], fraglen[1], 1.0, NULL);
		if (d == MSG_DROP_NONE)
			started++;
		else if (d == MSG_DROP_REASSEMBLY)
			dropped++;
		else
			other++;
		if (msg_frag_bytes(f) > max_bytes)
			max_bytes = msg_frag_bytes(f);
	}
	ok(max_bytes <= total, "500 senders: at most %zu bytes held (total "
	    "%zu)", max_bytes, total);
	is_int(msg_frag_bytes(f) / BLOB, 20,
	    "20 reassemblies of 60000 fit in the total");
	is_int(started, 500, "each of 500 hosts holding one displaces the "
	    "oldest of the others");
	is_int(other + dropped, 0, "none dropped, no other reason");
	msg_frag_free(f);

	/* Many small reassemblies: bounded in number too. */
	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL,
	    MSG_FRAG_TIMEOUT);
	started = dropped = other = 0;
	for (id = 0; id < 1000; id++) {
		from.ma_addr[2] = (uint8_t)(id >> 8);
		from.ma_addr[3] = (uint8_t)id;
		n = cut(id, blob, MSG_DGRAM_MAX + 1);
		d = feed(f, &from, frag[0], fraglen[0], 1.0, NULL);
		if (d == MSG_DROP_NONE)
			started++;
		else if (d == MSG_DROP_REASSEMBLY)
			dropped++;
		else
			other++;
	}
	ok(started == 1000 && dropped == 0 && other == 0,
	    "1000 small reassemblies from 1000 hosts: each displaces the "
	    "oldest (%u started, %u dropped)", started, dropped);
	ok(msg_frag_bytes(f) == 256 * (size_t)(MSG_DGRAM_MAX + 1),
	    "256 held at once, msg_frag_bytes counts them: %zu",
	    msg_frag_bytes(f));
	/* A storm expires. */
	is_int(msg_frag_expire(f, 1.0 + MSG_FRAG_TIMEOUT), 256,
	    "all of them expire after the timeout");
	is_int(msg_frag_bytes(f), 0, "nothing held");
	msg_frag_free(f);

	/* The default per-sender bound admits one largest message. */
	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL,
	    MSG_FRAG_TIMEOUT);
	randombytes_buf(blob, MSG_SEALED_MAX);
	n = cut(1, blob, MSG_SEALED_MAX);
	is_int(feed(f, &from_a, frag[0], fraglen[0], 1.0, NULL), MSG_DROP_NONE,
	    "a largest message starts");
	n = cut(2, blob, MSG_SEALED_MAX);
	is_int(feed(f, &from_a, frag[0], fraglen[0], 1.0, NULL), MSG_DROP_NONE,
	    "and a second");
	n = cut(3, blob, MSG_SEALED_MAX);
	is_int(feed(f, &from_a, frag[0], fraglen[0], 1.0, NULL),
	    MSG_DROP_REASSEMBLY, "a third from the same sender is refused");
	ok(msg_frag_bytes(f) <= MSG_FRAG_PER_SENDER, "within the default "
	    "per-sender bound");
	msg_frag_free(f);
}

static void
test_timeout(void)
{
	struct msg_frag *f;
	size_t n, i;
	int done;

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL, 5.0);
	ok(msg_frag_next_deadline(f, 100.0) == -1,
	    "no reassembly: deadline -1");
	is_int(msg_frag_expire(f, 1e9), 0, "nothing to expire");
	randombytes_buf(blob, BLOB);
	n = cut(1, blob, BLOB);
	(void)feed(f, &from_a, frag[0], fraglen[0], 100.0, NULL);
	n = cut(2, blob, BLOB);
	(void)feed(f, &from_b, frag[0], fraglen[0], 102.0, NULL);
	(void)cut(3, blob, 3000);
	(void)feed(f, &from_b, frag[0], fraglen[0], 103.0, NULL);
	is_int(msg_frag_bytes(f), 2 * BLOB + 3000, "three reassemblies held");
	ok(msg_frag_next_deadline(f, 101.0) == 4.0,
	    "deadline 4 s after 1 s of 5");
	ok(msg_frag_next_deadline(f, 100.0) == 5.0, "deadline 5 s at start");
	ok(msg_frag_next_deadline(f, 200.0) == 0, "past due: deadline 0");
	is_int(msg_frag_expire(f, 104.99), 0, "nothing expires before 5 s");
	is_int(msg_frag_expire(f, 105.0), 1, "the oldest expires at 5 s");
	is_int(msg_frag_bytes(f), BLOB + 3000, "its memory is freed");
	ok(msg_frag_next_deadline(f, 105.0) == 2.0,
	    "the next deadline is the second one's");
	is_int(msg_frag_expire(f, 1000.0), 2, "the rest expire, count 2");
	is_int(msg_frag_bytes(f), 0, "everything freed");
	ok(msg_frag_next_deadline(f, 1000.0) == -1, "deadline -1 again");

	/* Fragments that straddle the timeout never complete a message. */
	n = cut(4, blob, BLOB);
	for (i = 0; i < n / 2; i++)
		(void)feed(f, &from_a, frag[i], fraglen[i], 200.0, NULL);
	for (done = 0; i < n; i++)
		if (feed(f, &from_a, frag[i], fraglen[i], 205.5, &done) ==
		    MSG_DROP_NONE && done)
			break;
	is_int(done, 0, "half before the timeout, half after: incomplete");
	is_int(msg_frag_bytes(f), BLOB, "only the new reassembly is held");
	is_int(msg_frag_expire(f, 210.5), 1, "and it expires too");
	/* Within the timeout, slow but complete. */
	for (i = 0, done = 0; i < n; i++)
		(void)feed(f, &from_a, frag[i], fraglen[i],
		    300.0 + 4.9 * (double)i / (double)n, &done);
	ok(done && gotlen == BLOB && memcmp(got, blob, BLOB) == 0,
	    "all fragments within 4.9 s: complete");
	msg_frag_free(f);
}

static struct msg_addr
host_port(const char *ip4, uint16_t port)
{
	struct msg_addr a;

	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	memcpy(a.ma_addr, ip4, 4);
	a.ma_port = port;
	return a;
}

/*
 * A flood of first fragments from one host's many ports fills every
 * slot; a genuine sender from another host still gets its message
 * through, the flood only displaces itself, and a sender that has
 * proven itself beats one that has not, even from the flooding host.
 */
static void
test_fair(void)
{
	struct msg_frag *f;
	struct msg_addr a, good = host_port("\x0a\0\0\x07", 7410);
	size_t n, i, refused = 0;
	int done = 0;

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL, 5.0);
	ok(f != NULL, "msg_frag_new");
	randombytes_buf(blob, MSG_FRAG_DATA + 100);
	n = cut(1, blob, MSG_FRAG_DATA + 100);
	is_int(n, 2, "a message one fragment long and a bit is two");
	for (i = 0; i < 256; i++) {
		a = host_port("\x0a\0\0\x42", (uint16_t)(20000 + i));
		if (feed(f, &a, frag[0], fraglen[0], 1.0, NULL) !=
		    MSG_DROP_NONE)
			refused++;
	}
	is_int(refused, 0, "256 first fragments from 256 ports of one host "
	    "fill every slot");
	a = host_port("\x0a\0\0\x42", 30000);
	is_int(feed(f, &a, frag[0], fraglen[0], 1.0, NULL),
	    MSG_DROP_REASSEMBLY, "that host's next one is refused");
	(void)cut(99, blob, MSG_FRAG_DATA + 100);
	is_int(feed(f, &good, frag[0], fraglen[0], 1.1, NULL),
	    MSG_DROP_NONE, "another host's message displaces one of the flood");
	(void)cut(1, blob, MSG_FRAG_DATA + 100);
	for (i = 0; i < 100; i++) {
		a = host_port("\x0a\0\0\x42", (uint16_t)(40000 + i));
		if (feed(f, &a, frag[0], fraglen[0], 1.2, NULL) !=
		    MSG_DROP_REASSEMBLY)
			break;
	}
	is_int(i, 100, "100 more from the flooding host are all refused");
	(void)cut(99, blob, MSG_FRAG_DATA + 100);
	is_int(feed(f, &good, frag[1], fraglen[1], 1.3, &done),
	    MSG_DROP_NONE, "the genuine message's second fragment is taken");
	ok(done && gotlen == MSG_FRAG_DATA + 100 &&
	    memcmp(got, blob, MSG_FRAG_DATA + 100) == 0,
	    "and it comes out whole");

	a = host_port("\x0a\0\0\x42", 50000);
	msg_frag_proven(f, &a);
	(void)cut(7, blob, MSG_FRAG_DATA + 100);
	is_int(feed(f, &a, frag[0], fraglen[0], 1.4, NULL), MSG_DROP_NONE,
	    "a proven port of the flooding host displaces an unproven one");
	(void)feed(f, &a, frag[1], fraglen[1], 1.5, &done);
	ok(done, "and completes");
	msg_frag_free(f);
}

/*
 * A flood of first fragments from 256 hosts or more, one each (issue
 * 27): a sender of the same rank displaces the oldest and gets its
 * message through if its fragments come before the flood has gone round
 * every slot; a sender that was authentic, or that we asked, displaces
 * the flood however many hosts it comes from; the cluster's rank
 * survives a user's many authentic ports.
 */
static void
test_many_hosts(void)
{
	struct msg_frag *f;
	struct msg_addr a, stranger = host_port("\x0b\0\0\x01", 9000);
	struct msg_addr asked = host_port("\x0b\0\0\x02", 9000);
	struct msg_addr broker = host_port("\x0b\0\0\x03", 7410);
	size_t i, refused = 0;
	int done = 0, rounds;
	uint8_t ip[4] = { 10, 1, 0, 0 };

	f = msg_frag_new(MSG_FRAG_PER_SENDER, MSG_FRAG_TOTAL, 5.0);
	(void)cut(1, blob, MSG_FRAG_DATA + 100);
	for (i = 0; i < 300; i++) {
		ip[2] = (uint8_t)(i >> 8);
		ip[3] = (uint8_t)i;
		a = host_port((const char *)ip, 20000);
		if (feed(f, &a, frag[0], fraglen[0], 1.0, NULL) !=
		    MSG_DROP_NONE)
			refused++;
	}
	is_int(refused, 0, "300 hosts' first fragments: each displaces the "
	    "oldest");
	is_int(msg_frag_bytes(f), 256 * (MSG_FRAG_DATA + 100),
	    "256 held");
	(void)cut(50, blob, MSG_FRAG_DATA + 100);
	is_int(feed(f, &stranger, frag[0], fraglen[0], 1.1, NULL),
	    MSG_DROP_NONE, "a stranger's first fragment is taken");
	(void)feed(f, &stranger, frag[1], fraglen[1], 1.1, &done);
	ok(done && memcmp(got, blob, MSG_FRAG_DATA + 100) == 0,
	    "and its message completes");
	/* Ranked senders: the flood goes round every slot between. */
	msg_frag_proven(f, &asked);
	msg_frag_rank(f, &broker, MSG_FRAG_CLUSTER);
	is_int(msg_frag_rank_of(f, &asked), MSG_FRAG_USER, "asked: user rank");
	is_int(msg_frag_rank_of(f, &broker), MSG_FRAG_CLUSTER,
	    "broker: cluster rank");
	is_int(msg_frag_rank_of(f, &stranger), MSG_FRAG_UNKNOWN,
	    "stranger: unknown");
	(void)cut(51, blob, MSG_FRAG_DATA + 100);
	(void)feed(f, &asked, frag[0], fraglen[0], 1.2, NULL);
	(void)cut(52, blob, MSG_FRAG_DATA + 100);
	(void)feed(f, &broker, frag[0], fraglen[0], 1.2, NULL);
	(void)cut(1, blob, MSG_FRAG_DATA + 100);
	for (rounds = 0; rounds < 3; rounds++)
		for (i = 0; i < 300; i++) {
			ip[2] = (uint8_t)(i >> 8);
			ip[3] = (uint8_t)i;
			a = host_port((const char *)ip, (uint16_t)(21000 +
			    rounds));
			(void)feed(f, &a, frag[0], fraglen[0], 1.3, NULL);
		}
	(void)cut(51, blob, MSG_FRAG_DATA + 100);
	(void)feed(f, &asked, frag[1], fraglen[1], 1.4, &done);
	ok(done && memcmp(got, blob, MSG_FRAG_DATA + 100) == 0,
	    "a sender we asked completes after 900 strangers' fragments");
	(void)cut(52, blob, MSG_FRAG_DATA + 100);
	(void)feed(f, &broker, frag[1], fraglen[1], 1.4, &done);
	ok(done && memcmp(got, blob, MSG_FRAG_DATA + 100) == 0,
	    "and so does the broker");
	/* A user's 300 authentic ports flush the users' ring only. */
	for (i = 0; i < 300; i++) {
		a = host_port("\x0c\0\0\x01", (uint16_t)(30000 + i));
		msg_frag_proven(f, &a);
	}
	is_int(msg_frag_rank_of(f, &asked), MSG_FRAG_UNKNOWN,
	    "300 other users' ports push the asked one out of the users' 256");
	is_int(msg_frag_rank_of(f, &broker), MSG_FRAG_CLUSTER,
	    "but not the broker out of the cluster's");
	msg_frag_free(f);
}

int
main(void)
{
	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	memset(&from_a, 0, sizeof(from_a));
	from_a.ma_family = 4;
	memcpy(from_a.ma_addr, "\x7f\0\0\x01", 4);
	from_a.ma_port = 7410;
	from_b = from_a;
	from_b.ma_port = 7411;
	test_count_build();
	test_orders();
	test_interleave();
	test_lies();
	test_many_hosts();
	test_storm();
	test_timeout();
	test_fair();
	return tap_done();
}
