/* htab — open-addressing hash table of pointers; see htab.h. */
#include "htab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

struct htab_slot {
	uint64_t	 hs_hash;
	void		*hs_elem;	/* NULL: empty; &tomb: deleted */
};

static char tomb;
#define TOMB	((void *)&tomb)
#define MIN_CAP	16

void
htab_init(struct htab *h)
{
	memset(h, 0, sizeof(*h));
	randombytes_buf(h->ht_key, sizeof(h->ht_key));
}

void
htab_fini(struct htab *h)
{
	free(h->ht_slot);
	h->ht_slot = NULL;
	h->ht_cap = h->ht_n = h->ht_used = 0;
}

uint64_t
htab_hash(const struct htab *h, const void *p, size_t len)
{
	uint8_t out[crypto_shorthash_BYTES];
	uint64_t v;

	crypto_shorthash(out, p, len, h->ht_key);
	memcpy(&v, out, sizeof(v));
	return v;
}

/* Puts elem in the first empty slot of its probe sequence. */
static void
place(struct htab_slot *slot, size_t cap, uint64_t hash, void *elem)
{
	size_t i;

	for (i = hash & (cap - 1); slot[i].hs_elem != NULL;
	    i = (i + 1) & (cap - 1))
		;
	slot[i].hs_hash = hash;
	slot[i].hs_elem = elem;
}

/* A new array for the live entries: at most half full afterwards. */
static int
grow(struct htab *h)
{
	struct htab_slot *slot;
	size_t cap = h->ht_cap ? h->ht_cap : MIN_CAP, i;

	while (cap < 2 * (h->ht_n + 1))
		cap *= 2;
	if (cap > SIZE_MAX / sizeof(*slot) ||
	    (slot = calloc(cap, sizeof(*slot))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < h->ht_cap; i++)
		if (h->ht_slot[i].hs_elem != NULL &&
		    h->ht_slot[i].hs_elem != TOMB)
			place(slot, cap, h->ht_slot[i].hs_hash,
			    h->ht_slot[i].hs_elem);
	free(h->ht_slot);
	h->ht_slot = slot;
	h->ht_cap = cap;
	h->ht_used = h->ht_n;
	return 0;
}

int
htab_add(struct htab *h, uint64_t hash, void *elem)
{
	size_t i;

	if ((h->ht_used + 1) * 10 > h->ht_cap * 7 && grow(h) == -1)
		return -1;
	for (i = hash & (h->ht_cap - 1); h->ht_slot[i].hs_elem != NULL &&
	    h->ht_slot[i].hs_elem != TOMB; i = (i + 1) & (h->ht_cap - 1))
		;
	if (h->ht_slot[i].hs_elem == NULL)
		h->ht_used++;	/* a tombstone reused was counted */
	h->ht_slot[i].hs_hash = hash;
	h->ht_slot[i].hs_elem = elem;
	h->ht_n++;
	return 0;
}

void *
htab_find(const struct htab *h, uint64_t hash, htab_match_fn *match,
    const void *key)
{
	const struct htab_slot *s;
	size_t i;

	if (h->ht_cap == 0)
		return NULL;
	for (i = hash & (h->ht_cap - 1); (s = &h->ht_slot[i])->hs_elem !=
	    NULL; i = (i + 1) & (h->ht_cap - 1))
		if (s->hs_elem != TOMB && s->hs_hash == hash &&
		    match(s->hs_elem, key))
			return s->hs_elem;
	return NULL;
}

int
htab_del(struct htab *h, uint64_t hash, const void *elem)
{
	struct htab_slot *s;
	size_t i;

	if (h->ht_cap == 0)
		return -1;
	for (i = hash & (h->ht_cap - 1); (s = &h->ht_slot[i])->hs_elem !=
	    NULL; i = (i + 1) & (h->ht_cap - 1))
		if (s->hs_elem == elem) {
			/* The next slot empty: no probe passes here. */
			if (h->ht_slot[(i + 1) & (h->ht_cap - 1)].hs_elem ==
			    NULL) {
				s->hs_elem = NULL;
				h->ht_used--;
			} else
				s->hs_elem = TOMB;
			h->ht_n--;
			return 0;
		}
	return -1;
}

void *
htab_at(const struct htab *h, uint64_t i)
{
	size_t k;
	void *e;

	if (h->ht_n == 0)
		return NULL;
	for (k = 0; k < h->ht_cap; k++)
		if ((e = h->ht_slot[(i + k) & (h->ht_cap - 1)].hs_elem) !=
		    NULL && e != TOMB)
			return e;
	return NULL;
}
