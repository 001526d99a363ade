/*
 * fuzz_receive — libFuzzer target for the receive path of the secure
 * message layer (msg_ep_input and everything under it).
 *
 * One endpoint is made on the first call, without an event loop or a
 * socket (msg_endpoint.c calls no evloop function when ep_loop is NULL,
 * and a reply fails with ENOTCONN), with a fixed cluster key, a previous
 * cluster key and a user key "alice" whose public file sits in a
 * temporary users folder (removed at exit).  Randomness comes from a
 * deterministic stream seeded by a hash of the input and the execution
 * count, so keys are the same in every run, nonces are fresh in every
 * execution, and a crashing input run alone seals the same bytes again.
 *
 * The first byte picks a mode:
 *   0  the rest is one raw datagram (from an address of its own);
 *   1  the rest is sealed as a valid message and fed (whole, or as
 *      fragments when too long), so the authenticated paths run:
 *        bytes 1-2 handler (big-endian), byte 3 how to seal:
 *          bits 0-1 0 cluster, 1 user as alice, 2 user as @cluster,
 *                   3 cluster under the previous key
 *          bit 2    seal for another address (misaddressed)
 *          bit 3    seal 60 s in the past (stale)
 *          bit 4    feed it twice (replay)
 *        the rest is the payload; the oracle checks that it is
 *        delivered, or dropped for the one reason it should be, and
 *        that a replayed copy is never delivered;
 *   2  the rest is cut into fragments with msg_frag_build and fed:
 *        byte 1 flags: bit 0 seal it first (cluster), bit 1 reverse
 *                      order, bit 2 skip one fragment, bit 3 duplicate
 *                      each, bit 4 corrupt one fragment
 *        bytes 2-4 corruption: fragment, offset, xor value
 *        the rest is the message.  A sealed message cut whole must be
 *        delivered once; one missing or corrupting a fragment never.
 * An oracle failure calls abort(), which libFuzzer reports as a crash.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "mono.h"
#include "msg.h"
#include "msg_frag.h"

#define H_CLUSTER_ONLY	(MSG_H_USER + 1)
#define H_ECHO		(MSG_H_USER + 2)
#define NTABLE		(MSG_H_USER + 4)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void	fz_handler(struct msg_ep *, const struct msg_in *, void *);
static void	fz_pong(struct msg_ep *, const struct msg_in *, void *);
static void	fz_echo(struct msg_ep *, const struct msg_in *, void *);
static const char *fz_rng_name(void);
static uint32_t	fz_rng_random(void);
static void	fz_rng_buf(void * const, const size_t);
static void	fz_rng_seed(const uint8_t *, size_t);
static void	fz_setup(void);
static void	fz_cleanup(void);
static void	fz_feed_from(const struct msg_addr *, const uint8_t *,
		    size_t);
static void	fz_feed(const uint8_t *, size_t);
static void	fz_feed_sealed(const uint8_t *, size_t);
static void	fz_mode_sealed(const uint8_t *, size_t);
static int	fz_expect(const char *, const struct msg_counters *, int,
		    enum msg_drop, int);
static void	fz_mode_frag(const uint8_t *, size_t);

static const struct msg_handler fz_table[NTABLE] = {
	[MSG_H_PONG] = { "pong", MSG_SCHEMES_ALL, fz_pong },
	[MSG_H_USER] = { "user", MSG_SCHEMES_ALL, fz_handler },
	[H_CLUSTER_ONLY] = { "cluster-only",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), fz_handler },
	[H_ECHO] = { "echo", MSG_SCHEMES_ALL, fz_echo },
};

static struct msg_ep		*ep;
static struct msg_keyring	*kr, *kr_at_cluster, *kr_prev;
static struct msg_addr		 from, from_raw, from_bent, to, other;
static uint8_t			 rng_seed[32];
static uint64_t			 rng_ctr, execs;
static uint32_t			 msgid;
static uint8_t			 sealed[MSG_SEALED_MAX];
static volatile uint8_t		 sink;
static char			 users_dir[] = "/tmp/cilknow-fuzz-users.XXXXXX";
static char			 alice_pub[PATH_MAX];

static randombytes_implementation fz_rng = {
	.implementation_name = fz_rng_name,
	.random = fz_rng_random,
	.buf = fz_rng_buf,
};

static const char *
fz_rng_name(void)
{
	return "fuzz-deterministic";
}

static void
fz_rng_buf(void * const buf, const size_t size)
{
	uint8_t sub[32], in[sizeof(rng_seed) + sizeof(rng_ctr)];

	memcpy(in, rng_seed, sizeof(rng_seed));
	memcpy(in + sizeof(rng_seed), &rng_ctr, sizeof(rng_ctr));
	rng_ctr++;
	crypto_generichash(sub, sizeof(sub), in, sizeof(in), NULL, 0);
	randombytes_buf_deterministic(buf, size, sub);
}

static uint32_t
fz_rng_random(void)
{
	uint32_t v;

	fz_rng_buf(&v, sizeof(v));
	return v;
}

/*
 * Seeds the stream from the input and the execution count, so every
 * execution seals with fresh nonces (a re-run of the same input is not a
 * replay) and a crash still reproduces when its input is run alone.
 */
