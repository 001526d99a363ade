/*
 * msg_endpoint_test — two endpoints on loopback with a real event loop:
 * delivery under both schemes, a fragmented 50000-byte payload, ping and
 * pong, replies; then the receive path driven directly with crafted
 * datagrams, one for every reason it drops (unknown handler, scheme the
 * handler refuses, replay, misaddressed, stale, bad MAC, bad length and
 * header, reassembly timeout), and msg_verify_sender.
 */
#include "msg.h"

#include <sys/socket.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "evloop.h"
#include "mono.h"
#include "msg_frag.h"
#include "tap.h"

#define H_CLUSTER_ONLY	(MSG_H_USER + 1)
#define H_ECHO		(MSG_H_USER + 2)
#define H_EMPTY		(MSG_H_USER + 3)	/* no function */
#define NTABLE		(MSG_H_USER + 4)
#define MAXREC		16

struct rec {
	uint16_t		 r_handler;
	enum msg_scheme		 r_scheme;
	char			 r_name[MSG_NAME_MAX + 1];
	struct msg_addr		 r_from;
	uint8_t			*r_data;
	size_t			 r_len;
	int			 r_verify[6];
};

struct ctx {
	const char		*c_label;
	struct rec		 c_rec[MAXREC];
	int			 c_n;
	struct msg_addr		 c_peer;	/* the expected sender */
};

static char		 tmpdir[] = "/tmp/cilknow-ep.XXXXXX";
static struct msg_keyring *kr;
static struct msg_key	 cluster_key, alice_key;
static uint8_t		 sealed[MSG_SEALED_MAX];
static uint8_t		 big[50000];

static void	on_msg(struct msg_ep *, const struct msg_in *, void *);
static void	on_echo(struct msg_ep *, const struct msg_in *, void *);
static int	run_until(struct evloop *, const int *, int, double);
static void	ctx_reset(struct ctx *);
static size_t	seal_for(enum msg_scheme, uint16_t,
		    const struct msg_addr *, uint64_t, const void *, size_t);
static uint64_t	dropped(struct msg_ep *, enum msg_drop);
static void	setup_keys(void);
static void	test_live(void);
static void	test_input(void);
static void	test_null_loop(void);
static void	test_rotation_reply(void);
static void	test_bind_variants(void);
static int	raw_send(const struct msg_addr *, const uint8_t *, size_t);
static void	show_drops(struct msg_ep *);

static const struct msg_handler table[NTABLE] = {
	[MSG_H_PONG] = { "pong", MSG_SCHEMES_ALL, on_msg },
	[MSG_H_USER] = { "test", MSG_SCHEMES_ALL, on_msg },
	[H_CLUSTER_ONLY] = { "cluster-only",
	    MSG_SCHEME_BIT(MSG_SCHEME_CLUSTER), on_msg },
	[H_ECHO] = { "echo", MSG_SCHEMES_ALL, on_echo },
	[H_EMPTY] = { "empty", MSG_SCHEMES_ALL, NULL },
};

static void
on_msg(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ctx *c = arg;
	struct rec *r;
	struct msg_addr other;

	(void)ep;
	if (c->c_n >= MAXREC)
		return;
	r = &c->c_rec[c->c_n++];
	r->r_handler = in->mi_hdr->mh_handler;
	r->r_scheme = in->mi_scheme;
	strlcpy(r->r_name, in->mi_name, sizeof(r->r_name));
	r->r_from = in->mi_from;
	r->r_len = in->mi_len;
	if ((r->r_data = malloc(in->mi_len ? in->mi_len : 1)) != NULL &&
	    in->mi_len > 0)
		memcpy(r->r_data, in->mi_data, in->mi_len);
	other = in->mi_from;
	other.ma_port++;
	r->r_verify[0] = msg_verify_sender(in, in->mi_scheme, in->mi_name,
	    &c->c_peer);
	r->r_verify[1] = msg_verify_sender(in, in->mi_scheme, in->mi_name,
	    NULL);
	r->r_verify[2] = msg_verify_sender(in, in->mi_scheme ==
	    MSG_SCHEME_USER ? MSG_SCHEME_CLUSTER : MSG_SCHEME_USER,
	    in->mi_name, NULL);
	r->r_verify[3] = msg_verify_sender(in, in->mi_scheme, "mallory",
	    NULL);
	r->r_verify[4] = msg_verify_sender(in, in->mi_scheme, in->mi_name,
	    &other);
	r->r_verify[5] = strcmp(in->mi_hdr->mh_name, in->mi_name) == 0;
}

/* Records, then answers with the same payload to MSG_H_USER. */
static void
on_echo(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	on_msg(ep, in, arg);
	if (msg_ep_reply(ep, in, MSG_H_USER, in->mi_data, in->mi_len) == -1)
		printf("# msg_ep_reply: %s\n", strerror(errno));
}

