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
#include "cilksort_input.h"

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
