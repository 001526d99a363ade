/*
 * cn_for — the parallel loop of cilknow(3): a range split in halves
 * down to its grain, each half a child thread, each split a successor
 * with two slots that combines its halves' values (divide and conquer,
 * as a Cilk programmer writes it by hand).
 */
#include "cn_sched.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct for_head {
	int64_t		 fh_lo, fh_hi, fh_grain;
	cn_for_body	*fh_body;
	cn_for_combine	*fh_combine;
	size_t		 fh_vlen;
};

struct for_join {
	cn_for_combine	*fj_combine;
	size_t		 fj_vlen;
};

#define FOR_STACK	512	/* bytes of argument or value on the stack */

static void	for_thread(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);
static void	for_join(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);

int
cn_for_owns(cn_thread *fn)
{
	return fn == for_thread || fn == for_join;
}

static void
fail(struct cn_ctx *c, const char *what)
{
	int err = errno;
	struct cn_sched *s = ((struct cn_ctx_pub *)(void *)c)->cp_sched;

	if (s != NULL)
		cn_sched_fail(s, what, err);
}

static void
for_join(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct for_join j;
	const void *a, *b;
	size_t la, lb;

	if (len != sizeof(j))
		return;
	memcpy(&j, arg, sizeof(j));
	if ((a = cn_slot(c, 0, &la)) == NULL ||
	    (b = cn_slot(c, 1, &lb)) == NULL || la != j.fj_vlen ||
	    lb != j.fj_vlen) {
		errno = EPROTO;
		fail(c, "cn_for: a half's value");
		return;
	}
	/* Slot values are the runtime's own, ours to combine into. */
	if (j.fj_vlen > 0)
		j.fj_combine((void *)(uintptr_t)a, b, j.fj_vlen);
	if (cn_send(c, k, a, j.fj_vlen) == -1)
		fail(c, "cn_for: sending a value");
}

static void
for_thread(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	uint8_t stack[FOR_STACK], *buf;
	struct cn_cont halves[2];
	struct for_head h;
	struct for_join j;
	int64_t mid;

	if (len < sizeof(h))
		return;
	memcpy(&h, arg, sizeof(h));
	if ((uint64_t)h.fh_hi - (uint64_t)h.fh_lo <= (uint64_t)h.fh_grain) {
		if (h.fh_vlen > sizeof(stack)) {
			if ((buf = calloc(1, h.fh_vlen)) == NULL) {
				fail(c, "cn_for");
				return;
			}
		} else {
			buf = stack;
			memset(buf, 0, h.fh_vlen);
		}
		h.fh_body(c, h.fh_lo, h.fh_hi, (const uint8_t *)arg +
		    sizeof(h), len - sizeof(h), buf);
		if (cn_send(c, k, buf, h.fh_vlen) == -1)
			fail(c, "cn_for: sending a value");
		if (buf != stack)
			free(buf);
		return;
	}
	j.fj_combine = h.fh_combine;
	j.fj_vlen = h.fh_vlen;
	if (cn_spawn_next(c, for_join, k, &j, sizeof(j), 2, halves) == -1) {
		fail(c, "cn_for: a join");
		return;
	}
	if (len > sizeof(stack)) {
		if ((buf = malloc(len)) == NULL) {
			fail(c, "cn_for");
			return;
		}
	} else
		buf = stack;
	memcpy(buf, arg, len);
	mid = h.fh_lo + (int64_t)(((uint64_t)h.fh_hi - (uint64_t)h.fh_lo) / 2);
	h.fh_hi = mid;
	memcpy(buf, &h, sizeof(h));
	if (cn_spawn(c, for_thread, halves[0], buf, len) == -1)
		fail(c, "cn_for: spawning a half");
	/* The left half may have been run: the arguments again. */
	memcpy(&h, arg, sizeof(h));
	h.fh_lo = mid;
	memcpy(buf, arg, len);
	memcpy(buf, &h, sizeof(h));
	if (cn_spawn(c, for_thread, halves[1], buf, len) == -1)
		fail(c, "cn_for: spawning a half");
	if (buf != stack)
		free(buf);
}

int
cn_for(struct cn_ctx *c, struct cn_cont k, int64_t lo, int64_t hi,
    int64_t grain, cn_for_body *body, cn_for_combine *combine, size_t vlen,
    const void *arg, size_t len)
{
	struct for_head h;
	uint8_t *buf;
	int rc;

	if (grain < 1 || hi < lo || body == NULL ||
	    (combine == NULL && vlen > 0) || (len > 0 && arg == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (vlen > CN_VALUE_MAX || len > CN_VALUE_MAX - sizeof(h)) {
		errno = EMSGSIZE;
		return -1;
	}
	h.fh_lo = lo;
	h.fh_hi = hi;
	h.fh_grain = grain;
	h.fh_body = body;
	h.fh_combine = combine;
	h.fh_vlen = vlen;
	if ((buf = malloc(sizeof(h) + len)) == NULL)
		return -1;
	memcpy(buf, &h, sizeof(h));
	if (len > 0)
		memcpy(buf + sizeof(h), arg, len);
	rc = cn_spawn(c, for_thread, k, buf, sizeof(h) + len);
	free(buf);
	return rc;
}
