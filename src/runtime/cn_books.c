/*
 * cn_books — a victim's books of the closures it lent (include/
 * cn_steal.h).  Entries are reused from the lowest free index under a
 * new generation.
 */
#include "cn_steal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
cn_books_init(struct cn_books *b, uint32_t owner)
{
	memset(b, 0, sizeof(*b));
	b->bk_owner = owner;
}

void
cn_books_fini(struct cn_books *b)
{
	uint32_t i;

	for (i = 1; i < b->bk_n; i++)
		free(b->bk_e[i].b_arg);
	free(b->bk_e);
	memset(b, 0, sizeof(*b));
}

static void
strike(struct cn_books *b, struct cn_book *e)
{
	free(e->b_arg);
	e->b_arg = NULL;
	e->b_used = 0;
	e->b_gen++;
	b->bk_live--;
}

int
cn_books_lend(struct cn_books *b, uint32_t thief, uint64_t steal,
    uint16_t fn, struct cn_cont k, const void *arg, size_t len,
    struct cn_cont *bk)
{
	struct cn_book *e, *ne;
	uint32_t i, cap;

	if (len > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	for (i = 1; i < b->bk_n && b->bk_e[i].b_used; i++)
		continue;
	if (i >= b->bk_n) {
		if (b->bk_n == 0)
			b->bk_n = 1;	/* index 0 names nothing */
		i = b->bk_n;
		if (i >= b->bk_cap) {
			if (b->bk_cap >= (CN_K_BOOK >> 1)) {
				errno = ENOMEM;
				return -1;
			}
			cap = b->bk_cap ? b->bk_cap * 2 : 64;
			if ((ne = reallocarray(b->bk_e, cap,
			    sizeof(*ne))) == NULL)
				return -1;
			memset(ne + b->bk_cap, 0,
			    (cap - b->bk_cap) * sizeof(*ne));
			b->bk_e = ne;
			b->bk_cap = cap;
		}
	}
	e = &b->bk_e[i];
	if ((e->b_arg = malloc(len ? len : 1)) == NULL)
		return -1;
	if (len > 0)
		memcpy(e->b_arg, arg, len);
	if (i == b->bk_n)
		b->bk_n++;
	e->b_len = len;
	e->b_used = 1;
	e->b_fn = fn;
	e->b_thief = thief;
	e->b_steal = steal;
	e->b_k = k;
	b->bk_live++;
	bk->k_owner = b->bk_owner;
	bk->k_index = CN_K_BOOK | i;
	bk->k_gen = e->b_gen;
	bk->k_slot = 0;
	return 0;
}

int
cn_books_take(struct cn_books *b, struct cn_cont bk, uint32_t from,
    struct cn_cont *k)
{
	struct cn_book *e;
	uint32_t i = bk.k_index & ~CN_K_BOOK;

	if (bk.k_owner != b->bk_owner || !(bk.k_index & CN_K_BOOK) ||
	    bk.k_slot != 0 || i == 0 || i >= b->bk_n ||
	    !b->bk_e[i].b_used || b->bk_e[i].b_gen != bk.k_gen) {
		errno = ESTALE;
		return -1;
	}
	e = &b->bk_e[i];
	if (e->b_thief != from) {
		errno = EPERM;
		return -1;
	}
	*k = e->b_k;
	strike(b, e);
	return 0;
}

struct cn_book *
cn_books_find(struct cn_books *b, uint32_t thief, uint64_t steal)
{
	uint32_t i;

	for (i = 1; i < b->bk_n; i++)
		if (b->bk_e[i].b_used && b->bk_e[i].b_thief == thief &&
		    b->bk_e[i].b_steal == steal)
			return &b->bk_e[i];
	return NULL;
}

uint32_t
cn_books_lost(struct cn_books *b, uint32_t thief, cn_books_rerun_fn *fn,
    void *arg)
{
	uint32_t i, n = 0;

	for (i = 1; i < b->bk_n; i++) {
		if (!b->bk_e[i].b_used || b->bk_e[i].b_thief != thief)
			continue;
		if (fn != NULL)
			fn(arg, &b->bk_e[i]);
		strike(b, &b->bk_e[i]);
		n++;
	}
	return n;
}
