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
 * The input is stratified by value: n ints in 2^bits value ranges (the
 * top bits of a 31-bit int) of n / 2^bits ints each, give or take one,
 * range r holding a[start(r), start(r + 1)) in range order, and its
 * ints' low bits drawn from the seed by position.  So any part of the
 * input can be made where it is sorted, without making the rest: a
 * process that sorts range r makes range r only.
 */
static inline uint32_t
cs_bits(int64_t n)
{
	uint32_t bits = 0;

	while ((1u << bits) < CS_RANGES_MAX && (n >> bits) > CS_RANGE)
		bits++;
	return bits;
}

/* Where range r starts, in an input of n ints in 2^bits ranges. */
static inline int64_t
cs_start(int64_t n, uint32_t bits, uint32_t r)
{
	return (int64_t)(((uint64_t)n * r) >> bits);
}

/* a[0, hi - lo) gets the input's ints lo .. hi-1. */
static inline void
cs_make(int32_t *a, int64_t n, int64_t lo, int64_t hi)
{
	uint32_t bits = cs_bits(n), r;
	int64_t i, end;

	if (lo >= hi)
		return;
	r = (uint32_t)(((uint64_t)lo << bits) / (uint64_t)n);
	while (r > 0 && cs_start(n, bits, r) > lo)
		r--;
	while (r + 1 < (1u << bits) && cs_start(n, bits, r + 1) <= lo)
		r++;
	for (i = lo; i < hi; r++) {
		end = cs_start(n, bits, r + 1);
		for (; i < hi && i < end; i++)
			*a++ = (int32_t)(((uint64_t)r << (31 - bits)) |
			    (mix((uint64_t)i + 24) >> (33 + bits)));
	}
}

/* The whole input in a, the ranges' starts in start.  Returns the
 * ranges. */
static inline uint32_t
layout(int32_t *a, int64_t n, int64_t start[CS_RANGES_MAX + 1])
{
	uint32_t bits = cs_bits(n), r;

	for (r = 0; r <= (1u << bits); r++)
		start[r] = cs_start(n, bits, r);
	cs_make(a, n, 0, n);
	return 1u << bits;
}

#endif
