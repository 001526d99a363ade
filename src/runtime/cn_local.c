/*
 * cn_local — a process's own work: the deque of pending frames (the
 * newest run first, the oldest leave first), the sum and the records of
 * the unit being run.  cilknow.h's task-side calls live here.
 */
#include "cn_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn))
broken(const struct cn_ctx *c, const char *what)
{
	/* A bug in the program, not bad input: it cannot go on. */
	fprintf(stderr, "%s: cilknow: %s\n", c->c_prog ?
	    c->c_prog->cp_name : "cilknow", what);
	abort();
}

int
cn_local_push(struct cn_ctx *c, const struct cn_frame *f)
{
	struct cn_frame *nf;
	size_t cap;

	if (c->c_hi == c->c_cap) {
		if (c->c_lo > 0) {	/* room at the old end: slide */
			memmove(c->c_frames, c->c_frames + c->c_lo,
			    (c->c_hi - c->c_lo) * sizeof(*nf));
			c->c_hi -= c->c_lo;
			c->c_lo = 0;
		} else {
			cap = c->c_cap ? c->c_cap * 2 : 1024;
			if ((nf = reallocarray(c->c_frames, cap,
			    sizeof(*nf))) == NULL)
				return -1;
			c->c_frames = nf;
			c->c_cap = cap;
		}
	}
	c->c_frames[c->c_hi++] = *f;
	return 0;
}

/* The oldest pending frame, for a thief or a hand-back. */
int
cn_local_take_oldest(struct cn_ctx *c, struct cn_frame *f)
{
	if (c->c_hi == c->c_lo)
		return -1;
	*f = c->c_frames[c->c_lo++];
	if (c->c_lo == c->c_hi)
		c->c_lo = c->c_hi = 0;
	return 0;
}

size_t
cn_local_pending(const struct cn_ctx *c)
{
	return c->c_hi - c->c_lo;
}

/* From now on spawns wait in the deque and nothing more runs here. */
void
cn_local_stop(struct cn_ctx *c)
{
	c->c_stop = 1;
	c->c_pub.cp_budget = 0;
}

/*
 * Runs frames newest first until none is left (0) or a hand-back is
 * called for (2: SIGQUIT, or the records piled up).  Looks at the
 * network when CN_POLL_GAP has passed, between tasks and in cn_spawn.
 */
int
cn_local_run(struct cn_ctx *c)
{
	uint8_t arg[CN_ARG_MAX];
	struct cn_frame *f;
	uint16_t fn;
	size_t len;

	/* Spawns go through cn_spawn until thieves have enough. */
	c->c_pub.cp_budget = 0;
	while (c->c_hi > c->c_lo) {
		if (c->c_stop)
			return 2;
		f = &c->c_frames[--c->c_hi];
		fn = f->fr_fn;
		len = f->fr_len;
		memcpy(arg, f->fr_arg, len);
		if (c->c_hi == c->c_lo)
			c->c_lo = c->c_hi = 0;
		if (fn == CN_FN_THREADS) {
			/* The root of a program of threads: only here. */
			if (c->c_threads && !c->c_thread_ran++)
				(void)cn_threads_run(c);
			continue;
		}
		c->c_prog->cp_fns[fn](c, arg, len);
		c->c_tasks++;
		/* Popped tasks are coarse: a look at the clock each. */
		if (c->c_poll != NULL)
			c->c_poll(c);
	}
	return c->c_stop ? 2 : 0;
}

void
cn_spawn(struct cn_ctx *c, uint16_t fn, const void *arg, size_t len)
{
	struct cn_frame *f;

	if (fn >= c->c_prog->cp_nfns || len > CN_ARG_MAX)
		broken(c, "cn_spawn: no such task function or argument "
		    "too long");
	/* Enough waits for thieves: run it now, as a plain call. */
	/* A look at the clock every 16 calls here (1024 plain calls). */
	if (c->c_poll != NULL && (++c->c_slow & 15) == 0)
		c->c_poll(c);	/* may hand frames to a thief */
	if (!c->c_stop && (c->c_alone || c->c_hi - c->c_lo >= CN_LAZY)) {
		c->c_pub.cp_budget = c->c_alone ? INT32_MAX : CN_BUDGET;
		c->c_prog->cp_fns[fn](c, arg, len);
		return;
	}
	c->c_pub.cp_budget = 0;
	if (c->c_hi == c->c_cap) {
		struct cn_frame tmp;

		tmp.fr_fn = fn;
		tmp.fr_len = (uint16_t)len;
		memcpy(tmp.fr_arg, arg, len);
		if (cn_local_push(c, &tmp) == -1)
			broken(c, "cn_spawn: out of memory");
		return;
	}
	f = &c->c_frames[c->c_hi++];
	f->fr_fn = fn;
	f->fr_len = (uint16_t)len;
	memcpy(f->fr_arg, arg, len);
}

void
cn_add(struct cn_ctx *c, int64_t v)
{
	c->c_pub.cp_sum += v;
}

int
cn_emit(struct cn_ctx *c, uint32_t key, const void *p, size_t len)
{
	struct wire_w w;
	uint8_t *nr;
	size_t need;

	if (len > CN_RECORD_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	if (c->c_alone) {
		if (c->c_prog->cp_record != NULL)
			c->c_prog->cp_record(c->c_prog->cp_arg, key, p, len);
		return 0;
	}
	need = c->c_nrec + 8 + len;
	if (need > CN_RECORDS_MAX) {	/* one task emitted too much */
		errno = ENOBUFS;
		return -1;
	}
	if (need > c->c_caprec) {
		if ((nr = realloc(c->c_rec, need * 2)) == NULL)
			return -1;
		c->c_rec = nr;
		c->c_caprec = need * 2;
	}
	wire_w_init(&w, c->c_rec + c->c_nrec, 8 + len);
	wire_put_u32(&w, key);
	wire_put_u32(&w, (uint32_t)len);
	wire_put_bytes(&w, p, len);
	c->c_nrec += 8 + len;
	if (c->c_nrec >= CN_RECORDS_FLUSH)
		cn_local_stop(c);	/* hand these over before more */
	return 0;
}