static int
run_until(struct evloop *loop, const int *count, int want, double limit)
{
	int rounds;

	for (rounds = 0; *count < want && rounds < limit / 0.2; rounds++)
		if (evloop_run_once(loop, 0.2) == -1)
			return -1;
	return *count >= want ? 0 : -1;
}

/* Runs the loop until ep has dropped want datagrams for reason d. */
static int
drop_until(struct evloop *loop, struct msg_ep *ep, enum msg_drop d, int want,
    double limit)
{
	int rounds;

	for (rounds = 0; dropped(ep, d) < (uint64_t)want &&
	    rounds < limit / 0.2; rounds++)
		if (evloop_run_once(loop, 0.2) == -1)
			return -1;
	return dropped(ep, d) >= (uint64_t)want ? 0 : -1;
}

static void
ctx_reset(struct ctx *c)
{
	int i;

	for (i = 0; i < c->c_n; i++)
		free(c->c_rec[i].r_data);
	memset(c->c_rec, 0, sizeof(c->c_rec));
	c->c_n = 0;
}

static size_t
seal_for(enum msg_scheme s, uint16_t handler, const struct msg_addr *dst,
    uint64_t now_ms, const void *p, size_t len)
{
	size_t n;

	if (msg_seal(kr, s, handler, dst, now_ms, p, len, sealed,
	    sizeof(sealed), &n) == -1) {
		printf("Bail out! msg_seal: %s\n", strerror(errno));
		exit(1);
	}
	return n;
}

static uint64_t
dropped(struct msg_ep *ep, enum msg_drop d)
{
	return msg_ep_counters(ep)->mc_dropped[d];
}

static void
setup_keys(void)
{
	struct msg_keyset ks;
	char path[PATH_MAX], err[256];

	if (mkdtemp(tmpdir) == NULL ||
	    msg_key_generate(&cluster_key, MSG_KEY_CLUSTER, NULL) == -1 ||
	    msg_key_generate(&alice_key, MSG_KEY_USER, "alice") == -1 ||
	    (kr = calloc(1, sizeof(*kr))) == NULL) {
		printf("Bail out! setup\n");
		exit(1);
	}
	memset(&ks, 0, sizeof(ks));
	msg_key_public(&alice_key, &ks.ks_key[0]);
	ks.ks_n = 1;
	snprintf(path, sizeof(path), "%s/alice.pub", tmpdir);
	if (msg_keyset_save(&ks, path, 0, err, sizeof(err)) == -1) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	kr->kr_cluster.ks_key[0] = cluster_key;
	kr->kr_cluster.ks_n = 1;
	kr->kr_user.ks_key[0] = alice_key;
	kr->kr_user.ks_n = 1;
	strlcpy(kr->kr_cluster_name, "node-a", sizeof(kr->kr_cluster_name));
	strlcpy(kr->kr_users_dir, tmpdir, sizeof(kr->kr_users_dir));
}

