/*
 * htab — a small open-addressing hash table of pointers, for lookups
 * that must not grow with the table (the broker's nodes and jobs by
 * address and by id).  The caller hashes its key with htab_hash() (keyed
 * SipHash: a peer that picks keys cannot pick collisions) and says what
 * matches; the table keeps the hash with each pointer and never owns
 * what they point to.  Linear probing, deletion by tombstones, grown
 * (and cleaned of tombstones) at 70 % use.
 */
#ifndef CILKNOW_HTAB_H
#define CILKNOW_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct htab_slot;

struct htab {
	struct htab_slot	*ht_slot;
	size_t			 ht_cap;	/* 0 or a power of 2 */
	size_t			 ht_n;		/* live entries */
	size_t			 ht_used;	/* live and tombstones */
	uint8_t			 ht_key[16];	/* SipHash key, random */
};

/* Match: 1 if elem is the one key names. */
typedef int	htab_match_fn(const void *elem, const void *key);

void	 htab_init(struct htab *);
void	 htab_fini(struct htab *);
uint64_t htab_hash(const struct htab *, const void *, size_t);
/* 0, or -1 (ENOMEM).  The same pointer must not be added twice. */
int	 htab_add(struct htab *, uint64_t hash, void *elem);
/* The first element with this hash that match accepts, or NULL. */
void	*htab_find(const struct htab *, uint64_t hash, htab_match_fn *,
	    const void *key);
/*
 * The first element at or after slot i (mod the capacity), or NULL if
 * the table is empty: with i random, a random element (those after long
 * gaps a little more often), for sampling.
 */
void	*htab_at(const struct htab *, uint64_t i);
/* Removes elem (added with hash); 0, or -1 if it is not there. */
int	 htab_del(struct htab *, uint64_t hash, const void *elem);

#endif
