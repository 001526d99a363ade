/*
 * msg_replay_test — the timestamp window in both directions, nonces per
 * sender, and the safety property of the bounded caches: forgetting a
 * nonce (per-sender overflow, sender eviction) never lets its replay
 * through.
 */
#include "msg_replay.h"

#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "tap.h"

#define NOW	1700000000000ULL	/* ms */
#define WIN	30000ULL

static void	nonce_of(uint8_t *, uint32_t, uint32_t);
static void	test_basic(void);
static void	test_window(void);
static void	test_overflow(void);
static void	test_out_of_order(void);
static void	test_growth(void);
static void	test_eviction(void);
static void	test_random(void);
static void	test_eviction_skew(void);
static void	test_new(void);
static void	test_floor(void);

/* A deterministic nonce for (sender tag, sequence). */
static void
nonce_of(uint8_t *n, uint32_t tag, uint32_t seq)
{
	uint8_t in[8];

	memcpy(in, &tag, 4);
	memcpy(in + 4, &seq, 4);
	crypto_generichash(n, MSG_NONCE_LEN, in, sizeof(in), NULL, 0);
}

static void
test_basic(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN], n2[MSG_NONCE_LEN];

	r = msg_replay_new(16, 16);
	ok(r != NULL, "msg_replay_new");
	nonce_of(n, 1, 1);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW, n, NOW, WIN),
	    MSG_DROP_NONE, "fresh message accepted");
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW, n, NOW, WIN),
	    MSG_DROP_REPLAY, "same nonce again: replay");
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW + 5, n,
	    NOW + 10, WIN), MSG_DROP_REPLAY,
	    "same nonce with another timestamp: replay");
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW, n, NOW, WIN),
	    MSG_DROP_NONE, "another sender with the same nonce: accepted");
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "alice", NOW, n, NOW,
	    WIN), MSG_DROP_NONE,
	    "the same name under the other scheme is another sender");
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW, n, NOW, WIN),
	    MSG_DROP_REPLAY, "bob's replay: replay");
	nonce_of(n2, 1, 2);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW, n2, NOW,
	    WIN), MSG_DROP_NONE, "alice's second nonce, same timestamp");
	is_int(msg_replay_senders(r), 3, "three senders remembered");
	msg_replay_free(r);
	msg_replay_free(NULL);	/* harmless; a crash would end the test */
}

static void
test_window(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	uint32_t seq = 0;

	r = msg_replay_new(64, 4);
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW - WIN, n, NOW,
	    WIN), MSG_DROP_NONE, "exactly one window old: accepted");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW - WIN - 1, n,
	    NOW, WIN), MSG_DROP_STALE, "one window and 1 ms old: stale");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW + WIN, n, NOW,
	    WIN), MSG_DROP_NONE, "exactly one window ahead: accepted");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW + WIN + 1, n,
	    NOW, WIN), MSG_DROP_STALE, "one window and 1 ms ahead: stale");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", 0, n, NOW, WIN),
	    MSG_DROP_STALE, "timestamp 0: stale");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", UINT64_MAX, n, NOW,
	    WIN), MSG_DROP_STALE, "timestamp UINT64_MAX: stale");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", UINT64_MAX - WIN + 1,
	    n, NOW, WIN), MSG_DROP_STALE,
	    "timestamp that wraps when the window is added: stale");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW, n, NOW, 0),
	    MSG_DROP_NONE, "window 0, same millisecond: accepted");
	nonce_of(n, 2, seq++);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW - 1, n, NOW, 0),
	    MSG_DROP_STALE, "window 0, 1 ms old: stale");
	/* A stale message is not remembered: its nonce is still unseen. */
	nonce_of(n, 2, 1);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "x", NOW - WIN - 1, n,
	    NOW, WIN), MSG_DROP_STALE, "new sender, stale message");
	is_int(msg_replay_senders(r), 1,
	    "a stale message does not create a sender");
	/* A message seen once, replayed after the window, is stale. */
	nonce_of(n, 2, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "w", NOW - WIN, n,
	    NOW + 1, WIN), MSG_DROP_STALE,
	    "the first message 1 ms later: stale");
	msg_replay_free(r);
}

