/* keyrate — see include/keyrate.h. */
#include "keyrate.h"

#include <stdlib.h>
#include <string.h>

int
keyrate_init(struct keyrate *kr, size_t cap, double rate, double burst,
    struct log_rate log)
{
	memset(kr, 0, sizeof(*kr));
	if (cap == 0 || (kr->kr_ents = calloc(cap, sizeof(*kr->kr_ents))) ==
	    NULL)
		return -1;
	kr->kr_cap = cap;
	kr->kr_rate = rate;
	kr->kr_burst = burst < 1 ? 1 : burst;
	kr->kr_log = log;
	return 0;
}

void
keyrate_fini(struct keyrate *kr)
{
	free(kr->kr_ents);
	memset(kr, 0, sizeof(*kr));
}

struct keyrate_ent *
keyrate_get(struct keyrate *kr, const void *key, size_t klen, double now)
{
	struct keyrate_ent *e, *lru = NULL;
	size_t i;

	if (klen > KEYRATE_KEY_MAX)
		klen = KEYRATE_KEY_MAX;
	for (i = 0; i < kr->kr_n; i++) {
		e = &kr->kr_ents[i];
		if (e->ke_klen == klen && memcmp(e->ke_key, key, klen) == 0) {
			e->ke_used = now;
			return e;
		}
		if (lru == NULL || e->ke_used < lru->ke_used)
			lru = e;
	}
	e = kr->kr_n < kr->kr_cap ? &kr->kr_ents[kr->kr_n++] : lru;
	memset(e, 0, sizeof(*e));
	memcpy(e->ke_key, key, klen);
	e->ke_klen = klen;
	e->ke_tokens = kr->kr_burst;
	e->ke_last = e->ke_used = now;
	e->ke_log = kr->kr_log;
	return e;
}

static void
refill(struct keyrate *kr, struct keyrate_ent *e, double now)
{
	if (now > e->ke_last) {
		e->ke_tokens += (now - e->ke_last) * kr->kr_rate;
		if (e->ke_tokens > kr->kr_burst)
			e->ke_tokens = kr->kr_burst;
		e->ke_last = now;
	}
}

int
keyrate_ready(struct keyrate *kr, struct keyrate_ent *e, double now)
{
	refill(kr, e, now);
	return e->ke_tokens >= 1;
}

int
keyrate_take_ent(struct keyrate *kr, struct keyrate_ent *e, double now)
{
	refill(kr, e, now);
	if (e->ke_tokens >= 1) {
		e->ke_tokens -= 1;
		return 1;
	}
	e->ke_refused++;
	return 0;
}

int
keyrate_take(struct keyrate *kr, const void *key, size_t klen, double now)
{
	return keyrate_take_ent(kr, keyrate_get(kr, key, klen, now), now);
}