static void
test_live(void)
{
	struct evloop *loop;
	struct msg_ep *a, *b;
	struct msg_addr lo, nofamily;
	struct ctx ca, cb;
	struct msg_pong pong;
	uint8_t ping[64];
	uint64_t t0;
	size_t i;
	int s, bad;

	memset(&ca, 0, sizeof(ca));
	memset(&cb, 0, sizeof(cb));
	memset(&lo, 0, sizeof(lo));
	loop = evloop_new();
	ok(loop != NULL, "evloop_new");
	a = msg_ep_new(loop, kr, table, NTABLE, &ca, NULL);
	b = msg_ep_new(loop, kr, table, NTABLE, &cb, NULL);
	ok(a != NULL && b != NULL, "two endpoints");
	errno = 0;
	ok(msg_ep_send(a, &lo, MSG_SCHEME_CLUSTER, MSG_H_USER, "x", 1) == -1 &&
	    errno == ENOTCONN, "send before bind: ENOTCONN");
	memset(&nofamily, 0, sizeof(nofamily));
	errno = 0;
	ok(msg_ep_bind(a, &nofamily) == -1 && errno == EAFNOSUPPORT,
	    "bind to family 0: EAFNOSUPPORT");
	ok(msg_addr_parse(&lo, "127.0.0.1", 0) == 0 &&
	    msg_ep_bind(a, &lo) == 0 && msg_ep_bind(b, &lo) == 0,
	    "both bound to 127.0.0.1, ephemeral ports");
	ok(msg_ep_addr(a)->ma_port != 0 && msg_ep_addr(b)->ma_port != 0 &&
	    msg_ep_addr(a)->ma_port != msg_ep_addr(b)->ma_port &&
	    msg_ep_fd(a) >= 0, "real ports after the bind: %u and %u",
	    msg_ep_addr(a)->ma_port, msg_ep_addr(b)->ma_port);
	ca.c_peer = *msg_ep_addr(b);
	cb.c_peer = *msg_ep_addr(a);

	for (s = MSG_SCHEME_CLUSTER; s <= MSG_SCHEME_USER; s++) {
		const char *want = s == MSG_SCHEME_CLUSTER ? "node-a" : "alice";

		ctx_reset(&cb);
		ok(msg_ep_send(a, msg_ep_addr(b), s, MSG_H_USER, "hello", 5) ==
		    0, "%s: A sends hello to B", msg_scheme_name(s));
		ok(run_until(loop, &cb.c_n, 1, 5.0) == 0, "%s: delivered",
		    msg_scheme_name(s));
		if (cb.c_n < 1)
			continue;
		is_int(cb.c_rec[0].r_handler, MSG_H_USER, "%s: handler index",
		    msg_scheme_name(s));
		is_int(cb.c_rec[0].r_scheme, s, "%s: mi_scheme",
		    msg_scheme_name(s));
		is_str(cb.c_rec[0].r_name, want, "%s: mi_name",
		    msg_scheme_name(s));
		ok(msg_addr_eq(&cb.c_rec[0].r_from, msg_ep_addr(a)),
		    "%s: mi_from is A's bound address", msg_scheme_name(s));
		ok(cb.c_rec[0].r_len == 5 &&
		    memcmp(cb.c_rec[0].r_data, "hello", 5) == 0,
		    "%s: payload", msg_scheme_name(s));
		ok(cb.c_rec[0].r_verify[0] && cb.c_rec[0].r_verify[1] &&
		    cb.c_rec[0].r_verify[5],
		    "%s: msg_verify_sender true for scheme, name (and address)",
		    msg_scheme_name(s));
		ok(!cb.c_rec[0].r_verify[2] && !cb.c_rec[0].r_verify[3] &&
		    !cb.c_rec[0].r_verify[4], "%s: msg_verify_sender false for "
		    "another scheme, name or address", msg_scheme_name(s));
	}

	/* 50000 bytes through real UDP, in fragments. */
	ctx_reset(&cb);
	randombytes_buf(big, sizeof(big));
	t0 = msg_ep_counters(b)->mc_received;
	ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_CLUSTER, MSG_H_USER, big,
	    sizeof(big)) == 0, "A sends 50000 bytes");
	ok(run_until(loop, &cb.c_n, 1, 5.0) == 0, "delivered");
	ok(cb.c_n == 1 && cb.c_rec[0].r_len == sizeof(big) &&
	    memcmp(cb.c_rec[0].r_data, big, sizeof(big)) == 0,
	    "50000 bytes arrive intact");
	is_int(msg_ep_counters(b)->mc_received - t0,
	    msg_frag_count(50000 + MSG_HDR_FIXED + 6 + MSG_TAG_LEN),
	    "as that many datagrams");
	ctx_reset(&cb);
	ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_USER, MSG_H_USER, big,
	    MSG_PAYLOAD_MAX < sizeof(big) ? MSG_PAYLOAD_MAX : sizeof(big)) ==
	    0 && run_until(loop, &cb.c_n, 1, 5.0) == 0 &&
	    cb.c_rec[0].r_len == sizeof(big) &&
	    memcmp(cb.c_rec[0].r_data, big, sizeof(big)) == 0,
	    "and signed under the user scheme too");

	/* Ping and pong. */
	ctx_reset(&ca);
	t0 = now_real_ns();
	is_int(msg_ping_build(ping, sizeof(ping), 77, t0), sizeof(ping),
	    "ping of 64 bytes built");
	ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_CLUSTER, MSG_H_PING, ping,
	    sizeof(ping)) == 0, "A pings B");
	ok(run_until(loop, &ca.c_n, 1, 5.0) == 0, "A's pong handler called");
	if (ca.c_n >= 1) {
		is_int(ca.c_rec[0].r_handler, MSG_H_PONG, "at MSG_H_PONG");
		ok(msg_addr_eq(&ca.c_rec[0].r_from, msg_ep_addr(b)),
		    "from B's address");
		ok(msg_pong_parse(ca.c_rec[0].r_data, ca.c_rec[0].r_len,
		    &pong) == 0, "msg_pong_parse succeeds");
		ok(pong.po_seq == 77 && pong.po_sent_ns == t0,
		    "seq and sender clock echoed");
		ok(pong.po_peer_ns >= t0 &&
		    pong.po_peer_ns < t0 + 60000000000ULL,
		    "peer clock plausible");
		is_int(pong.po_echo_len, sizeof(ping) - MSG_PING_FIXED,
		    "padding echoed");
		ok(pong.po_counters.mc_received ==
		    msg_ep_counters(b)->mc_received &&
		    pong.po_counters.mc_delivered ==
		    msg_ep_counters(b)->mc_delivered &&
		    pong.po_counters.mc_sent + 1 == msg_ep_counters(b)->mc_sent,
		    "pong carries B's counters as of answering (received %llu, "
		    "delivered %llu)",
		    (unsigned long long)pong.po_counters.mc_received,
		    (unsigned long long)pong.po_counters.mc_delivered);
		bad = 0;
		for (i = 1; i < MSG_DROP_MAX; i++)
			if (pong.po_counters.mc_dropped[i] !=
			    msg_ep_counters(b)->mc_dropped[i])
				bad++;
		is_int(bad, 0, "and B's drop counters");
		is_int(msg_pong_parse(ca.c_rec[0].r_data, 24, &pong), -1,
		    "a pong cut before its counters does not parse");
		is_int(msg_pong_parse(ca.c_rec[0].r_data, 25 + 8 * 3, &pong),
		    -1, "nor one cut inside them");
	}
	/* A big ping: the pong stays within MSG_PAYLOAD_MAX. */
	ctx_reset(&ca);
	{
		static uint8_t bigping[MSG_PAYLOAD_MAX];

		is_int(msg_ping_build(bigping, MSG_PAYLOAD_MAX + 100, 78, 1),
		    MSG_PAYLOAD_MAX,
		    "ping length is capped at MSG_PAYLOAD_MAX");
		ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_USER, MSG_H_PING,
		    bigping, MSG_PAYLOAD_MAX) == 0 &&
		    run_until(loop, &ca.c_n, 1, 5.0) == 0,
		    "a ping of MSG_PAYLOAD_MAX under the user scheme is "
		    "answered");
		ok(ca.c_n == 1 && ca.c_rec[0].r_len <= MSG_PAYLOAD_MAX &&
		    ca.c_rec[0].r_scheme == MSG_SCHEME_USER &&
		    msg_pong_parse(ca.c_rec[0].r_data, ca.c_rec[0].r_len,
		    &pong) == 0 && pong.po_seq == 78,
		    "in the user scheme, with a pong that parses");
	}

	/* A handler that replies. */
	ctx_reset(&ca);
	ctx_reset(&cb);
	ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_USER, H_ECHO, "echo?", 5)
	    == 0 && run_until(loop, &ca.c_n, 1, 5.0) == 0,
	    "B's echo handler replies to A");
	ok(ca.c_n == 1 && ca.c_rec[0].r_scheme == MSG_SCHEME_USER &&
	    ca.c_rec[0].r_len == 5 && memcmp(ca.c_rec[0].r_data, "echo?", 5)
	    == 0 && msg_addr_eq(&ca.c_rec[0].r_from, msg_ep_addr(b)),
	    "the reply comes back in the request's scheme from B");
	is_int(msg_ep_dropped(a) + msg_ep_dropped(b), 0,
	    "nothing was dropped on the way");
	is_int(msg_ep_counters(a)->mc_send_errors, 0, "no send errors");

	ctx_reset(&ca);
	ctx_reset(&cb);
	msg_ep_free(a);
	msg_ep_free(b);
	evloop_free(loop);
}

