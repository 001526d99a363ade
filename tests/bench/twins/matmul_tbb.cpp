// matmul with TBB (a task a block of C), for tests/bench/threads.sh.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tbb/global_control.h>
#include <tbb/task_group.h>

#include "mm_common.h"

int
main(int argc, char *argv[])
{
	tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
	tbb::task_group g;

	N = argc == 2 ? std::atoll(argv[1]) : 1;
	A = (double *)big_alloc(sizeof(double) * N * N);
	B = (double *)big_alloc(sizeof(double) * N * N);
	C = (double *)big_alloc(sizeof(double) * N * N);
	std::memset(C, 0, sizeof(double) * N * N);
	mm_init();
	for (int64_t i0 = 0; i0 < N; i0 += MM_B)
		for (int64_t j0 = 0; j0 < N; j0 += MM_B)
			g.run([=] { mm_block(i0, j0); });
	g.wait();
	std::printf("%lld\n", mm_sum());
	return 0;
}
