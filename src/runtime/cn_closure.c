/*
 * cn_closure — closures, their slots and the store that numbers them
 * (include/cn_closure.h).  Closures live in chunks that never move, so
 * a pointer to one stays good while it lives; freed ones are reused
 * from a free list under a new generation.
 */
#include "cn_closure.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
cn_cstore_init(struct cn_cstore *s, uint32_t owner)
{
	memset(s, 0, sizeof(*s));
	s->cs_owner = owner;
}

static void
release(struct cn_closure *cl)
{
	uint32_t i;

	if (cl->cl_arg != cl->cl_inl)
		free(cl->cl_arg);
	cl->cl_arg = NULL;
	if (cl->cl_slots != NULL) {
		for (i = 0; i < cl->cl_nslots; i++)
			free(cl->cl_slots[i].sl_big);
		if (cl->cl_slots != cl->cl_slot_inl)
			free(cl->cl_slots);
	}
	cl->cl_slots = NULL;
}

void
cn_cstore_fini(struct cn_cstore *s)
{
	uint32_t i, j;

	for (i = 0; i < s->cs_nchunks; i++) {
		for (j = 0; j < CN_CL_CHUNK; j++)
			if (s->cs_chunks[i][j].cl_state == CN_CL_WAITING ||
			    s->cs_chunks[i][j].cl_state == CN_CL_READY)
				release(&s->cs_chunks[i][j]);
		free(s->cs_chunks[i]);
	}
	free(s->cs_chunks);
	memset(s, 0, sizeof(*s));
}

static inline struct cn_closure *
at(const struct cn_cstore *s, uint32_t i)
{
	return &s->cs_chunks[i / CN_CL_CHUNK][i % CN_CL_CHUNK];
}

/* A free closure's index, from the free list or a new one; 0 if none. */
static uint32_t
take(struct cn_cstore *s)
{
	struct cn_closure **nc;
	uint32_t i;

	if ((i = s->cs_free) != 0) {
		s->cs_free = at(s, i)->cl_next_free;
		return i;
	}
	if (s->cs_n + 1 >= (uint64_t)s->cs_nchunks * CN_CL_CHUNK) {
		if (s->cs_nchunks >= UINT32_MAX / CN_CL_CHUNK - 1) {
			errno = ENOMEM;
			return 0;
		}
		if ((nc = reallocarray(s->cs_chunks, s->cs_nchunks + 1,
		    sizeof(*nc))) == NULL)
			return 0;
		s->cs_chunks = nc;
		if ((nc[s->cs_nchunks] = calloc(CN_CL_CHUNK,
		    sizeof(**nc))) == NULL)
			return 0;
		s->cs_nchunks++;
	}
	i = ++s->cs_n;
	at(s, i)->cl_index = i;
	return i;
}

struct cn_closure *
cn_closure_new(struct cn_cstore *s, cn_thread *fn, struct cn_cont k,
    const void *arg, size_t len, uint32_t nslots)
{
	struct cn_closure *cl;
	uint32_t i;

	if (len > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return NULL;
	}
	if (nslots > CN_SLOTS_MAX || fn == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((i = take(s)) == 0)
		return NULL;
	cl = at(s, i);
	cl->cl_arg = cl->cl_inl;
	if (len > sizeof(cl->cl_inl) && (cl->cl_arg = malloc(len)) == NULL)
		goto nomem;
	cl->cl_slots = cl->cl_slot_inl;
	if (nslots > CN_CL_SLOTS_INLINE && (cl->cl_slots = calloc(nslots,
	    sizeof(*cl->cl_slots))) == NULL)
		goto nomem;
	else if (nslots <= CN_CL_SLOTS_INLINE)
		memset(cl->cl_slot_inl, 0, nslots * sizeof(cl->cl_slot_inl[0]));
	if (len > 0)
		memcpy(cl->cl_arg, arg, len);
	cl->cl_fn = fn;
	cl->cl_k = k;
	cl->cl_len = len;
	cl->cl_nslots = cl->cl_missing = nslots;
	cl->cl_state = nslots ? CN_CL_WAITING : CN_CL_READY;
	s->cs_live++;
	s->cs_made++;
	return cl;
 nomem:
	if (cl->cl_arg != cl->cl_inl)
		free(cl->cl_arg);
	cl->cl_arg = NULL;
	cl->cl_slots = NULL;
	cl->cl_next_free = s->cs_free;
	s->cs_free = i;
	errno = ENOMEM;
	return NULL;
}

struct cn_cont
cn_closure_cont(const struct cn_cstore *s, const struct cn_closure *cl,
    uint32_t i)
{
	struct cn_cont k;

	k.k_owner = s->cs_owner;
	k.k_index = cl->cl_index;
	k.k_gen = cl->cl_gen;
	k.k_slot = i;
	return k;
}

struct cn_closure *
cn_closure_find(struct cn_cstore *s, struct cn_cont k)
{
	struct cn_closure *cl;

	if (k.k_owner != s->cs_owner || k.k_index == 0 ||
	    k.k_index > s->cs_n) {
		errno = ESTALE;
		return NULL;
	}
	cl = at(s, k.k_index);
	if (cl->cl_gen != k.k_gen || (cl->cl_state != CN_CL_WAITING &&
	    cl->cl_state != CN_CL_READY)) {
		errno = ESTALE;
		return NULL;
	}
	return cl;
}

int
cn_closure_send(struct cn_cstore *s, struct cn_cont k, const void *p,
    size_t len, struct cn_closure **ready)
{
	struct cn_closure *cl;
	struct cn_slot *sl;

	*ready = NULL;
	if (len > CN_VALUE_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if ((cl = cn_closure_find(s, k)) == NULL)
		return -1;
	if (k.k_slot >= cl->cl_nslots) {
		errno = ERANGE;
		return -1;
	}
	sl = &cl->cl_slots[k.k_slot];
	if (sl->sl_full) {
		errno = EALREADY;
		return -1;
	}
	if (len > sizeof(sl->sl_inl)) {
		if ((sl->sl_big = malloc(len)) == NULL)
			return -1;
		memcpy(sl->sl_big, p, len);
	} else if (len > 0)
		memcpy(sl->sl_inl, p, len);
	sl->sl_len = (uint32_t)len;
	sl->sl_full = 1;
	if (--cl->cl_missing == 0) {
		cl->cl_state = CN_CL_READY;
		*ready = cl;
	}
	return 0;
}

const void *
cn_closure_slot(const struct cn_closure *cl, uint32_t i, size_t *len)
{
	const struct cn_slot *sl;

	if (cl == NULL || i >= cl->cl_nslots || !cl->cl_slots[i].sl_full)
		return NULL;
	sl = &cl->cl_slots[i];
	if (len != NULL)
		*len = sl->sl_len;
	return sl->sl_big != NULL ? sl->sl_big : sl->sl_inl;
}

void
cn_closure_free(struct cn_cstore *s, struct cn_closure *cl)
{
	release(cl);
	cl->cl_state = CN_CL_FREE;
	cl->cl_gen++;
	cl->cl_next_free = s->cs_free;
	s->cs_free = cl->cl_index;
	s->cs_live--;
}
