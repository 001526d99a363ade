/*
 * loadmodel_test — the predicted own-worker load, checked against a
 * simulation of the kernel's averaging run twice: with the owner's
 * processes and our worker, and with the owner's processes alone.  The
 * estimate (measured with worker - predicted) must match the load
 * without the worker.
 *
 * Tolerances (stated here, checked below):
 *   - ideal averager (real arithmetic, the formula of loadmodel.h),
 *     model ticking with the kernel:                    1e-9
 *   - Linux averager (11-bit fixed point, EXP_1/5/15 = 1884/2014/2037,
 *     rounding up while rising) read through /proc/loadavg's two
 *     decimals, model ticking with the kernel (or polled every second
 *     in phase with it), ten 5-hour runs:
 *         1-minute 0.015, 5-minute 0.035, 15-minute 0.065
 *     (the two decimals alone account for 0.005; the rest is the
 *     kernel's fixed-point rounding, which is not linear, so the
 *     worker's share of the total is not exactly its own average)
 *   - the same, model driven by 1-second polls 2 s out of phase with
 *     the kernel's ticks, worker always runnable while it runs: add
 *     one tick's step per change of the worker count, 1 - e:
 *         0.08, 0.017, 0.006
 *     (a worker that blocks now and then adds sampling noise on top:
 *     the kernel and the poll see different instants)
 */
#include "loadmodel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

#define TOL_IDEAL	1e-9
#define FSHIFT		11
#define FIXED_1		(1UL << FSHIFT)

static const double tol_linux[3] = { 0.015, 0.035, 0.065 };
static const unsigned long kexp[3] = { 1884, 2014, 2037 };
static const double tau[3] = { 60, 300, 900 };

/* Linux kernel/sched/loadavg.c calc_load(). */
static unsigned long
calc_load(unsigned long load, unsigned long exp, unsigned long active)
{
	unsigned long newload;

	newload = load * exp + active * (FIXED_1 - exp);
	if (active >= load)
		newload += FIXED_1 - 1;
	return newload / FIXED_1;
}

/* What /proc/loadavg prints for a fixed-point load: two decimals. */
static double
proc_loadavg(unsigned long x)
{
	x += FIXED_1 / 200;
	return (double)(x >> FSHIFT) +
	    (double)(((x & (FIXED_1 - 1)) * 100) >> FSHIFT) / 100.0;
}

/* A deterministic pseudo-random sequence. */
static uint32_t rng = 12345;

static uint32_t
next_rand(void)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 16) & 0x7fff;
}

/*
 * The owner's runnable processes and our workers during second t of a
 * 5-hour run: quiet stretches, bursts of 1 to 3 processes, a long
 * compile; our worker runs for long stretches (sometimes two of them)
 * and is now and then blocked for a second.
 */
static void
pattern(int t, int flicker, int *owner, int *worker)
{
	static int o, w;

	if (t % 97 == 0)
		o = (int)(next_rand() % 6) < 3 ? 0 : (int)(next_rand() % 4);
	if (t >= 9000 && t < 11500)
		o = 2;				/* a long compile */
	if (t % 750 == 0)
		w = (t / 750) % 4 == 3 ? 0 : 1 + (t / 750) % 2;
	*owner = o;
	*worker = w;
	if (flicker && *worker > 0 && next_rand() % 10 == 0)
		(*worker)--;			/* blocked on the network */
}

static void
test_ideal(void)
{
	struct loadmodel lm;
	double with[3] = { 0, 0, 0 }, without[3] = { 0, 0, 0 }, est[3], e;
	double worst = 0;
	int t, i, o, w;

	loadmodel_init(&lm);
	rng = 1;
	for (t = 0; t < 5 * 3600; t += 5) {
		pattern(t, 1, &o, &w);
		for (i = 0; i < 3; i++) {
			e = exp(-5.0 / tau[i]);
			with[i] = with[i] * e + (o + w) * (1 - e);
			without[i] = without[i] * e + o * (1 - e);
		}
		loadmodel_tick(&lm, w);
		loadmodel_subtract(&lm, with, est);
		for (i = 0; i < 3; i++)
			if (fabs(est[i] - without[i]) > worst)
				worst = fabs(est[i] - without[i]);
	}
	printf("# ideal averager: largest error %.3g over 5 hours\n", worst);
	ok(worst <= TOL_IDEAL, "ideal averager: estimate within %g of the "
	    "load without the worker", TOL_IDEAL);
}

/*
 * Linux averager.  Each second: the kernel ticks if s % 5 == phase,
 * sampling the processes runnable at that moment; then the processes
 * may change; then the node manager polls (timedriven) and reports the
 * worker count it sees.  Without timedriven the model is ticked with
 * the kernel, with the count the kernel sampled.  Returns the largest
 * errors of the 1, 5 and 15-minute estimates in worst.
 */
