/*
 * cilksort_input.h — cilksort's input, its layout by value range and
 * the serial merge sort, for its serial twin and the benchmark twins
 * (tests/bench/twins) and for examples/cilksort.c itself, so that
 * they all sort the same thing the same way.
 */
#ifndef CILKNOW_CILKSORT_INPUT_H
#define CILKNOW_CILKSORT_INPUT_H

#include <stdint.h>
#include <string.h>

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

#define CS_RANGE	65536	/* ints in a value range, about */
#define CS_RANGES_MAX	1024	/* ranges at most (cilksort.c sizes N by it) */

/*
 * The input i = 0 .. n-1, (int32_t)(mix(i + 24) >> 33), laid out by
 * value as cilksort lays it out: range r (the top bits) in
 * a[start[r], start[r+1]), in range order.  Returns the ranges.
 */
static inline uint32_t	/* inline: cilksort.c lays out lazily */
layout(int32_t *a, int64_t n, int64_t start[CS_RANGES_MAX + 1])
{
	int64_t at[CS_RANGES_MAX], i;
	uint32_t bits = 0, r, nranges;
	int32_t v;

	while ((1u << bits) < CS_RANGES_MAX && (n >> bits) > CS_RANGE)
		bits++;
	nranges = 1u << bits;
	memset(start, 0, sizeof(*start) * (CS_RANGES_MAX + 1));
	for (i = 0; i < n; i++)
		start[((uint32_t)(mix((uint64_t)i + 24) >> 33) >> (31 - bits)) +
		    1]++;
	for (r = 0; r < nranges; r++) {
		start[r + 1] += start[r];
		at[r] = start[r];
	}
	for (i = 0; i < n; i++) {
		v = (int32_t)(mix((uint64_t)i + 24) >> 33);
		a[at[(uint32_t)v >> (31 - bits)]++] = v;
	}
	return nranges;
}

#endif
