/*
 * cilksort — merge sort of N ints generated from a seed, the checksum
 * of the sorted array printed (sum of a[i] * (i + 1), modulo 2^64).
 * The input is laid out by value: the ints of each value range (the
 * top bits of the value) together, in range order, so that the sorted
 * array is the ranges sorted one after the other and no top-level
 * merge is left to one process.  main counts each range in every
 * process (cilknow(3): main runs everywhere); a process puts a range's
 * ints in place when it first needs them, so a worker makes the part
 * of the input it sorts, not all of it, and joins at once.  The ranges
 * are split by halves, and each range's ints sorted by halves, each
 * half a child whose sorted run comes back as its value (at most CS_RUN
 * ints, one value of at most 1 MiB), a successor merging two runs; the
 * range's last successor sums its part of the checksum, and only those
 * 8 bytes go back, added two by two.  Its serial twin is
 * cilksort_serial: the same layout, the same merge sort, one range
 * after the other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"
#include "bigmem.h"
/* mix, msort, CS_RANGE, CS_RANGES_MAX: shared with its twins */
#include "serial/cilksort_input.h"

#define CS_RUN	(CN_VALUE_MAX / sizeof(int32_t))  /* ints in one value */
#define CS_LEAF	2048		/* sorted serially below this */

static int32_t	*in;		/* the input, laid out by value */
static int64_t	 N;
/* Range r is in[start[r], start[r + 1]). */
static int64_t	 start[CS_RANGES_MAX + 1];
static uint32_t	 nranges, bits;
static uint8_t	 made[CS_RANGES_MAX];	/* range r's ints are in place here */

