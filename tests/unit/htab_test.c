/* Unit tests of htab: add, find, delete, growth and tombstones. */
#include <stdint.h>
#include <stdlib.h>

#include "htab.h"
#include "tap.h"

#define N	20000

static int
match(const void *elem, const void *key)
{
	return *(const uint32_t *)elem == *(const uint32_t *)key;
}

static uint64_t
hash(const struct htab *h, uint32_t k)
{
	return htab_hash(h, &k, sizeof(k));
}

int
main(void)
{
	static uint32_t v[N];
	struct htab h;
	uint32_t i, k, bad;

	htab_init(&h);
	k = 5;
	ok(htab_find(&h, hash(&h, k), match, &k) == NULL,
	    "an empty table finds nothing");
	ok(htab_del(&h, hash(&h, k), &k) == -1,
	    "and deletes nothing");
	for (i = 0; i < N; i++) {
		v[i] = i * 7 + 1;
		if (htab_add(&h, hash(&h, v[i]), &v[i]) == -1)
			break;
	}
	is_int(h.ht_n, N, "%d added", N);
	ok(h.ht_used * 10 <= h.ht_cap * 7, "grown to stay under 70 %% use");
	for (bad = 0, i = 0; i < N; i++) {
		k = i * 7 + 1;
		if (htab_find(&h, hash(&h, k), match, &k) != &v[i])
			bad++;
		k = i * 7 + 2;
		if (htab_find(&h, hash(&h, k), match, &k) != NULL)
			bad++;
	}
	is_int(bad, 0, "each found, nothing else");
	/* Every other one deleted: the rest still found past tombstones. */
	for (i = 0; i < N; i += 2)
		if (htab_del(&h, hash(&h, v[i]), &v[i]) == -1)
			break;
	is_int(h.ht_n, N / 2, "half deleted");
	ok(htab_del(&h, hash(&h, v[0]), &v[0]) == -1,
	    "a deleted one is not deleted twice");
	for (bad = 0, i = 0; i < N; i++) {
		k = v[i];
		if (htab_find(&h, hash(&h, k), match, &k) !=
		    (i % 2 ? &v[i] : NULL))
			bad++;
	}
	is_int(bad, 0, "the other half found, the deleted not");
	/* Churn: tombstones do not fill the table. */
	for (k = 0; k < 20 * N; k++) {
		i = k % (N / 2) * 2;
		if (htab_add(&h, hash(&h, v[i]), &v[i]) == -1 ||
		    htab_del(&h, hash(&h, v[i]), &v[i]) == -1)
			break;
	}
	ok(k == 20 * N && h.ht_n == N / 2 && h.ht_used < h.ht_cap,
	    "add and delete churn leaves free slots (%zu of %zu used)",
	    h.ht_used, h.ht_cap);
	/* Sampling: from any slot, a live element. */
	for (bad = 0, k = 0; k < 1000; k++) {
		uint32_t *e = htab_at(&h, (uint64_t)k * 2654435761u);

		if (e == NULL || (*e - 1) / 7 % 2 != 1)
			bad++;
	}
	is_int(bad, 0, "htab_at gives live elements only");
	/* Equal hashes: the match decides. */
	{
		uint32_t a = 1, b = 2;
		struct htab c;

		htab_init(&c);
		ok(htab_at(&c, 3) == NULL, "htab_at of an empty table: NULL");
		ok(htab_add(&c, 42, &a) == 0 && htab_add(&c, 42, &b) == 0 &&
		    htab_find(&c, 42, match, &b) == &b &&
		    htab_find(&c, 42, match, &a) == &a,
		    "colliding hashes: each found by its key");
		ok(htab_del(&c, 42, &a) == 0 &&
		    htab_find(&c, 42, match, &b) == &b &&
		    htab_find(&c, 42, match, &a) == NULL,
		    "and one deleted leaves the other");
		htab_fini(&c);
	}
	htab_fini(&h);
	return tap_done();
}