static void
test_input(void)
{
	struct evloop *loop;
	struct msg_ep *b;
	struct msg_ep_opts opts;
	struct msg_addr lo, from, elsewhere;
	struct ctx cb;
	uint8_t d[MSG_DGRAM_MAX + 1];
	size_t n, i;
	uint64_t before;
	int rounds;

	memset(&cb, 0, sizeof(cb));
	memset(&opts, 0, sizeof(opts));
	opts.eo_frag_timeout = 0.3;
	loop = evloop_new();
	b = msg_ep_new(loop, kr, table, NTABLE, &cb, &opts);
	if (msg_addr_parse(&lo, "127.0.0.1", 0) == -1 ||
	    msg_ep_bind(b, &lo) == -1) {
		ok(0, "bind: %s", strerror(errno));
		msg_ep_free(b);
		evloop_free(loop);
		return;
	}
	if (msg_addr_parse(&from, "127.0.0.9:4000", 0) == -1 ||
	    msg_addr_parse(&elsewhere, "127.0.0.10:4001", 0) == -1)
		ok(0, "parse");
	cb.c_peer = from;
	ok(msg_ep_last_refusal(b)->mr_at == 0,
	    "a new endpoint has refused nothing");

	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), "direct", 6);
	msg_ep_input(b, sealed, n, &from, NULL);
	ok(cb.c_n == 1 && msg_addr_eq(&cb.c_rec[0].r_from, &from) &&
	    cb.c_rec[0].r_verify[0], "msg_ep_input delivers a good datagram");
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(cb.c_n, 1, "the same datagram again is not delivered");
	is_int(dropped(b, MSG_DROP_REPLAY), 1, "and counted as a replay");
	msg_ep_input(b, sealed, n, &elsewhere, NULL);
	is_int(dropped(b, MSG_DROP_REPLAY), 2,
	    "a replay from another address is a replay too");

	n = seal_for(MSG_SCHEME_CLUSTER, 200, msg_ep_addr(b), now_real_ms(),
	    "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_UNKNOWN_HANDLER), 1,
	    "handler 200 (past the table): unknown handler");
	n = seal_for(MSG_SCHEME_CLUSTER, H_EMPTY, msg_ep_addr(b),
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_UNKNOWN_HANDLER), 2,
	    "entry without a function: unknown handler");
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_UNDEF, msg_ep_addr(b),
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_UNKNOWN_HANDLER), 3,
	    "handler 0: unknown handler");
	n = seal_for(MSG_SCHEME_CLUSTER, 0xffff, msg_ep_addr(b),
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_UNKNOWN_HANDLER), 4,
	    "handler 65535: unknown handler");

	n = seal_for(MSG_SCHEME_USER, H_CLUSTER_ONLY, msg_ep_addr(b),
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_SCHEME), 1,
	    "user scheme to a cluster-only handler: bad scheme");
	n = seal_for(MSG_SCHEME_CLUSTER, H_CLUSTER_ONLY, msg_ep_addr(b),
	    now_real_ms(), "y", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	ok(cb.c_n == 2 && cb.c_rec[1].r_handler == H_CLUSTER_ONLY,
	    "cluster scheme to it: delivered");

	elsewhere = *msg_ep_addr(b);
	elsewhere.ma_port++;
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, &elsewhere,
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_MISADDRESSED), 1,
	    "sealed for another port: misaddressed");
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), "x", 1);
	msg_ep_input(b, sealed, n, &from, &elsewhere);
	is_int(dropped(b, MSG_DROP_MISADDRESSED), 2,
	    "arrived at another address than sealed for: misaddressed");
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(cb.c_n, 3, "the misaddressed copy did not use up the nonce");
	if (msg_addr_parse(&elsewhere, "127.0.0.2", msg_ep_addr(b)->ma_port)
	    == 0) {
		n = seal_for(MSG_SCHEME_USER, MSG_H_USER, &elsewhere,
		    now_real_ms(), "x", 1);
		msg_ep_input(b, sealed, n, &from, NULL);
		is_int(dropped(b, MSG_DROP_MISADDRESSED), 3,
		    "sealed for another host, same port: misaddressed");
	}

	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms() - 60000, "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_STALE), 1, "60 s old: stale");
	ok(msg_ep_last_refusal(b)->mr_why == MSG_DROP_STALE &&
	    msg_addr_eq(&msg_ep_last_refusal(b)->mr_from, &from) &&
	    msg_ep_last_refusal(b)->mr_at > 0 &&
	    msg_ep_last_refusal(b)->mr_skew_ms <= -58000 &&
	    msg_ep_last_refusal(b)->mr_skew_ms >= -62000,
	    "the last refusal: stale, from its sender, its clock 60 s behind "
	    "(%lld ms)", (long long)msg_ep_last_refusal(b)->mr_skew_ms);
	n = seal_for(MSG_SCHEME_USER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms() + 60000, "x", 1);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_STALE), 2, "60 s ahead: stale");
	ok(msg_ep_last_refusal(b)->mr_why == MSG_DROP_STALE &&
	    msg_ep_last_refusal(b)->mr_skew_ms >= 58000 &&
	    msg_ep_last_refusal(b)->mr_skew_ms <= 62000,
	    "the last refusal: its clock 60 s ahead (%lld ms)",
	    (long long)msg_ep_last_refusal(b)->mr_skew_ms);

	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), "mac", 3);
	sealed[n - 1] ^= 1;
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_MAC), 1, "flipped tag bit: bad mac");
	ok(msg_ep_last_refusal(b)->mr_why == MSG_DROP_BAD_MAC &&
	    msg_ep_last_refusal(b)->mr_keyid == cluster_key.k_id &&
	    msg_ep_last_refusal(b)->mr_skew_ms == 0,
	    "the last refusal: bad mac, naming the key id it was sealed with");
	n = seal_for(MSG_SCHEME_USER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), "sig", 3);
	sealed[n - 1] ^= 1;
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_SIG), 1,
	    "flipped signature bit: bad sig");

	/* Runts, oversize, junk. */
	before = dropped(b, MSG_DROP_BAD_LENGTH);
	memset(d, 0, sizeof(d));
	d[0] = MSG_MAGIC;
	d[1] = MSG_VERSION;
	d[2] = MSG_KIND_MESSAGE;
	for (i = 0; i < 3; i++)
		msg_ep_input(b, d, i, &from, NULL);
	msg_ep_input(b, d, MSG_DGRAM_MAX + 1, &from, NULL);
	msg_ep_input(b, d, 40, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_LENGTH) - before, 5,
	    "0, 1, 2, MSG_DGRAM_MAX + 1 and a 40-byte message: bad length");
	before = dropped(b, MSG_DROP_BAD_HEADER);
	d[0] = 0;
	msg_ep_input(b, d, 100, &from, NULL);
	d[0] = MSG_MAGIC;
	d[1] = 9;
	msg_ep_input(b, d, 100, &from, NULL);
	d[1] = MSG_VERSION;
	d[2] = 7;
	msg_ep_input(b, d, 100, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_HEADER) - before, 3,
	    "bad magic, version, kind: bad header");
	/* A whole message larger than one datagram is not read at all. */
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), big, 2000);
	before = dropped(b, MSG_DROP_BAD_LENGTH);
	msg_ep_input(b, sealed, n, &from, NULL);
	is_int(dropped(b, MSG_DROP_BAD_LENGTH) - before, 1,
	    "an unfragmented message of %zu bytes: bad length", n);

	/* Fragments: a bad one, a good message, and one left to time out. */
	before = dropped(b, MSG_DROP_BAD_LENGTH);
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, msg_ep_addr(b),
	    now_real_ms(), big, 5000);
	{
		size_t k, cnt = msg_frag_count(n), fl;
		int got = cb.c_n;

		for (k = 0; k < cnt; k++) {
			fl = msg_frag_build(42, cnt - 1 - k, sealed, n, d);
			msg_ep_input(b, d, fl, &from, NULL);
		}
		ok(cb.c_n == got + 1 && cb.c_rec[got].r_len == 5000 &&
		    memcmp(cb.c_rec[got].r_data, big, 5000) == 0,
		    "fragments fed in reverse: delivered intact");
		fl = msg_frag_build(43, 0, sealed, n, d);
		msg_ep_input(b, d, fl - 1, &from, NULL);
		is_int(dropped(b, MSG_DROP_BAD_LENGTH) - before, 1,
		    "a short fragment: bad length");
		msg_ep_input(b, d, fl, &from, NULL);
		is_int(dropped(b, MSG_DROP_REASSEMBLY_TIMEOUT), 0,
		    "one fragment of another message held");
		rounds = 0;
		while (dropped(b, MSG_DROP_REASSEMBLY_TIMEOUT) == 0 &&
		    rounds++ < 25)
			(void)evloop_run_once(loop, 0.2);
		is_int(dropped(b, MSG_DROP_REASSEMBLY_TIMEOUT), 1,
		    "the loop's timer expires it: reassembly timeout");
	}
	{
		uint64_t sum = 0;

		for (i = 0; i < MSG_DROP_MAX; i++)
			sum += dropped(b, (enum msg_drop)i);
		is_int(msg_ep_dropped(b), sum, "msg_ep_dropped is the sum "
		    "of the drop counters (%llu)", (unsigned long long)sum);
	}
	is_int(dropped(b, MSG_DROP_NONE), 0, "nothing counted as none");
	ctx_reset(&cb);
	msg_ep_free(b);
	evloop_free(loop);
}

