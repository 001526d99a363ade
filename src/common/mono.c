/* mono — the two clocks. */
#include "mono.h"

#include <time.h>

#include "log.h"

double
now_mono(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("%s: clock_gettime", __func__);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t
now_real_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == -1)
		fatal("%s: clock_gettime", __func__);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
now_real_ms(void)
{
	return now_real_ns() / 1000000u;
}
