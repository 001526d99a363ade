/* msg_replay — timestamp window and per-sender nonce cache. */
#include "msg_replay.h"

#include <stdlib.h>
#include <string.h>

/* libbsd leaves __unused undefined (Debian #522773); tree.h wants it. */
#ifndef __unused
#define __unused __attribute__((__unused__))
#endif
#include <sys/tree.h>

/*
 * The whole nonce is compared: its first bytes are one process's random
 * prefix, its last a counter (msg_nonce.h).
 */
#define KEY_LEN		MSG_NONCE_LEN
#define START_CAP	16
#define FORGOTTEN_BUCKETS 4096

struct replay_entry {
	uint8_t		re_key[KEY_LEN];
	uint64_t	re_ts;
	int32_t		re_next;	/* bucket chain, -1 ends */
};

struct replay_sender {
	RB_ENTRY(replay_sender) rs_node;
	enum msg_scheme	 rs_scheme;
	char		 rs_name[MSG_NAME_MAX + 1];
	uint64_t	 rs_floor;	/* timestamps below are refused */
	uint64_t	 rs_newest;
	uint64_t	 rs_used;	/* LRU clock */
	struct replay_entry *rs_e;	/* ring, oldest at rs_head */
	size_t		 rs_cap, rs_head, rs_n;
	int32_t		*rs_bucket;	/* 2 * rs_cap heads */
};

RB_HEAD(replay_tree, replay_sender);

struct msg_replay {
	struct replay_tree mr_senders;
	size_t		 mr_nsenders, mr_max_senders;
	size_t		 mr_per_sender[MSG_SCHEME_MAX];	/* powers of two */
	uint64_t	 mr_clock;
	/*
	 * Floors of forgotten senders, by a hash of their names: a sender
	 * heard again starts above what it had said, and an unrelated one
	 * sharing its bucket is at worst refused until its clock passes.
	 */
	uint64_t	 mr_forgotten[FORGOTTEN_BUCKETS];
	uint64_t	 mr_floor;	/* below: sent before we started */
};

/* FNV-1a: names are authenticated, so no one can aim at a bucket. */
static size_t
forgotten_bucket(enum msg_scheme scheme, const char *name)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)scheme;

	while (*name != '\0') {
		h ^= (uint8_t)*name++;
		h *= 1099511628211ULL;
	}
	return (size_t)(h % FORGOTTEN_BUCKETS);
}

static int
sender_cmp(const struct replay_sender *a, const struct replay_sender *b)
{
	if (a->rs_scheme != b->rs_scheme)
		return a->rs_scheme < b->rs_scheme ? -1 : 1;
	return strcmp(a->rs_name, b->rs_name);
}

RB_GENERATE_STATIC(replay_tree, replay_sender, rs_node, sender_cmp)

/* Bucket masks need a power of two; 0 if per_sender is out of range. */
static size_t
cap_of(size_t per_sender)
{
	size_t cap = 1;

	if (per_sender < 1 || per_sender > (1u << 24))
		return 0;
	while (cap < per_sender)
		cap *= 2;
	return cap;
}

struct msg_replay *
msg_replay_new(size_t per_sender, size_t max_senders)
{
	struct msg_replay *r;
	size_t cap = cap_of(per_sender);
	int i;

	if (cap == 0 || max_senders < 1)
		return NULL;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return NULL;
	RB_INIT(&r->mr_senders);
	for (i = 0; i < MSG_SCHEME_MAX; i++)
		r->mr_per_sender[i] = cap;
	r->mr_max_senders = max_senders;
	return r;
}

int
msg_replay_set_cap(struct msg_replay *r, enum msg_scheme scheme,
    size_t per_sender)
{
	size_t cap = cap_of(per_sender);

	if (cap == 0 || scheme <= MSG_SCHEME_UNDEF || scheme >= MSG_SCHEME_MAX)
		return -1;
	r->mr_per_sender[scheme] = cap;
	return 0;
}

void
msg_replay_set_floor(struct msg_replay *r, uint64_t ts_ms)
{
	r->mr_floor = ts_ms;
}

static void
sender_free(struct replay_sender *s)
{
	free(s->rs_e);
	free(s->rs_bucket);
	free(s);
}

void
msg_replay_free(struct msg_replay *r)
{
	struct replay_sender *s, *next;

	if (r == NULL)
		return;
	RB_FOREACH_SAFE(s, replay_tree, &r->mr_senders, next) {
		RB_REMOVE(replay_tree, &r->mr_senders, s);
		sender_free(s);
	}
	free(r);
}

size_t
msg_replay_senders(const struct msg_replay *r)
{
	return r->mr_nsenders;
}

static size_t
bucket_of(const struct replay_sender *s, const uint8_t *key)
{
	uint64_t a, b, c;

	/*
	 * Prefix and counter mixed (Fibonacci hashing): one process's nonces
	 * spread by the counter, processes at the same count by the prefix.
	 * Only authenticated nonces get here, so none is aimed at a bucket.
	 */
	memcpy(&a, key, sizeof(a));
	memcpy(&b, key + 8, sizeof(b));
	memcpy(&c, key + 16, sizeof(c));
	return (size_t)(((a ^ b ^ c) * 0x9e3779b97f4a7c15ULL) >> 32) &
	    (2 * s->rs_cap - 1);
}