static void
fz_rng_seed(const uint8_t *data, size_t size)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, sizeof(rng_seed));
	crypto_generichash_update(&st, data, size);
	crypto_generichash_update(&st, (const uint8_t *)&execs,
	    sizeof(execs));
	crypto_generichash_final(&st, rng_seed, sizeof(rng_seed));
	execs++;
	rng_ctr = 0;
}

/* Touches every byte handed out, so ASan checks the pointers. */
static void
fz_handler(struct msg_ep *e, const struct msg_in *in, void *arg)
{
	size_t i;
	uint8_t x = 0;

	(void)e;
	(void)arg;
	for (i = 0; i < in->mi_len; i++)
		x ^= in->mi_data[i];
	x ^= (uint8_t)strlen(in->mi_name);
	x ^= (uint8_t)in->mi_hdr->mh_handler;
	x ^= (uint8_t)msg_verify_sender(in, MSG_SCHEME_USER, "alice", &from);
	x ^= (uint8_t)msg_verify_sender(in, MSG_SCHEME_CLUSTER, "node-a",
	    NULL);
	sink = x;
}

static void
fz_pong(struct msg_ep *e, const struct msg_in *in, void *arg)
{
	struct msg_pong p;

	fz_handler(e, in, arg);
	if (msg_pong_parse(in->mi_data, in->mi_len, &p) == 0)
		sink = (uint8_t)(p.po_seq ^ p.po_echo_len);
}

static void
fz_echo(struct msg_ep *e, const struct msg_in *in, void *arg)
{
	fz_handler(e, in, arg);
	(void)msg_ep_reply(e, in, MSG_H_USER, in->mi_data, in->mi_len);
}

/* Removes the users folder when libFuzzer exits normally. */
static void
fz_cleanup(void)
{
	if (alice_pub[0] != '\0')
		unlink(alice_pub);
	rmdir(users_dir);
}

static void
fz_setup(void)
{
	struct msg_key cluster, prev, alice;
	struct msg_keyset ks;
	char err[256];

	/* Before sodium_init: the whole process uses the fixed stream. */
	memset(rng_seed, 0, sizeof(rng_seed));
	randombytes_set_implementation(&fz_rng);
	if (sodium_init() < 0)
		abort();
	if (msg_key_generate(&cluster, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&prev, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&alice, MSG_KEY_USER, "alice") == -1)
		abort();
	if (mkdtemp(users_dir) == NULL)
		abort();
	atexit(fz_cleanup);
	memset(&ks, 0, sizeof(ks));
	msg_key_public(&alice, &ks.ks_key[0]);
	ks.ks_n = 1;
	snprintf(alice_pub, sizeof(alice_pub), "%s/alice.pub", users_dir);
	if (msg_keyset_save(&ks, alice_pub, 1, err, sizeof(err)) == -1) {
		fprintf(stderr, "fuzz_receive: %s\n", err);
		abort();
	}

	/* The receiver: [current, previous] cluster keys, alice's user key. */
	if ((kr = calloc(1, sizeof(*kr))) == NULL ||
	    (kr_at_cluster = calloc(1, sizeof(*kr))) == NULL ||
	    (kr_prev = calloc(1, sizeof(*kr))) == NULL)
		abort();
	kr->kr_cluster.ks_key[0] = cluster;
	kr->kr_cluster.ks_key[1] = prev;
	kr->kr_cluster.ks_n = 2;
	kr->kr_user.ks_key[0] = alice;
	kr->kr_user.ks_n = 1;
	strlcpy(kr->kr_cluster_name, "node-a", sizeof(kr->kr_cluster_name));
	strlcpy(kr->kr_users_dir, users_dir, sizeof(kr->kr_users_dir));
	/* As a daemon holds them (MSG_KR_USERS): no file per input. */
	if ((kr->kr_users = msg_users_load(users_dir)) == NULL)
		abort();
	/* Senders: one that signs user messages as @cluster, one with prev. */
	kr_at_cluster->kr_cluster.ks_key[0] = cluster;
	kr_at_cluster->kr_cluster.ks_n = 1;
	kr_prev->kr_cluster.ks_key[0] = prev;
	kr_prev->kr_cluster.ks_n = 1;
	strlcpy(kr_prev->kr_cluster_name, "node-b",
	    sizeof(kr_prev->kr_cluster_name));

	if (msg_addr_parse(&from, "127.0.0.1:9999", 0) == -1 ||
	    msg_addr_parse(&from_raw, "127.0.0.3:9999", 0) == -1 ||
	    msg_addr_parse(&from_bent, "127.0.0.4:9999", 0) == -1 ||
	    msg_addr_parse(&to, "127.0.0.1:7410", 0) == -1 ||
	    msg_addr_parse(&other, "127.0.0.2:7410", 0) == -1)
		abort();
	if ((ep = msg_ep_new(NULL, kr, fz_table, NTABLE, NULL, NULL)) == NULL)
		abort();
}