/*
 * Mid-rotation: A knows only the old cluster key, B has [new, old].
 * B's reply to A's request goes out under the request's (old) key.
 */
static void
test_rotation_reply(void)
{
	struct msg_keyring *ka, *kb;
	struct msg_key newkey;
	struct evloop *loop;
	struct msg_ep *a, *b;
	struct msg_addr lo;
	struct ctx ca, cb;

	memset(&ca, 0, sizeof(ca));
	memset(&cb, 0, sizeof(cb));
	if (msg_key_generate(&newkey, MSG_KEY_CLUSTER, NULL) == -1 ||
	    (ka = calloc(1, sizeof(*ka))) == NULL ||
	    (kb = calloc(1, sizeof(*kb))) == NULL) {
		ok(0, "setup");
		return;
	}
	ka->kr_cluster.ks_key[0] = cluster_key;
	ka->kr_cluster.ks_n = 1;
	kb->kr_cluster.ks_key[0] = newkey;
	kb->kr_cluster.ks_key[1] = cluster_key;
	kb->kr_cluster.ks_n = 2;
	loop = evloop_new();
	a = msg_ep_new(loop, ka, table, NTABLE, &ca, NULL);
	b = msg_ep_new(loop, kb, table, NTABLE, &cb, NULL);
	(void)msg_addr_parse(&lo, "127.0.0.1", 0);
	if (a == NULL || b == NULL || msg_ep_bind(a, &lo) == -1 ||
	    msg_ep_bind(b, &lo) == -1) {
		ok(0, "endpoints");
	} else {
		ca.c_peer = *msg_ep_addr(b);
		cb.c_peer = *msg_ep_addr(a);
		ok(msg_ep_send(a, msg_ep_addr(b), MSG_SCHEME_CLUSTER, H_ECHO,
		    "old?", 4) == 0 && run_until(loop, &ca.c_n, 1, 5.0) == 0,
		    "A (old key only) asks B ([new, old]); B's answer arrives");
		is_int(dropped(a, MSG_DROP_UNKNOWN_KEY), 0,
		    "A never saw a key it lacks");
		/* waits for the drop, not a time: valgrind on a busy machine */
		ok(msg_ep_send(b, msg_ep_addr(a), MSG_SCHEME_CLUSTER,
		    MSG_H_USER, "new", 3) == 0 &&
		    drop_until(loop, a, MSG_DROP_UNKNOWN_KEY, 1, 60.0) == 0 &&
		    ca.c_n == 1,
		    "while B's own messages use the new key, unknown to A");
	}
	ctx_reset(&ca);
	ctx_reset(&cb);
	msg_ep_free(a);
	msg_ep_free(b);
	evloop_free(loop);
	msg_keyring_clear(ka);
	msg_keyring_clear(kb);
	free(ka);
	free(kb);
}

