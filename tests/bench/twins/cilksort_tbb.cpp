// cilksort with TBB's task_group, for tests/bench/threads.sh.
#include <cstdio>
#include <cstdlib>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include "sort_common.h"

static void
psort(int32_t *a, int32_t *tmp, int64_t n)
{
	int64_t m = n / 2;
	tbb::task_group g;

	if (n <= CS_LEAF) {
		msort(a, tmp, n);
		return;
	}
	g.run([=] { psort(a, tmp, m); });
	psort(a + m, tmp + m, n - m);
	g.wait();
	merge(a, tmp, m, n);
}

int
main(int argc, char *argv[])
{
	tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
	long long n = argc == 2 ? std::atoll(argv[1]) : 0;
	int32_t *a = (int32_t *)big_alloc(sizeof(*a) * (size_t)n);
	int32_t *tmp = (int32_t *)std::malloc(sizeof(*a) * (size_t)n + 1);
	int64_t start[CS_RANGES_MAX + 1];
	uint32_t nranges = layout(a, n, start);
	uint64_t sum = 0;
	tbb::task_group g;

	for (uint32_t r = 0; r < nranges; r++)
		g.run([=, &start] {
			psort(a + start[r], tmp + start[r],
			    start[r + 1] - start[r]);
		});
	g.wait();
	for (int64_t i = 0; i < n; i++)
		sum += (uint64_t)(int64_t)a[i] * (uint64_t)(i + 1);
	std::printf("%llu\n", (unsigned long long)sum);
	return 0;
}