/* The key property: overflowing a sender's cache refuses old replays. */
static void
test_overflow(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	unsigned accepted = 0, replay = 0, stale = 0, fresh = 0;
	uint32_t i;
	enum msg_drop d;

	r = msg_replay_new(8, 4);
	for (i = 0; i < 100; i++) {
		nonce_of(n, 3, i);
		if (msg_replay_check(r, MSG_SCHEME_CLUSTER, "node-a", NOW + i,
		    n, NOW + i, WIN) == MSG_DROP_NONE)
			fresh++;
	}
	is_int(fresh, 100, "100 fresh nonces with rising timestamps accepted");
	for (i = 0; i < 100; i++) {
		nonce_of(n, 3, i);
		d = msg_replay_check(r, MSG_SCHEME_CLUSTER, "node-a", NOW + i,
		    n, NOW + 100, WIN);
		if (d == MSG_DROP_NONE) {
			accepted++;
			printf("# replay of message %u accepted\n", i);
		} else if (d == MSG_DROP_REPLAY)
			replay++;
		else if (d == MSG_DROP_STALE)
			stale++;
	}
	is_int(accepted, 0, "replaying each of the 100 (cache of 8): none "
	    "accepted (%u replay, %u stale)", replay, stale);
	is_int(replay + stale, 100, "every one refused as replay or stale");
	nonce_of(n, 3, 1000);
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "node-a", NOW + 101, n,
	    NOW + 101, WIN), MSG_DROP_NONE,
	    "a new message with a current timestamp is still accepted");
	nonce_of(n, 3, 1001);
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "node-a", NOW + 101, n,
	    NOW + 101, WIN), MSG_DROP_NONE, "and another in the same ms");
	/* The same replays again, much later: stale now. */
	accepted = 0;
	for (i = 0; i < 100; i++) {
		nonce_of(n, 3, i);
		if (msg_replay_check(r, MSG_SCHEME_CLUSTER, "node-a", NOW + i,
		    n, NOW + 200 + WIN, WIN) != MSG_DROP_STALE)
			accepted++;
	}
	is_int(accepted, 0, "after the window every replay is stale");
	msg_replay_free(r);
}

/* Overflow with timestamps out of order, and replays at every moment. */
static void
test_out_of_order(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	uint64_t ts[200];
	unsigned accepted = 0, taken = 0;
	uint32_t i, j;

	r = msg_replay_new(8, 4);
	for (i = 0; i < 200; i++) {
		ts[i] = NOW + randombytes_uniform(2000);
		nonce_of(n, 4, i);
		if (msg_replay_check(r, MSG_SCHEME_USER, "ooo", ts[i], n,
		    NOW + 1000, WIN) != MSG_DROP_NONE) {
			ts[i] = 0;	/* refused as too late: fine */
			continue;
		}
		taken++;
		/* Replay everything taken so far after each insertion. */
		for (j = 0; j <= i; j++) {
			if (ts[j] == 0)
				continue;
			nonce_of(n, 4, j);
			if (msg_replay_check(r, MSG_SCHEME_USER, "ooo", ts[j],
			    n, NOW + 1000, WIN) == MSG_DROP_NONE)
				accepted++;
		}
	}
	ok(taken > 8, "%u of 200 out-of-order messages taken", taken);
	is_int(accepted, 0, "no replay accepted at any point");
	msg_replay_free(r);
}