/*
 * Raw datagrams come from their own address, so they cannot join the
 * reassemblies of the sealed modes (whose outcome the oracle checks).
 */
static void
fz_feed_from(const struct msg_addr *src, const uint8_t *d, size_t len)
{
	uint8_t *copy;

	/* An exact-size copy, so reading past len is caught. */
	if ((copy = malloc(len ? len : 1)) == NULL)
		abort();
	if (len > 0)
		memcpy(copy, d, len);
	msg_ep_input(ep, copy, len, src, &to);
	free(copy);
}

static void
fz_feed(const uint8_t *d, size_t len)
{
	fz_feed_from(&from, d, len);
}

/* Feeds a sealed message whole, or as fragments if it needs them. */
static void
fz_feed_sealed(const uint8_t *s, size_t len)
{
	uint8_t frag[MSG_DGRAM_MAX];
	size_t i, n, fl;

	n = msg_frag_count(len);
	if (n == 1) {
		fz_feed(s, len);
		return;
	}
	msgid++;
	for (i = 0; i < n; i++) {
		fl = msg_frag_build(msgid, i, s, len, frag);
		fz_feed(frag, fl);
	}
}

/*
 * The oracle: since `before`, either the message was delivered (want
 * NONE) or dropped for exactly `want`.  A fragmented message may also
 * have been refused for reassembly memory (other inputs leave partial
 * reassemblies behind), which is not a bug: then -1.
 */
static int
fz_expect(const char *what, const struct msg_counters *before, int frag,
    enum msg_drop want, int delivered_ok)
{
	const struct msg_counters *now = msg_ep_counters(ep);
	uint64_t delivered = now->mc_delivered - before->mc_delivered;
	uint64_t reasm = now->mc_dropped[MSG_DROP_REASSEMBLY] -
	    before->mc_dropped[MSG_DROP_REASSEMBLY];
	int d, bad = 0;

	if (frag && reasm > 0 && delivered == 0)
		return -1;
	if (want == MSG_DROP_NONE) {
		if (delivered != 1 && delivered_ok)
			bad = 1;
	} else if (delivered != 0 || now->mc_dropped[want] -
	    before->mc_dropped[want] != 1)
		bad = 1;
	if (!delivered_ok && delivered != 0)
		bad = 1;
	if (!bad)
		return 0;
	fprintf(stderr, "fuzz_receive: %s: expected %s, got delivered %llu,"
	    " dropped", what, delivered_ok ? msg_drop_name(want) :
	    "no delivery", (unsigned long long)delivered);
	for (d = 0; d < MSG_DROP_MAX; d++)
		if (now->mc_dropped[d] != before->mc_dropped[d])
			fprintf(stderr, " %s+%llu", msg_drop_name(d),
			    (unsigned long long)(now->mc_dropped[d] -
			    before->mc_dropped[d]));
	fprintf(stderr, "\n");
	abort();
}

