/*
 * cilksort_serial — the serial twin of cilksort: the same input laid
 * out by value range the same way, each range merge-sorted in turn, the
 * same checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bigmem.h"

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
#define CS_RANGES_MAX	1024	/* as cilksort.c */

/*
 * The input i = 0 .. n-1, (int32_t)(mix(i + 24) >> 33), laid out by
 * value as cilksort lays it out: range r (the top bits) in
 * a[start[r], start[r+1]), in range order.  Returns the ranges.
 */
static uint32_t
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

int
main(int argc, char *argv[])
{
	long long n = argc == 2 ? atoll(argv[1]) : -1;
	int32_t *a, *tmp;
	int64_t start[CS_RANGES_MAX + 1], most, i;
	uint32_t r, nranges;
	uint64_t sum = 0;

	if (n < 0 || n > (1LL << 28)) {
		fprintf(stderr, "usage: cilksort_serial N\n");
		return 2;
	}
	if ((a = big_alloc(sizeof(*a) * (size_t)n)) == NULL)
		return 1;
	nranges = layout(a, n, start);
	for (r = 0, most = 0; r < nranges; r++)
		if (start[r + 1] - start[r] > most)
			most = start[r + 1] - start[r];
	if ((tmp = malloc(sizeof(*a) * (size_t)most + 1)) == NULL)
		return 1;
	for (r = 0; r < nranges; r++)
		msort(a + start[r], tmp, start[r + 1] - start[r]);
	for (i = 0; i < n; i++)
		sum += (uint64_t)(int64_t)a[i] * (uint64_t)(i + 1);
	printf("%llu\n", (unsigned long long)sum);
	free(a);
	free(tmp);
	return 0;
}