static void
run_linux(uint32_t seed, int timedriven, int phase, int flicker,
    double worst[3])
{
	struct loadmodel lm;
	unsigned long with[3] = { 0, 0, 0 }, without[3] = { 0, 0, 0 };
	double meas[3], est[3], d;
	int s, i, o, w;

	loadmodel_init(&lm);
	rng = seed;
	pattern(0, flicker, &o, &w);
	if (timedriven)
		loadmodel_update(&lm, 0.0, w);
	for (s = 1; s <= 5 * 3600; s++) {
		if (s % 5 == phase) {
			for (i = 0; i < 3; i++) {
				with[i] = calc_load(with[i], kexp[i],
				    (unsigned long)(o + w) * FIXED_1);
				without[i] = calc_load(without[i], kexp[i],
				    (unsigned long)o * FIXED_1);
			}
			if (!timedriven)
				loadmodel_tick(&lm, w);
		}
		pattern(s, flicker, &o, &w);
		if (timedriven)
			loadmodel_update(&lm, (double)s, w);
		else if (s % 5 != phase)
			continue;
		for (i = 0; i < 3; i++)
			meas[i] = proc_loadavg(with[i]);
		loadmodel_subtract(&lm, meas, est);
		for (i = 0; i < 3; i++) {
			d = fabs(est[i] - (double)without[i] / FIXED_1);
			if (d > worst[i])
				worst[i] = d;
		}
	}
}

/* Ten 5-hour runs with different owners; extra widens the tolerance. */
static void
test_linux(int timedriven, int phase, int flicker, const double *extra,
    const char *what)
{
	double worst[3] = { 0, 0, 0 }, tol[3];
	uint32_t seed;
	int i, pass = 1;

	for (seed = 1; seed <= 10; seed++)
		run_linux(seed, timedriven, phase, flicker, worst);
	for (i = 0; i < 3; i++) {
		tol[i] = tol_linux[i] + (extra != NULL ? extra[i] : 0);
		if (worst[i] > tol[i])
			pass = 0;
	}
	printf("# %s: largest errors %.4f %.4f %.4f\n", what, worst[0],
	    worst[1], worst[2]);
	ok(pass, "%s: estimate within %.3f, %.3f, %.3f", what, tol[0],
	    tol[1], tol[2]);
}

static void
test_update(void)
{
	struct loadmodel a, b;
	double pa[3], pb[3], m[3], out[3];
	int s, i, same = 1;

	/* 1-second updates equal 5-second ticks when in phase */
	loadmodel_init(&a);
	loadmodel_init(&b);
	loadmodel_update(&a, 100.0, 1);
	for (s = 1; s <= 600; s++) {
		loadmodel_update(&a, 100.0 + s, s < 300 ? 1 : 0);
		if (s % 5 == 0)
			loadmodel_tick(&b, s <= 300 ? 1 : 0);
		loadmodel_predict(&a, pa);
		loadmodel_predict(&b, pb);
		for (i = 0; i < 3; i++)
			if (fabs(pa[i] - pb[i]) > 1e-12)
				same = 0;
	}
	ok(same, "1-second updates match 5-second ticks in phase");

	loadmodel_init(&a);
	loadmodel_update(&a, 0.0, 1);
	loadmodel_update(&a, 4.9, 1);
	loadmodel_predict(&a, pa);
	ok(pa[0] == 0 && pa[1] == 0 && pa[2] == 0,
	    "no tick before 5 seconds have passed");
	loadmodel_update(&a, 5.0, 1);
	loadmodel_predict(&a, pa);
	ok(fabs(pa[0] - (1 - exp(-5.0 / 60))) < 1e-12 &&
	    fabs(pa[2] - (1 - exp(-5.0 / 900))) < 1e-12,
	    "one tick: n * (1 - exp(-5/T))");
	loadmodel_update(&a, 2.0, 1);
	loadmodel_predict(&a, pb);
	ok(memcmp(pa, pb, sizeof(pa)) == 0,
	    "a clock going backwards changes nothing");
	loadmodel_update(&a, 1e6, 2);
	loadmodel_predict(&a, pa);
	ok(pa[0] == 1 && pa[1] == 1 && pa[2] == 1,
	    "after a very long gap: the steady state of the old count");
	for (s = 0; s < 2 * 3600; s += 5)
		loadmodel_update(&a, 1e6 + 5 + s, 2);
	loadmodel_predict(&a, pa);
	ok(fabs(pa[0] - 2) < 1e-3 && fabs(pa[1] - 2) < 1e-3 &&
	    fabs(pa[2] - 2) < 1e-3, "two workers for two hours: about 2");

	m[0] = 0.5;
	m[1] = 3.0;
	m[2] = NAN;
	loadmodel_subtract(&a, m, out);
	ok(out[0] == 0 && fabs(out[1] - (3.0 - pa[1])) < 1e-12 &&
	    isnan(out[2]), "subtract clamps at 0 and keeps NaN unknown");

	loadmodel_init(&a);
	loadmodel_tick(&a, NAN);
	loadmodel_tick(&a, -3);
	loadmodel_predict(&a, pa);
	ok(pa[0] == 0 && pa[1] == 0 && pa[2] == 0,
	    "NaN and negative counts count as 0");
	loadmodel_tick(&a, 1e300);
	loadmodel_predict(&a, pa);
	ok(isfinite(pa[0]) && pa[0] <= LOADMODEL_NWORKERS_MAX,
	    "huge counts are clamped");
}

int
main(void)
{
	static const double phase_extra[3] = { 0.08, 0.017, 0.006 };

	test_ideal();
	test_linux(0, 0, 1, NULL, "Linux averager, model ticked with it");
	test_linux(1, 0, 1, NULL, "Linux averager, 1-s polls in phase");
	test_linux(1, 3, 0, phase_extra, "Linux averager, 1-s polls 2 s out "
	    "of phase");
	test_update();
	return tap_done();
}
