// cilkfib (fib) with TBB's task_group, for tests/bench/threads.sh (one thread).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

static uint64_t
fib(uint32_t n)
{
	uint64_t x, y;
	tbb::task_group g;

	if (n < 2)
		return n;
	g.run([&] { x = fib(n - 1); });
	y = fib(n - 2);
	g.wait();
	return x + y;
}

int
main(int argc, char *argv[])
{
	tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
	uint32_t n = argc == 2 ? (uint32_t)atoi(argv[1]) : 0;

	std::printf("%llu\n", (unsigned long long)fib(n));
	return 0;
}
