/* loadmodel — predicted own-worker share of the load averages. */
#include "loadmodel.h"

#include <math.h>
#include <string.h>

/* Ticks after which every average is within 1e-9 of n (e^-21 < 1e-9). */
#define LOADMODEL_TICKS_MAX	(21 * 900 / 5)

static const double lm_tau[3] = { 60.0, 300.0, 900.0 };

static double
clamp_n(double n)
{
	if (isnan(n) || n < 0)
		return 0;
	if (n > LOADMODEL_NWORKERS_MAX)
		return LOADMODEL_NWORKERS_MAX;
	return n;
}

void
loadmodel_init(struct loadmodel *lm)
{
	memset(lm, 0, sizeof(*lm));
}

void
loadmodel_tick(struct loadmodel *lm, double n)
{
	double e;
	int i;

	n = clamp_n(n);
	for (i = 0; i < 3; i++) {
		e = exp(-LOADMODEL_PERIOD / lm_tau[i]);
		lm->lm_load[i] = lm->lm_load[i] * e + n * (1.0 - e);
	}
}

void
loadmodel_update(struct loadmodel *lm, double now, double n)
{
	double ticks;
	long k;
	int i;

	n = clamp_n(n);
	if (isnan(now) || isinf(now))
		return;
	if (!lm->lm_started || now < lm->lm_next - LOADMODEL_PERIOD) {
		/* first call, or the clock went backwards: restart it */
		lm->lm_started = 1;
		lm->lm_next = now + LOADMODEL_PERIOD;
		lm->lm_n = n;
		return;
	}
	if (now >= lm->lm_next) {
		ticks = floor((now - lm->lm_next) / LOADMODEL_PERIOD) + 1;
		if (ticks > LOADMODEL_TICKS_MAX) {
			for (i = 0; i < 3; i++)
				lm->lm_load[i] = lm->lm_n;
			lm->lm_next = now + LOADMODEL_PERIOD;
		} else {
			for (k = 0; k < (long)ticks; k++)
				loadmodel_tick(lm, lm->lm_n);
			lm->lm_next += ticks * LOADMODEL_PERIOD;
		}
	}
	lm->lm_n = n;
}

void
loadmodel_predict(const struct loadmodel *lm, double out[3])
{
	int i;

	for (i = 0; i < 3; i++)
		out[i] = lm->lm_load[i];
}

void
loadmodel_subtract(const struct loadmodel *lm, const double measured[3],
    double out[3])
{
	double v;
	int i;

	for (i = 0; i < 3; i++) {
		if (isnan(measured[i])) {
			out[i] = measured[i];	/* unknown stays unknown */
			continue;
		}
		v = measured[i] - lm->lm_load[i];
		out[i] = v < 0 ? 0 : v;
	}
}
