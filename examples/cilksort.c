/*
 * cilksort — merge sort of N ints generated from a seed, the checksum
 * of the sorted array printed (sum of a[i] * (i + 1), modulo 2^64).
 * The input is stratified by value (serial/cilksort_input.h): the ints
 * of each value range (the top bits of the value) together, in range
 * order, so that the sorted array is the ranges sorted one after the
 * other and no top-level merge is left to one process, and any part of
 * it can be made where it is sorted: a worker makes the ints it sorts
 * and no others.  The ranges are split by halves, and each range's ints
 * sorted by halves, each half a child whose sorted run comes back as
 * its value (at most CS_RUN ints, one value of at most 1 MiB), a
 * successor merging two runs; the range's last successor sums its part
 * of the checksum, and only those 8 bytes go back, added two by two.
 * Its serial twin is cilksort_serial: the same input, the same merge
 * sort, one range after the other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"
/* the input and msort: shared with its twins */
#include "serial/cilksort_input.h"

#define CS_RUN	(CN_VALUE_MAX / sizeof(int32_t))  /* ints in one value */
#define CS_LEAF	2048		/* sorted serially below this */

static int64_t	 N;
static uint32_t	 nranges, bits;

static void	sortrun(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	merge2(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	ranges(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	sumrun(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	add2(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	top(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = {
	top, sortrun, merge2, ranges, sumrun, add2
};

/* Sorts the input's ints lo .. hi-1 (at most CS_RUN) into a run, its
 * value. */
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
	cs_make(a, N, r[0], r[1]);
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

/* Its part of the checksum: the run is the sorted array's lo .. lo+n-1. */
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

/* Range i sorted by halves into a run for sumrun (at most CS_RUN ints:
 * N is at most CS_RUN ranges' worth, in equal ranges). */
static void
range(struct cn_ctx *c, struct cn_cont k, uint32_t i)
{
	int64_t r[2];
	struct cn_cont kk;

	r[0] = cs_start(N, bits, i);
	r[1] = cs_start(N, bits, i + 1);
	if (cn_spawn_next(c, sumrun, k, &r[0], sizeof(r[0]), 1, &kk) == -1 ||
	    cn_spawn(c, sortrun, kk, r, sizeof(r)) == -1)
		perror("cilksort: cn_spawn");
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
	bits = cs_bits(N);
	nranges = 1u << bits;
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