static void
fz_mode_sealed(const uint8_t *data, size_t size)
{
	struct msg_keyring *sender;
	struct msg_counters before;
	enum msg_scheme scheme;
	enum msg_drop want;
	uint16_t handler;
	uint64_t now;
	size_t len;
	uint8_t how;
	int frag;

	if (size < 3)
		return;
	handler = (uint16_t)(data[0] << 8 | data[1]);
	how = data[2];
	data += 3;
	size -= 3;
	switch (how & 3) {
	case 0:
		sender = kr;
		scheme = MSG_SCHEME_CLUSTER;
		break;
	case 1:
		sender = kr;
		scheme = MSG_SCHEME_USER;
		break;
	case 2:
		sender = kr_at_cluster;
		scheme = MSG_SCHEME_USER;
		break;
	default:
		sender = kr_prev;
		scheme = MSG_SCHEME_CLUSTER;
		break;
	}
	now = now_real_ms();
	if (how & 8)
		now -= 60000;
	if (msg_seal(sender, scheme, handler, how & 4 ? &other : &to, now,
	    data, size, sealed, sizeof(sealed), &len) == -1)
		return;

	/* What the receive path must do with it. */
	if (how & 4)
		want = MSG_DROP_MISADDRESSED;
	else if (how & 8)
		want = MSG_DROP_STALE;
	else if (handler == MSG_H_PING)
		want = MSG_DROP_NONE;
	else if (handler >= NTABLE || fz_table[handler].mh_fn == NULL)
		want = MSG_DROP_UNKNOWN_HANDLER;
	else if ((fz_table[handler].mh_schemes &
	    MSG_SCHEME_BIT(scheme)) == 0)
		want = MSG_DROP_BAD_SCHEME;
	else
		want = MSG_DROP_NONE;
	frag = msg_frag_count(len) > 1;
	before = *msg_ep_counters(ep);
	fz_feed_sealed(sealed, len);
	if (fz_expect("sealed message", &before, frag, want, 1) == 0 &&
	    (how & 16)) {
		/*
		 * The same bytes again: never delivered twice.  A nonce
		 * is remembered once the message passed the window and
		 * address checks.
		 */
		if (want == MSG_DROP_NONE ||
		    want == MSG_DROP_UNKNOWN_HANDLER ||
		    want == MSG_DROP_BAD_SCHEME)
			want = MSG_DROP_REPLAY;
		before = *msg_ep_counters(ep);
		fz_feed_sealed(sealed, len);
		(void)fz_expect("replayed message", &before, frag, want, 1);
	}
}

static void
fz_mode_frag(const uint8_t *data, size_t size)
{
	uint8_t frag[MSG_DGRAM_MAX], flags, cfrag, coff, cxor;
	const struct msg_addr *src;
	struct msg_counters before;
	const uint8_t *msg;
	size_t i, j, n, fl, len, skip;

	if (size < 4)
		return;
	flags = data[0];
	cfrag = data[1];
	coff = data[2];
	cxor = data[3];
	data += 4;
	size -= 4;
	msg = data;
	len = size;
	if (flags & 1) {
		if (msg_seal(kr, MSG_SCHEME_CLUSTER, MSG_H_USER, &to,
		    now_real_ms(), data, size, sealed, sizeof(sealed),
		    &len) == -1)
			return;
		msg = sealed;
	}
	if (len > MSG_SEALED_MAX)
		return;
	n = msg_frag_count(len);
	skip = flags & 4 ? cfrag % n : n;
	/*
	 * A corrupted msgid can name a later input's reassembly; corrupted
	 * messages come from their own address so they cannot collide.
	 */
	src = flags & 16 ? &from_bent : &from;
	before = *msg_ep_counters(ep);
	msgid++;
	for (j = 0; j < n; j++) {
		i = flags & 2 ? n - 1 - j : j;
		if (i == skip)
			continue;
		fl = msg_frag_build(msgid, i, msg, len, frag);
		if ((flags & 16) && i == cfrag % n && fl > 0)
			frag[coff % fl] ^= cxor ? cxor : 0x80;
		fz_feed_from(src, frag, fl);
		if (flags & 8)
			fz_feed_from(src, frag, fl);
	}
	/*
	 * A message that is sealed and cut whole is delivered once; one
	 * with a fragment missing or corrupted never is.
	 */
	if ((flags & 1) && n > 1)
		(void)fz_expect("fragmented message", &before, 1,
		    MSG_DROP_NONE, (flags & (4 | 16)) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ep == NULL)
		fz_setup();
	if (size < 1)
		return 0;
	fz_rng_seed(data, size);
	switch (data[0] % 3) {
	case 0:
		fz_feed_from(&from_raw, data + 1, size - 1);
		break;
	case 1:
		fz_mode_sealed(data + 1, size - 1);
		break;
	default:
		fz_mode_frag(data + 1, size - 1);
		break;
	}
	return 0;
}
