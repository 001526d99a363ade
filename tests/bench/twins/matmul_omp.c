/* matmul with libgomp tasks (one a block of C), for tests/bench/threads.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_common.h"

int
main(int argc, char *argv[])
{
	int64_t i0, j0;

	N = argc == 2 ? atoll(argv[1]) : 1;
	A = big_alloc(sizeof(double) * N * N);
	B = big_alloc(sizeof(double) * N * N);
	C = big_alloc(sizeof(double) * N * N);
	memset(C, 0, sizeof(double) * N * N);
	mm_init();
#pragma omp parallel
#pragma omp single
	for (i0 = 0; i0 < N; i0 += MM_B)
		for (j0 = 0; j0 < N; j0 += MM_B) {
#pragma omp task firstprivate(i0, j0)
			mm_block(i0, j0);
		}
	printf("%lld\n", mm_sum());
	return 0;
}
