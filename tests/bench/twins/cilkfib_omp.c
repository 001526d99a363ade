/* cilkfib (fib) with libgomp tasks, for tests/bench/threads.sh (OMP_NUM_THREADS=1). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t
fib(uint32_t n)
{
	uint64_t x, y;

	if (n < 2)
		return n;
#pragma omp task shared(x)
	x = fib(n - 1);
#pragma omp task shared(y)
	y = fib(n - 2);
#pragma omp taskwait
	return x + y;
}

int
main(int argc, char *argv[])
{
	uint32_t n = argc == 2 ? (uint32_t)atoi(argv[1]) : 0;
	uint64_t r = 0;

#pragma omp parallel
#pragma omp single
	r = fib(n);
	printf("%llu\n", (unsigned long long)r);
	return 0;
}
