/*
 * cilksort — merge sort of N ints generated from a seed, the checksum
 * of the sorted array printed (sum of a[i] * (i + 1), modulo 2^64).
 * main makes the input in every process (cilknow(3): main runs
 * everywhere); a thread sorts a range of it by halves, each half a
 * child whose sorted run comes back as its value (at most CS_RUN ints,
 * one value of at most 1 MiB), and a successor merges two runs.  Runs
 * longer than CS_RUN cannot travel as values: above them, the root's
 * successor merges all the runs at once and sums as it goes.  Its
 * serial twin is cilksort_serial: the same input, a plain merge sort.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

#define CS_RUN	(CN_VALUE_MAX / sizeof(int32_t))  /* ints in one value */
#define CS_LEAF	2048		/* sorted serially below this */

static int32_t	*in;		/* the input, read only */
static int64_t	 N;

static void	sortrun(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	merge2(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	mergeall(struct cn_ctx *, struct cn_cont, const void *,
		    size_t);
static void	top(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { top, sortrun, merge2, mergeall };

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void
msort(int32_t *a, int32_t *tmp, int64_t n)
{
	int64_t i, j, k, m;

	if (n < 2)
		return;
	if (n <= 16) {
		for (i = 1; i < n; i++) {
			int32_t v = a[i];

			for (j = i; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	m = n / 2;
	msort(a, tmp, m);
	msort(a + m, tmp, n - m);
	for (i = 0, j = m, k = 0; i < m && j < n;)
		tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
	while (i < m)
		tmp[k++] = a[i++];
	memcpy(a, tmp, sizeof(*a) * (size_t)k);
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

/* Every run merged at once (a heap of run heads), summed as it goes. */
static void
mergeall(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct head { int32_t v; uint32_t run; size_t at, n; } *h, t;
	const int32_t **runs;
	uint32_t nruns, i, m, ch, p;
	uint64_t sum = 0, pos = 0;
	size_t l;

	if (len != sizeof(nruns))
		return;
	memcpy(&nruns, arg, sizeof(nruns));
	if ((runs = calloc(nruns, sizeof(*runs))) == NULL ||
	    (h = calloc(nruns, sizeof(*h))) == NULL) {
		free(runs);
		return;
	}
	for (m = 0, i = 0; i < nruns; i++) {
		if ((runs[i] = cn_slot(c, i, &l)) == NULL)
			goto out;
		if (l == 0)
			continue;
		h[m].v = runs[i][0];
		h[m].run = i;
		h[m].at = 0;
		h[m].n = l / sizeof(int32_t);
		/* sift up */
		for (p = m++; p > 0 && h[(p - 1) / 2].v > h[p].v;
		    p = (p - 1) / 2) {
			t = h[p];
			h[p] = h[(p - 1) / 2];
			h[(p - 1) / 2] = t;
		}
	}
	while (m > 0) {
		sum += (uint64_t)(int64_t)h[0].v * ++pos;
		if (++h[0].at < h[0].n)
			h[0].v = runs[h[0].run][h[0].at];
		else
			h[0] = h[--m];
		for (p = 0; (ch = 2 * p + 1) < m; p = ch) {	/* sift down */
			if (ch + 1 < m && h[ch + 1].v < h[ch].v)
				ch++;
			if (h[p].v <= h[ch].v)
				break;
			t = h[p];
			h[p] = h[ch];
			h[ch] = t;
		}
	}
	if (cn_send(c, k, &sum, sizeof(sum)) == -1)
		perror("cilksort: cn_send");
 out:
	free(runs);
	free(h);
}

static void
top(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont *kk;
	uint32_t nruns, i;
	int64_t r[2];

	(void)arg;
	(void)len;
	nruns = (uint32_t)((N + (int64_t)CS_RUN - 1) / (int64_t)CS_RUN);
	if (nruns == 0)
		nruns = 1;
	if ((kk = calloc(nruns, sizeof(*kk))) == NULL ||
	    cn_spawn_next(c, mergeall, k, &nruns, sizeof(nruns), nruns,
	    kk) == -1) {
		perror("cilksort");
		free(kk);
		return;
	}
	for (i = 0; i < nruns; i++) {
		r[0] = (int64_t)i * N / nruns;
		r[1] = (int64_t)(i + 1) * N / nruns;
		if (cn_spawn(c, sortrun, kk[i], r, sizeof(r)) == -1)
			perror("cilksort: cn_spawn");
	}
	free(kk);
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
	struct cn_tprogram p = { "cilksort", threads, 4 };
	struct cn_stats st;
	uint64_t v;
	int64_t i;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	/* runs of at most CS_RUN, into at most CN_SLOTS_MAX slots */
	if (argc != 2 || (N = size_arg(argv[1], 0,
	    (long long)CS_RUN * CN_SLOTS_MAX)) == -1) {
		fprintf(stderr, "usage: cilksort N    (0 <= N <= %llu)\n",
		    (unsigned long long)CS_RUN * CN_SLOTS_MAX);
		return 2;
	}
	if ((in = malloc(sizeof(*in) * (size_t)N + 1)) == NULL) {
		perror("cilksort");
		return 1;
	}
	for (i = 0; i < N; i++)
		in[i] = (int32_t)(mix((uint64_t)i + 24) >> 33);
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
