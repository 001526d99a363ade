/* queens_serial — the plain C baseline of queens(1) for tests/bench. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t
search(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2)
{
	uint32_t free_, bit;
	uint64_t n = 0;

	if (cols == all)
		return 1;
	free_ = all & ~(cols | d1 | d2);
	while (free_) {
		bit = free_ & -free_;
		free_ ^= bit;
		n += search(all, cols | bit, ((d1 | bit) << 1) & all,
		    (d2 | bit) >> 1);
	}
	return n;
}

int
main(int argc, char *argv[])
{
	int n = argc == 2 ? atoi(argv[1]) : 0;

	if (n < 1 || n > 20) {
		fprintf(stderr, "usage: queens_serial N\n");
		return 2;
	}
	printf("%llu\n", (unsigned long long)search((1u << n) - 1, 0, 0, 0));
	return 0;
}