/* A cache that grows from its start size up to per_sender, then wraps. */
static void
test_growth(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	unsigned fresh = 0, accepted = 0;
	uint32_t i;

	r = msg_replay_new(MSG_REPLAY_PER_SENDER, MSG_REPLAY_SENDERS);
	for (i = 0; i < 3 * MSG_REPLAY_PER_SENDER / 2; i++) {
		nonce_of(n, 5, i);
		if (msg_replay_check(r, MSG_SCHEME_USER, "grow", NOW + i / 4,
		    n, NOW + i / 4, WIN) == MSG_DROP_NONE)
			fresh++;
	}
	is_int(fresh, 3 * MSG_REPLAY_PER_SENDER / 2,
	    "%d fresh nonces through the growing cache",
	    3 * MSG_REPLAY_PER_SENDER / 2);
	for (i = 0; i < 3 * MSG_REPLAY_PER_SENDER / 2; i++) {
		nonce_of(n, 5, i);
		if (msg_replay_check(r, MSG_SCHEME_USER, "grow", NOW + i / 4,
		    n, NOW + 3 * MSG_REPLAY_PER_SENDER / 8, WIN) ==
		    MSG_DROP_NONE)
			accepted++;
	}
	is_int(accepted, 0, "every one of them refused on replay");
	/* per_sender that is not a power of two. */
	msg_replay_free(r);
	r = msg_replay_new(5, 2);
	ok(r != NULL, "per_sender 5 is fine");
	for (i = 0; i < 50; i++) {
		nonce_of(n, 6, i);
		(void)msg_replay_check(r, MSG_SCHEME_USER, "five", NOW + i, n,
		    NOW + i, WIN);
	}
	accepted = 0;
	for (i = 0; i < 50; i++) {
		nonce_of(n, 6, i);
		if (msg_replay_check(r, MSG_SCHEME_USER, "five", NOW + i, n,
		    NOW + 50, WIN) == MSG_DROP_NONE)
			accepted++;
	}
	is_int(accepted, 0, "per_sender 5: 50 replays refused");
	msg_replay_free(r);
}

static void
test_eviction(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	unsigned accepted = 0;
	uint32_t i;

	r = msg_replay_new(64, 2);
	for (i = 0; i < 10; i++) {
		nonce_of(n, 7, i);
		(void)msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW + i, n,
		    NOW + i, WIN);
	}
	nonce_of(n, 8, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW + 10, n,
	    NOW + 10, WIN), MSG_DROP_NONE, "bob accepted");
	is_int(msg_replay_senders(r), 2, "two senders");
	nonce_of(n, 9, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "carol", NOW + 11, n,
	    NOW + 11, WIN), MSG_DROP_NONE, "carol accepted");
	is_int(msg_replay_senders(r), 2, "still two senders: alice evicted");
	for (i = 0; i < 10; i++) {
		nonce_of(n, 7, i);
		if (msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW + i, n,
		    NOW + 12, WIN) == MSG_DROP_NONE) {
			accepted++;
			printf("# evicted alice's message %u accepted\n", i);
		}
	}
	is_int(accepted, 0, "replays of evicted alice's messages refused");
	nonce_of(n, 7, 100);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "alice", NOW + 13, n,
	    NOW + 13, WIN), MSG_DROP_NONE,
	    "a new message from alice is accepted");

	/* Least recently used goes first: bob is refreshed, carol goes. */
	msg_replay_free(r);
	r = msg_replay_new(64, 2);
	nonce_of(n, 8, 1);
	(void)msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW, n, NOW, WIN);
	nonce_of(n, 9, 1);
	(void)msg_replay_check(r, MSG_SCHEME_USER, "carol", NOW + 1, n,
	    NOW + 1, WIN);
	nonce_of(n, 8, 2);
	(void)msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW + 2, n,
	    NOW + 2, WIN);
	nonce_of(n, 10, 1);
	(void)msg_replay_check(r, MSG_SCHEME_USER, "dave", NOW + 3, n,
	    NOW + 3, WIN);
	nonce_of(n, 8, 2);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW + 2, n,
	    NOW + 4, WIN), MSG_DROP_REPLAY,
	    "bob, recently heard, still remembers his nonce");
	nonce_of(n, 9, 1);
	ok(msg_replay_check(r, MSG_SCHEME_USER, "carol", NOW + 1, n,
	    NOW + 4, WIN) != MSG_DROP_NONE, "evicted carol's replay refused");
	msg_replay_free(r);
}

/*
 * The header promises that forgetting "can only refuse a message that
 * arrives very late".  Evicting a sender whose clock runs ahead (within
 * the window) must not refuse fresh messages of the senders that are
 * still remembered, nor of new ones.
 */
