/* cilksort with libgomp tasks, for tests/bench/threads.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sort_common.h"

static void
psort(int32_t *a, int32_t *tmp, int64_t n)
{
	int64_t m = n / 2;

	if (n <= CS_LEAF) {
		msort(a, tmp, n);
		return;
	}
#pragma omp task
	psort(a, tmp, m);
#pragma omp task
	psort(a + m, tmp + m, n - m);
#pragma omp taskwait
	merge(a, tmp, m, n);
}

int
main(int argc, char *argv[])
{
	long long n = argc == 2 ? atoll(argv[1]) : 0;
	int32_t *a = big_alloc(sizeof(*a) * (size_t)n);
	int32_t *tmp = malloc(sizeof(*a) * (size_t)n + 1);
	int64_t start[CS_RANGES_MAX + 1], i;
	uint32_t r, nranges;
	uint64_t sum = 0;

	nranges = layout(a, n, start);
#pragma omp parallel
#pragma omp single
	for (r = 0; r < nranges; r++) {
#pragma omp task firstprivate(r)
		psort(a + start[r], tmp + start[r], start[r + 1] - start[r]);
	}
	for (i = 0; i < n; i++)
		sum += (uint64_t)(int64_t)a[i] * (uint64_t)(i + 1);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