static void	sortrun(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	merge2(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	ranges(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	sumrun(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	add2(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	top(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = {
	top, sortrun, merge2, ranges, sumrun, add2
};

/* The input's int i: 31 bits, whose top bits pick its range. */
static int32_t
input(int64_t i)
{
	return (int32_t)(mix((uint64_t)i + 24) >> 33);
}

/* How many ints each range holds, and where the ranges start. */
static int
count_input(void)
{
	uint32_t r;
	int64_t i;

	while ((1u << bits) < CS_RANGES_MAX && (N >> bits) > CS_RANGE)
		bits++;
	nranges = 1u << bits;
	memset(start, 0, sizeof(start));
	for (i = 0; i < N; i++)
		start[((uint32_t)input(i) >> (31 - bits)) + 1]++;
	for (r = 0; r < nranges; r++)
		start[r + 1] += start[r];
	return (in = big_alloc(sizeof(*in) * (size_t)N)) == NULL ? -1 : 0;
}

/* Ranges [lo, hi) put in their places here, if not yet: one pass. */
static void
make_ranges(uint32_t lo, uint32_t hi)
{
	int64_t at[CS_RANGES_MAX], i;
	uint32_t r, missing = 0;
	int32_t v;

	for (r = lo; r < hi; r++) {
		at[r] = start[r];
		missing += !made[r];
	}
	if (missing == 0)
		return;
	for (i = 0; i < N; i++) {
		v = input(i);
		r = (uint32_t)v >> (31 - bits);
		if (r >= lo && r < hi && !made[r])
			in[at[r]++] = v;
	}
	for (r = lo; r < hi; r++)
		made[r] = 1;
}

/* The range that holds in[i]. */
static uint32_t
range_of(int64_t i)
{
	uint32_t lo = 0, hi = nranges, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (start[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* in[lo, hi) in place here. */
static void
make_input(int64_t lo, int64_t hi)
{
	if (hi > lo)
		make_ranges(range_of(lo), range_of(hi - 1) + 1);
}

/* Sorts in[lo, hi) (at most CS_RUN) into a run, its value. */
static void
sortrun(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	int64_t r[2], mid, half[2];
	struct cn_cont kk[2];
	int32_t *a, *tmp;

	if (len != sizeof(r))
		return;
	memcpy(r, arg, sizeof(r));
	if (r[0] < 0 || r[1] > N || r[1] < r[0] ||
	    (uint64_t)(r[1] - r[0]) > CS_RUN)
		return;
	if (r[1] - r[0] > CS_LEAF) {
		mid = r[0] + (r[1] - r[0]) / 2;
		if (cn_spawn_next(c, merge2, k, NULL, 0, 2, kk) == -1) {
			perror("cilksort: cn_spawn_next");
			return;
		}
		half[0] = r[0];
		half[1] = mid;
		(void)cn_spawn(c, sortrun, kk[0], half, sizeof(half));
		half[0] = mid;
		half[1] = r[1];
		(void)cn_spawn(c, sortrun, kk[1], half, sizeof(half));
		return;
	}
	if ((a = malloc(sizeof(*a) * (size_t)(r[1] - r[0]) + 1)) == NULL ||
	    (tmp = malloc(sizeof(*a) * (size_t)(r[1] - r[0]) + 1)) == NULL) {
		free(a);
		perror("cilksort");
		return;
	}
	make_input(r[0], r[1]);
	memcpy(a, in + r[0], sizeof(*a) * (size_t)(r[1] - r[0]));
	msort(a, tmp, r[1] - r[0]);
	if (cn_send(c, k, a, sizeof(*a) * (size_t)(r[1] - r[0])) == -1)
		perror("cilksort: cn_send");
	free(a);
	free(tmp);
}

static void
merge2(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const int32_t *x, *y;
	size_t lx, ly, i = 0, j = 0, n = 0;
	int32_t *out;

	(void)arg;
	(void)len;
	if ((x = cn_slot(c, 0, &lx)) == NULL || (y = cn_slot(c, 1, &ly)) ==
	    NULL || (out = malloc(lx + ly + 1)) == NULL)
		return;
	lx /= sizeof(*x);
	ly /= sizeof(*y);
	while (i < lx && j < ly)
		out[n++] = y[j] < x[i] ? y[j++] : x[i++];
	while (i < lx)
		out[n++] = x[i++];
	while (j < ly)
		out[n++] = y[j++];
	if (cn_send(c, k, out, n * sizeof(*out)) == -1)
		perror("cilksort: cn_send");
	free(out);
}

/* Its part of the checksum: the run is sorted in[lo, lo + n). */
static uint64_t
checksum(const int32_t *run, size_t n, int64_t lo)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += (uint64_t)(int64_t)run[i] * (uint64_t)(lo + (int64_t)i + 1);
	return sum;
}

/* The range's sorted run in slot 0; the argument is where it starts. */
static void
sumrun(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const int32_t *run;
	uint64_t sum;
	int64_t lo;
	size_t l;

	if (len != sizeof(lo) || (run = cn_slot(c, 0, &l)) == NULL)
		return;
	memcpy(&lo, arg, sizeof(lo));
	sum = checksum(run, l / sizeof(*run), lo);
	if (cn_send(c, k, &sum, sizeof(sum)) == -1)
		perror("cilksort: cn_send");
}

/* Range i sorted by halves into a run for sumrun, else here (below). */
static void
range(struct cn_ctx *c, struct cn_cont k, uint32_t i)
{
	int64_t r[2], n;
	struct cn_cont kk;
	int32_t *a, *tmp;
	uint64_t sum;

	r[0] = start[i];
	r[1] = start[i + 1];
	if ((uint64_t)(r[1] - r[0]) <= CS_RUN) {
		if (cn_spawn_next(c, sumrun, k, &r[0], sizeof(r[0]), 1,
		    &kk) == -1 || cn_spawn(c, sortrun, kk, r, sizeof(r)) == -1)
			perror("cilksort: cn_spawn");
		return;
	}
	/* Longer than a value can carry: not seen with this input, whose
	 * ranges hold about CS_RANGE ints each. */
	n = r[1] - r[0];
	if ((a = malloc(sizeof(*a) * (size_t)n)) == NULL ||
	    (tmp = malloc(sizeof(*a) * (size_t)n)) == NULL) {
		free(a);
		perror("cilksort");
		return;
	}
	make_input(r[0], r[1]);
	memcpy(a, in + r[0], sizeof(*a) * (size_t)n);
	msort(a, tmp, n);
	sum = checksum(a, (size_t)n, r[0]);
	if (cn_send(c, k, &sum, sizeof(sum)) == -1)
		perror("cilksort: cn_send");
	free(a);
	free(tmp);
}

/*
 * Ranges [lo, hi) by halves, each half a child whose value is its part
 * of the checksum: a thief takes the oldest, half of what is left.
 */
static void
ranges(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	uint32_t r[2], half[2];
	struct cn_cont kk[2];

	if (len != sizeof(r))
		return;
	memcpy(r, arg, sizeof(r));
	if (r[0] >= r[1] || r[1] > nranges)
		return;
	make_ranges(r[0], r[1]);
	if (r[1] - r[0] == 1) {
		range(c, k, r[0]);
		return;
	}
	if (cn_spawn_next(c, add2, k, NULL, 0, 2, kk) == -1) {
		perror("cilksort: cn_spawn_next");
		return;
	}
	half[0] = r[0];
	half[1] = r[0] + (r[1] - r[0]) / 2;
	(void)cn_spawn(c, ranges, kk[0], half, sizeof(half));
	half[0] = half[1];
	half[1] = r[1];
	(void)cn_spawn(c, ranges, kk[1], half, sizeof(half));
}

/* Two parts of the checksum, added. */
static void
add2(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const uint64_t *x, *y;
	uint64_t sum;
	size_t lx, ly;

	(void)arg;
	(void)len;
	if ((x = cn_slot(c, 0, &lx)) == NULL || lx != sizeof(*x) ||
	    (y = cn_slot(c, 1, &ly)) == NULL || ly != sizeof(*y))
		return;
	sum = *x + *y;
	if (cn_send(c, k, &sum, sizeof(sum)) == -1)
		perror("cilksort: cn_send");
}

static void
top(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	uint32_t all[2] = { 0, nranges };

	(void)arg;
	(void)len;
	if (cn_spawn(c, ranges, k, all, sizeof(all)) == -1)
		perror("cilksort: cn_spawn");
}

/* The size argument: lo to hi, else -1 (no libbsd strtonum here). */
static long long
size_arg(const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return errno != 0 || end == s || *end != '\0' || v < lo || v > hi ?
	    -1 : v;
}

int
main(int argc, char *argv[])
{
	struct cn_tprogram p = { "cilksort", threads, 6 };
	struct cn_stats st;
	uint64_t v;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (N = size_arg(argv[1], 0,
	    (long long)CS_RUN * CS_RANGES_MAX)) == -1) {
		fprintf(stderr, "usage: cilksort N    (0 <= N <= %llu)\n",
		    (unsigned long long)CS_RUN * CS_RANGES_MAX);
		return 2;
	}
	if (count_input() == -1) {
		perror("cilksort");
		return 1;
	}
	if (cn_run_thread(&p, 0, NULL, 0, &st) == -1) {
		perror("cilksort");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v))
		return 1;
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%llu\n", (unsigned long long)v);
	return 0;
}