static void
test_eviction_skew(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];

	r = msg_replay_new(64, 2);
	nonce_of(n, 20, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "ahead", NOW + 20000, n,
	    NOW, WIN), MSG_DROP_NONE,
	    "a sender whose clock is 20 s ahead is accepted");
	nonce_of(n, 21, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW + 1, n,
	    NOW + 1, WIN), MSG_DROP_NONE, "bob accepted");
	nonce_of(n, 22, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "carol", NOW + 2, n,
	    NOW + 2, WIN), MSG_DROP_NONE, "carol accepted, evicting 'ahead'");
	nonce_of(n, 21, 1);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW + 3, n,
	    NOW + 3, WIN), MSG_DROP_NONE,
	    "bob's next message, on time, is still accepted");
	nonce_of(n, 23, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "dave", NOW + 4, n,
	    NOW + 4, WIN), MSG_DROP_NONE,
	    "a new sender's message, on time, is accepted");
	nonce_of(n, 20, 0);
	ok(msg_replay_check(r, MSG_SCHEME_USER, "ahead", NOW + 20000, n,
	    NOW + 5, WIN) != MSG_DROP_NONE,
	    "while the evicted sender's replay is still refused");
	msg_replay_free(r);
}

/*
 * Many senders, small caches, random timestamps; replays of anything
 * ever accepted, at random moments.  Nothing may be accepted twice.
 */
static void
test_random(void)
{
	enum { NMSG = 3000 };
	static struct {
		uint32_t	sender;
		uint64_t	ts;
		uint32_t	seq;
	} log[NMSG];
	static const char *const names[] = { "a", "b", "c", "d", "e", "f" };
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	unsigned nlog = 0, replays = 0, accepted = 0, stale = 0;
	uint64_t now = NOW;
	uint32_t i, seq = 0;

	r = msg_replay_new(4, 3);
	for (i = 0; i < 20000; i++) {
		now += randombytes_uniform(20);
		if (nlog > 0 && randombytes_uniform(2) == 0) {
			unsigned k = randombytes_uniform(nlog);
			enum msg_drop d;

			nonce_of(n, 100 + log[k].sender, log[k].seq);
			d = msg_replay_check(r, MSG_SCHEME_USER,
			    names[log[k].sender], log[k].ts, n, now, WIN);
			replays++;
			if (d == MSG_DROP_NONE)
				accepted++;
			else if (d == MSG_DROP_STALE)
				stale++;
		} else {
			uint32_t s = randombytes_uniform(6);
			uint64_t ts = now - WIN / 2 +
			    randombytes_uniform((uint32_t)WIN);

			nonce_of(n, 100 + s, seq);
			if (msg_replay_check(r, MSG_SCHEME_USER, names[s], ts,
			    n, now, WIN) == MSG_DROP_NONE && nlog < NMSG) {
				log[nlog].sender = s;
				log[nlog].ts = ts;
				log[nlog].seq = seq;
				nlog++;
			}
			seq++;
		}
	}
	is_int(accepted, 0, "random mix: %u replays of %u accepted messages, "
	    "none accepted (%u stale)", replays, nlog, stale);
	ok(msg_replay_senders(r) <= 3, "at most 3 senders remembered");
	msg_replay_free(r);
}

static void
test_new(void)
{
	ok(msg_replay_new(0, 1) == NULL, "per_sender 0 refused");
	ok(msg_replay_new(1, 0) == NULL, "max_senders 0 refused");
	ok(msg_replay_new((1u << 24) + 1, 1) == NULL,
	    "per_sender over 2^24 refused");
	{
		struct msg_replay *r = msg_replay_new(1, 1);
		uint8_t n[MSG_NONCE_LEN];
		unsigned accepted = 0;
		uint32_t i;

		ok(r != NULL, "per_sender 1, max_senders 1");
		for (i = 0; i < 20; i++) {
			nonce_of(n, 11, i);
			(void)msg_replay_check(r, MSG_SCHEME_USER,
			    i % 2 ? "p" : "q", NOW + i, n, NOW + i, WIN);
		}
		for (i = 0; i < 20; i++) {
			nonce_of(n, 11, i);
			if (msg_replay_check(r, MSG_SCHEME_USER,
			    i % 2 ? "p" : "q", NOW + i, n, NOW + 20, WIN) ==
			    MSG_DROP_NONE)
				accepted++;
		}
		is_int(accepted, 0, "one nonce, one sender: no replay passes");
		msg_replay_free(r);
	}
}

