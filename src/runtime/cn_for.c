/*
 * cn_for — the parallel loop of cilknow(3): a range split in halves
 * down to its grain, each half a child thread, each split a successor
 * with two slots that combines its halves' values (divide and conquer,
 * as a Cilk programmer writes it by hand).
 *
 * A half can be stolen by another process of the job, which runs the
 * same program: its body and combine travel as offsets into the
 * program's executable (cn_for_portable, cn_for_import), since the
 * program is loaded at another address there.
 */
#include "cn_sched.h"

#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

struct for_head {
	int64_t		 fh_lo, fh_hi, fh_grain;
	cn_for_body	*fh_body;
	cn_for_combine	*fh_combine;
	size_t		 fh_vlen;
	/* 1 + the offset of each into the executable; 0 for NULL */
	uint64_t	 fh_body_at, fh_combine_at;
};

#define FOR_NOWHERE	UINT64_MAX	/* not in the executable */
#define EXE_SEGS	8

/* The executable's load address and its segments of code. */
static struct {
	int		 done;
	uintptr_t	 base;
	uintptr_t	 lo[EXE_SEGS], hi[EXE_SEGS];
	int		 nseg;
} exe;

static int
exe_found(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Phdr) *ph;
	int i;

	(void)size;
	(void)arg;
	exe.base = info->dlpi_addr;
	for (i = 0; i < info->dlpi_phnum && exe.nseg < EXE_SEGS; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		exe.lo[exe.nseg] = info->dlpi_addr + ph->p_vaddr;
		exe.hi[exe.nseg++] = info->dlpi_addr + ph->p_vaddr +
		    ph->p_memsz;
	}
	return 1;	/* the first object is the executable */
}

static void
exe_find(void)
{
	if (!exe.done) {
		(void)dl_iterate_phdr(exe_found, NULL);
		exe.done = 1;
	}
}

static int
in_exe(uintptr_t p)
{
	int i;

	exe_find();
	for (i = 0; i < exe.nseg; i++)
		if (p >= exe.lo[i] && p < exe.hi[i])
			return 1;
	return 0;
}

static uint64_t
at_of(uintptr_t p)
{
	if (p == 0)
		return 0;
	return in_exe(p) ? (uint64_t)(p - exe.base) + 1 : FOR_NOWHERE;
}

/* The function at *at in our process: 0, or -1 if it is not code of ours. */
static int
from_at(uint64_t at, uintptr_t *p)
{
	if (at == 0) {
		*p = 0;
		return 0;
	}
	exe_find();
	if (at == FOR_NOWHERE || at - 1 > UINTPTR_MAX - exe.base ||
	    !in_exe(exe.base + (uintptr_t)(at - 1)))
		return -1;
	*p = exe.base + (uintptr_t)(at - 1);
	return 0;
}

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

int
cn_for_portable(cn_thread *fn, const void *arg, size_t len)
{
	struct for_head h;

	if (fn != for_thread || len < sizeof(h))
		return 0;
	memcpy(&h, arg, sizeof(h));
	return h.fh_body_at != FOR_NOWHERE && h.fh_body_at != 0 &&
	    h.fh_combine_at != FOR_NOWHERE;
}

cn_thread *
cn_for_split(void)
{
	return for_thread;
}

cn_thread *
cn_for_import(void *arg, size_t len)
{
	struct for_head h;
	uintptr_t body, combine;

	if (len < sizeof(h))
		return NULL;
	memcpy(&h, arg, sizeof(h));
	if (from_at(h.fh_body_at, &body) == -1 || body == 0 ||
	    from_at(h.fh_combine_at, &combine) == -1 ||
	    (combine == 0 && h.fh_vlen > 0) || h.fh_grain < 1 ||
	    h.fh_hi < h.fh_lo || h.fh_vlen > CN_VALUE_MAX)
		return NULL;
	h.fh_body = (cn_for_body *)body;
	h.fh_combine = (cn_for_combine *)combine;
	memcpy(arg, &h, sizeof(h));
	return for_thread;
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
	h.fh_body_at = at_of((uintptr_t)body);
	h.fh_combine_at = at_of((uintptr_t)combine);
	if ((buf = malloc(sizeof(h) + len)) == NULL)
		return -1;
	memcpy(buf, &h, sizeof(h));
	if (len > 0)
		memcpy(buf + sizeof(h), arg, len);
	rc = cn_spawn(c, for_thread, k, buf, sizeof(h) + len);
	free(buf);
	return rc;
}