static int
sender_rebuild(struct replay_sender *s, size_t newcap)
{
	struct replay_entry *e;
	int32_t *b;
	size_t i;

	if ((e = calloc(newcap, sizeof(*e))) == NULL ||
	    (b = calloc(2 * newcap, sizeof(*b))) == NULL) {
		free(e);
		return -1;
	}
	for (i = 0; i < s->rs_n; i++)
		e[i] = s->rs_e[(s->rs_head + i) % s->rs_cap];
	free(s->rs_e);
	free(s->rs_bucket);
	s->rs_e = e;
	s->rs_bucket = b;
	s->rs_cap = newcap;
	s->rs_head = 0;
	for (i = 0; i < 2 * newcap; i++)
		b[i] = -1;
	for (i = 0; i < s->rs_n; i++) {
		size_t bk = bucket_of(s, e[i].re_key);

		e[i].re_next = b[bk];
		b[bk] = (int32_t)i;
	}
	return 0;
}

static int
sender_seen(const struct replay_sender *s, const uint8_t *key)
{
	int32_t i;

	for (i = s->rs_bucket[bucket_of(s, key)]; i != -1;
	    i = s->rs_e[i].re_next)
		if (memcmp(s->rs_e[i].re_key, key, KEY_LEN) == 0)
			return 1;
	return 0;
}

/* Forgets the oldest nonce; the floor keeps its replay refused. */
static void
sender_pop(struct replay_sender *s)
{
	struct replay_entry *old = &s->rs_e[s->rs_head];
	int32_t *link, idx = (int32_t)s->rs_head;

	for (link = &s->rs_bucket[bucket_of(s, old->re_key)]; *link != -1;
	    link = &s->rs_e[*link].re_next)
		if (*link == idx) {
			*link = old->re_next;
			break;
		}
	if (old->re_ts + 1 > s->rs_floor)
		s->rs_floor = old->re_ts + 1;
	s->rs_head = (s->rs_head + 1) % s->rs_cap;
	s->rs_n--;
}

static void
sender_add(struct replay_sender *s, const uint8_t *key, uint64_t ts)
{
	size_t slot = (s->rs_head + s->rs_n) % s->rs_cap, bk;

	memcpy(s->rs_e[slot].re_key, key, KEY_LEN);
	s->rs_e[slot].re_ts = ts;
	bk = bucket_of(s, key);
	s->rs_e[slot].re_next = s->rs_bucket[bk];
	s->rs_bucket[bk] = (int32_t)slot;
	s->rs_n++;
	if (ts > s->rs_newest)
		s->rs_newest = ts;
}

/* Forgets the least recently heard sender, keeping its replays refused. */
static void
replay_evict(struct msg_replay *r)
{
	struct replay_sender *s, *lru = NULL;
	uint64_t *floor;

	RB_FOREACH(s, replay_tree, &r->mr_senders)
		if (lru == NULL || s->rs_used < lru->rs_used)
			lru = s;
	if (lru == NULL)
		return;
	floor = &r->mr_forgotten[forgotten_bucket(lru->rs_scheme,
	    lru->rs_name)];
	if (lru->rs_newest + 1 > *floor)
		*floor = lru->rs_newest + 1;
	if (lru->rs_floor > *floor)
		*floor = lru->rs_floor;
	RB_REMOVE(replay_tree, &r->mr_senders, lru);
	sender_free(lru);
	r->mr_nsenders--;
}

static struct replay_sender *
replay_sender_get(struct msg_replay *r, enum msg_scheme scheme,
    const char *name)
{
	struct replay_sender key, *s;

	memset(&key, 0, sizeof(key));
	key.rs_scheme = scheme;
	strlcpy(key.rs_name, name, sizeof(key.rs_name));
	if ((s = RB_FIND(replay_tree, &r->mr_senders, &key)) != NULL)
		return s;
	if (r->mr_nsenders >= r->mr_max_senders)
		replay_evict(r);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->rs_scheme = scheme;
	memcpy(s->rs_name, key.rs_name, sizeof(s->rs_name));
	/* We may have forgotten this sender: refuse what we cannot check. */
	s->rs_floor = r->mr_forgotten[forgotten_bucket(scheme, s->rs_name)];
	s->rs_cap = 1;
	if (sender_rebuild(s, START_CAP < r->mr_per_sender[scheme] ?
	    START_CAP : r->mr_per_sender[scheme]) == -1) {
		sender_free(s);
		return NULL;
	}
	RB_INSERT(replay_tree, &r->mr_senders, s);
	r->mr_nsenders++;
	return s;
}

enum msg_drop
msg_replay_check(struct msg_replay *r, enum msg_scheme scheme,
    const char *name, uint64_t ts, const uint8_t nonce[MSG_NONCE_LEN],
    uint64_t now, uint64_t window)
{
	struct replay_sender *s;

	if (scheme <= MSG_SCHEME_UNDEF || scheme >= MSG_SCHEME_MAX)
		return MSG_DROP_REPLAY;
	if (ts + window < now || ts > now + window)
		return MSG_DROP_STALE;
	if (ts < r->mr_floor)
		return MSG_DROP_REPLAY;
	/* Without memory to remember the nonce, refuse: fail closed. */
	if ((s = replay_sender_get(r, scheme, name)) == NULL)
		return MSG_DROP_REPLAY;
	s->rs_used = ++r->mr_clock;
	while (s->rs_n > 0 && s->rs_e[s->rs_head].re_ts + window < now)
		sender_pop(s);
	if (ts < s->rs_floor || sender_seen(s, nonce))
		return MSG_DROP_REPLAY;
	if (s->rs_n == s->rs_cap) {
		if (s->rs_cap < r->mr_per_sender[scheme]) {
			size_t cap = s->rs_cap * 2;

			if (cap > r->mr_per_sender[scheme])
				cap = r->mr_per_sender[scheme];
			if (sender_rebuild(s, cap) == -1)
				sender_pop(s);
		} else
			sender_pop(s);
	}
	sender_add(s, nonce, ts);
	return MSG_DROP_NONE;
}