/* A daemon's start: nothing stamped before it, from anyone. */
static void
test_floor(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];

	r = msg_replay_new(16, 16);
	ok(r != NULL, "msg_replay_new");
	msg_replay_set_floor(r, NOW);
	nonce_of(n, 7, 1);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW - 5300, n,
	    NOW + 1000, WIN), MSG_DROP_REPLAY,
	    "captured 5.3 s before the start, inside the window: refused");
	is_int(msg_replay_senders(r), 0, "and no cache was made for it");
	nonce_of(n, 7, 2);
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "@cluster", NOW - 1, n,
	    NOW, WIN), MSG_DROP_REPLAY, "1 ms before the start: refused");
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "@cluster", NOW, n,
	    NOW, WIN), MSG_DROP_NONE, "stamped at the start: accepted");
	nonce_of(n, 7, 3);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "bob", NOW - 40000, n,
	    NOW, WIN), MSG_DROP_STALE, "outside the window it is stale first");
	msg_replay_free(r);
}

/*
 * The cluster's principal speaks for every node: 20,000 messages within
 * the window, then one that was sent at the start and arrives last (a
 * node whose clock is behind).  With the cluster's cap it is taken; a
 * user's cache of 4096 has forgotten that far back and refuses it.
 */
static void
test_cluster_cap(void)
{
	struct msg_replay *r;
	uint8_t n[MSG_NONCE_LEN];
	unsigned fresh[2] = { 0, 0 };
	enum msg_scheme sch[2] = { MSG_SCHEME_CLUSTER, MSG_SCHEME_USER };
	uint32_t i;
	int k;

	r = msg_replay_new(MSG_REPLAY_PER_SENDER, MSG_REPLAY_SENDERS);
	ok(msg_replay_set_cap(r, MSG_SCHEME_CLUSTER, MSG_REPLAY_PER_CLUSTER) ==
	    0, "the cluster's principals may remember more");
	ok(msg_replay_set_cap(r, MSG_SCHEME_MAX, 8) == -1 &&
	    msg_replay_set_cap(r, MSG_SCHEME_USER, 0) == -1,
	    "a bad scheme or size is refused");
	for (k = 0; k < 2; k++)
		for (i = 1; i <= 20000; i++) {
			nonce_of(n, 60 + k, i);
			if (msg_replay_check(r, sch[k], "node", NOW + i, n,
			    NOW + i, WIN) == MSG_DROP_NONE)
				fresh[k]++;
		}
	is_int(fresh[0], 20000, "20,000 cluster messages in 20 s taken");
	is_int(fresh[1], 20000, "and as many of a user's");
	nonce_of(n, 60, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "node", NOW, n,
	    NOW + 20001, WIN), MSG_DROP_NONE,
	    "a cluster message 20 s late is still checked, and taken");
	is_int(msg_replay_check(r, MSG_SCHEME_CLUSTER, "node", NOW, n,
	    NOW + 20002, WIN), MSG_DROP_REPLAY, "and refused when replayed");
	nonce_of(n, 61, 0);
	is_int(msg_replay_check(r, MSG_SCHEME_USER, "node", NOW, n,
	    NOW + 20001, WIN), MSG_DROP_REPLAY,
	    "a user's cache has forgotten that far: refused");
	msg_replay_free(r);
}

int
main(void)
{
	if (sodium_init() < 0) {
		printf("Bail out! sodium_init\n");
		return 1;
	}
	test_basic();
	test_window();
	test_overflow();
	test_out_of_order();
	test_growth();
	test_eviction();
	test_random();
	test_eviction_skew();
	test_new();
	test_floor();
	test_cluster_cap();
	return tap_done();
}