/* Prints the non-zero drop counters as a TAP comment. */
static void
show_drops(struct msg_ep *ep)
{
	int d;

	if (msg_ep_dropped(ep) == 0)
		return;
	printf("# dropped:");
	for (d = 0; d < MSG_DROP_MAX; d++)
		if (dropped(ep, d) > 0)
			printf(" %s=%llu", msg_drop_name(d),
			    (unsigned long long)dropped(ep, d));
	printf("\n");
}

/* Sends one datagram from a plain UDP socket. */
static int
raw_send(const struct msg_addr *to, const uint8_t *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	ssize_t n;
	int fd;

	if ((sl = msg_addr_to_sockaddr(to, &ss)) == 0 ||
	    (fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	n = sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

/*
 * A receiver bound to the wildcard address learns where each datagram
 * was sent from IP_PKTINFO; and the same exchange over IPv6 loopback.
 */
static void
test_bind_variants(void)
{
	static const struct {
		const char	*bind;
		const char	*host;
	} v[] = {
		{ "0.0.0.0", "127.0.0.1" },
		{ "::1", "::1" },
		{ "::", "::1" },
		/*
		 * Dual stack, IPv4 sender: the kernel reports source and
		 * destination as ::ffff:127.0.0.1, the header holds
		 * 127.0.0.1; they must still match.
		 */
		{ "::", "127.0.0.1" },
	};
	struct evloop *loop;
	struct msg_ep *a, *b;
	struct msg_addr ba, aa, dst;
	struct ctx ca, cb;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(&ca, 0, sizeof(ca));
		memset(&cb, 0, sizeof(cb));
		loop = evloop_new();
		a = msg_ep_new(loop, kr, table, NTABLE, &ca, NULL);
		b = msg_ep_new(loop, kr, table, NTABLE, &cb, NULL);
		if (msg_addr_parse(&ba, v[i].bind, 0) == -1 ||
		    msg_addr_parse(&aa, v[i].host, 0) == -1 ||
		    msg_ep_bind(b, &ba) == -1 || msg_ep_bind(a, &aa) == -1) {
			skip("cannot bind %s: %s", v[i].bind,
			    strerror(errno));
			goto next;
		}
		if (msg_addr_parse(&dst, v[i].host, msg_ep_addr(b)->ma_port) ==
		    -1) {
			ok(0, "parse %s", v[i].host);
			goto next;
		}
		cb.c_peer = *msg_ep_addr(a);
		ok(msg_ep_send(a, &dst, MSG_SCHEME_USER, MSG_H_USER, "v", 1) ==
		    0 && run_until(loop, &cb.c_n, 1, 2.0) == 0 &&
		    cb.c_rec[0].r_verify[0], "receiver bound to %s, sent to "
		    "%s: delivered from the sender's address", v[i].bind,
		    v[i].host);
		if (cb.c_n > 0) {
			char t1[64], t2[64];

			msg_addr_text(&cb.c_rec[0].r_from, t1, sizeof(t1));
			msg_addr_text(msg_ep_addr(a), t2, sizeof(t2));
			printf("# mi_from %s, sender bound to %s\n", t1, t2);
		}
		is_int(msg_ep_dropped(b), 0, "nothing dropped");
		show_drops(b);
		/*
		 * Sealed for one address, sent over UDP to another of the
		 * receiver's: the kernel's destination address decides.
		 */
		{
			struct msg_addr other;
			uint64_t before = dropped(b, MSG_DROP_MISADDRESSED);
			size_t n;

			other = dst;
			if (v[i].host[0] == ':')
				other.ma_addr[15] = 2;	/* ::2 */
			else
				other.ma_addr[3] = 2;	/* 127.0.0.2 */
			n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, &other,
			    now_real_ms(), "w", 1);
			ok(raw_send(&dst, sealed, n) == 0,
			    "a datagram sealed for %s sent by hand",
			    v[i].host[0] == ':' ? "::2" : "127.0.0.2");
			for (n = 0; n < 25 && dropped(b,
			    MSG_DROP_MISADDRESSED) == before; n++)
				(void)evloop_run_once(loop, 0.2);
			is_int(dropped(b, MSG_DROP_MISADDRESSED), before + 1,
			    "arriving at %s it is misaddressed", v[i].host);
		}
 next:
		ctx_reset(&ca);
		ctx_reset(&cb);
		msg_ep_free(a);
		msg_ep_free(b);
		evloop_free(loop);
	}
}

/* The fuzzer's set-up: no loop, no socket. */
static void
test_null_loop(void)
{
	struct msg_ep *ep;
	struct msg_addr me, from, to;
	struct ctx c;
	uint8_t ping[32], d[MSG_DGRAM_MAX];
	uint64_t before, dropped_before;
	size_t n, fl, i, nfrag;
	int seen;

	memset(&c, 0, sizeof(c));
	ep = msg_ep_new(NULL, kr, table, NTABLE, &c, NULL);
	ok(ep != NULL, "msg_ep_new with a NULL loop");
	if (ep == NULL)
		return;
	ok(msg_ep_fd(ep) == -1, "no socket");
	memset(&me, 0, sizeof(me));
	ok(msg_addr_eq(msg_ep_addr(ep), &me), "unbound address is all zero");
	(void)msg_addr_parse(&from, "127.0.0.1:9", 0);
	(void)msg_addr_parse(&to, "127.0.0.1:7410", 0);
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, &me, now_real_ms(),
	    "z", 1);
	msg_ep_input(ep, sealed, n, &from, NULL);
	ok(c.c_n == 0 && dropped(ep, MSG_DROP_BAD_HEADER) == 1,
	    "a message sealed for the zero address: bad header");
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, &to, now_real_ms(),
	    "z", 1);
	msg_ep_input(ep, sealed, n, &from, &to);
	is_int(c.c_n, 1, "with an explicit to address it is delivered");
	msg_ping_build(ping, sizeof(ping), 1, 2);
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_PING, &to, now_real_ms(),
	    ping, sizeof(ping));
	before = msg_ep_counters(ep)->mc_delivered;
	msg_ep_input(ep, sealed, n, &from, &to);
	is_int(msg_ep_counters(ep)->mc_delivered, before + 1,
	    "a ping is taken; its answer cannot be sent, and nothing crashes");
	is_int(msg_ep_counters(ep)->mc_sent, 0, "nothing was sent");
	n = seal_for(MSG_SCHEME_CLUSTER, MSG_H_USER, &to, now_real_ms(),
	    big, 3000);
	/*
	 * Fragments without a loop (so no reassembly timer): held until
	 * the last, then delivered whole; one left pending when freed.
	 */
	nfrag = msg_frag_count(n);
	seen = c.c_n;
	dropped_before = msg_ep_dropped(ep);
	for (i = 0; i + 1 < nfrag; i++) {
		fl = msg_frag_build(1, i, sealed, n, d);
		msg_ep_input(ep, d, fl, &from, &to);
	}
	ok(nfrag > 1 && c.c_n == seen && msg_ep_dropped(ep) == dropped_before,
	    "all but the last of %zu fragments are held", nfrag);
	fl = msg_frag_build(1, nfrag - 1, sealed, n, d);
	msg_ep_input(ep, d, fl, &from, &to);
	ok(c.c_n == seen + 1 && c.c_rec[seen].r_len == 3000 &&
	    msg_ep_dropped(ep) == dropped_before,
	    "the last one completes the message, delivered once");
	fl = msg_frag_build(2, 0, sealed, n, d);
	msg_ep_input(ep, d, fl, &from, &to);
	ctx_reset(&c);
	msg_ep_free(ep);	/* with a reassembly pending: ASan checks */
}

int
main(void)
{
	char path[PATH_MAX];

	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	setup_keys();
	test_live();
	test_input();
	test_null_loop();
	test_rotation_reply();
	test_bind_variants();
	snprintf(path, sizeof(path), "%s/alice.pub", tmpdir);
	unlink(path);
	rmdir(tmpdir);
	msg_keyring_clear(kr);
	free(kr);
	return tap_done();
}
