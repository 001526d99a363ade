/* cn_useful — a job's useful parallelism from its stealing (cn.h). */
#include "cn.h"

int
cn_useful_tick(struct cn_useful *u, uint32_t busy, uint32_t idle,
    int pooled)
{
	uint32_t cap, ticks;

	u->uw_ticks++;
	u->uw_busy += busy;
	if (idle > 0 && !pooled)
		u->uw_starved++;
	if (u->uw_ticks < CN_USEFUL_WINDOW)
		return 0;
	ticks = u->uw_ticks;
	cap = u->uw_cap;
	if (u->uw_starved * 10 >= ticks * 9) {
		/* Busy workers, rounded up; never below one. */
		cap = (uint32_t)((u->uw_busy + ticks - 1) / ticks);
		if (cap < 1)
			cap = 1;
	} else if (u->uw_starved * 10 <= ticks)
		cap = 0;
	u->uw_ticks = u->uw_starved = 0;
	u->uw_busy = 0;
	if (cap == u->uw_cap)
		return 0;
	u->uw_cap = cap;
	return 1;
}
