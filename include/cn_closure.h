/*
 * cn_closure — the closures of a program of threads (cilknow(3),
 * "Threads"): a thread waiting to run on its argument, and, for a
 * successor, its slots and how many are still empty (its join).  A
 * store numbers them so that a continuation names a closure by index
 * and generation, never by address: a continuation to a closure that
 * ran, or one that was never made, is refused, not followed.  Pure: no
 * I/O, no scheduling.
 */
#ifndef CILKNOW_CN_CLOSURE_H
#define CILKNOW_CN_CLOSURE_H

#include <stddef.h>
#include <stdint.h>

#include "cilknow.h"

#define CN_CL_ARG_INLINE	64	/* argument bytes kept in the closure */
#define CN_CL_SLOT_INLINE	16	/* value bytes kept in a slot */
#define CN_CL_SLOTS_INLINE	4	/* slots kept in the closure */
#define CN_CL_CHUNK		4096	/* closures per chunk of the store */

struct cn_slot {
	uint32_t	 sl_len;
	uint8_t		 sl_full;
	uint8_t		*sl_big;	/* malloc'd if sl_len > inline */
	uint8_t		 sl_inl[CN_CL_SLOT_INLINE];
};

enum cn_cl_state {
	CN_CL_UNDEF = 0,
	CN_CL_FREE,
	CN_CL_WAITING,		/* slots still empty */
	CN_CL_READY,		/* every slot full, not run yet */
	CN_CL_MAX
};

struct cn_closure {
	cn_thread	*cl_fn;
	struct cn_cont	 cl_k;
	uint32_t	 cl_index, cl_gen;
	enum cn_cl_state cl_state;
	uint32_t	 cl_nslots, cl_missing;
	size_t		 cl_len;
	uint8_t		*cl_arg;	/* cl_inl or malloc'd */
	struct cn_slot	*cl_slots;	/* cl_slot_inl or malloc'd */
	uint32_t	 cl_next_free;
	uint8_t		 cl_inl[CN_CL_ARG_INLINE];
	struct cn_slot	 cl_slot_inl[CN_CL_SLOTS_INLINE];
};

struct cn_cstore {
	struct cn_closure **cs_chunks;
	uint32_t	 cs_nchunks;
	uint32_t	 cs_n;		/* indices handed out; 0 unused */
	uint32_t	 cs_free;	/* free list head, 0: empty */
	uint32_t	 cs_owner;	/* k_owner of our continuations */
	uint64_t	 cs_live;	/* made, not freed */
	uint64_t	 cs_made;
};

void	cn_cstore_init(struct cn_cstore *, uint32_t owner);
void	cn_cstore_fini(struct cn_cstore *);
/*
 * A closure for fn(arg) whose value goes to k, with nslots empty slots
 * (0: ready at once); the argument is copied.  NULL with errno
 * EMSGSIZE, EINVAL (nslots > CN_SLOTS_MAX) or ENOMEM.
 */
struct cn_closure *cn_closure_new(struct cn_cstore *, cn_thread *fn,
	    struct cn_cont k, const void *arg, size_t len, uint32_t nslots);
/* The continuation of slot i (i < cl_nslots). */
struct cn_cont cn_closure_cont(const struct cn_cstore *,
	    const struct cn_closure *, uint32_t i);
/*
 * Fills the slot k names with a copy of len bytes.  0, with *ready the
 * closure if that was its last empty slot (else NULL); -1 with errno
 * EMSGSIZE, ESTALE (not ours, never made, freed since), ERANGE (no
 * such slot), EALREADY (slot full), ENOMEM.
 */
int	cn_closure_send(struct cn_cstore *, struct cn_cont k, const void *,
	    size_t len, struct cn_closure **ready);
/* Slot i's value and length; NULL if no such slot or it is empty. */
const void *cn_closure_slot(const struct cn_closure *, uint32_t i,
	    size_t *len);
/* The closure ran: its index may be used again, its conts go stale. */
void	cn_closure_free(struct cn_cstore *, struct cn_closure *);
/* By continuation; NULL (errno ESTALE) if it names no live closure. */
struct cn_closure *cn_closure_find(struct cn_cstore *, struct cn_cont k);

#endif
