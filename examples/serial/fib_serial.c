/* fib_serial — the plain C baseline of fib(1) for tests/bench. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t
fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int
main(int argc, char *argv[])
{
	int n = argc == 2 ? atoi(argv[1]) : -1;

	if (n < 0 || n > 60) {
		fprintf(stderr, "usage: fib_serial N\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)fib((uint32_t)n));
	return 0;
}
