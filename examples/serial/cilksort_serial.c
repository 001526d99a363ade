/*
 * cilksort_serial — the serial twin of cilksort: the same input, a
 * plain merge sort, the same checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int
main(int argc, char *argv[])
{
	long long n = argc == 2 ? atoll(argv[1]) : -1;
	int32_t *a, *tmp;
	uint64_t sum = 0;
	int64_t i;

	if (n < 0 || n > (1LL << 28)) {
		fprintf(stderr, "usage: cilksort_serial N\n");
		return 2;
	}
	if ((a = malloc(sizeof(*a) * (size_t)n + 1)) == NULL ||
	    (tmp = malloc(sizeof(*a) * (size_t)n + 1)) == NULL)
		return 1;
	for (i = 0; i < n; i++)
		a[i] = (int32_t)(mix((uint64_t)i + 24) >> 33);
	msort(a, tmp, n);
	for (i = 0; i < n; i++)
		sum += (uint64_t)(int64_t)a[i] * (uint64_t)(i + 1);
	printf("%llu\n", (unsigned long long)sum);
	free(a);
	free(tmp);
	return 0;
}
