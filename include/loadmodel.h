/*
 * loadmodel — the load the node's own workers add to the kernel's load
 * averages, predicted so that it can be subtracted before thresholds
 * are compared (Lisiecki 1996, section 5.1.3).
 *
 * Linux recomputes its load averages every 5 s as
 *	load = load * e + n * (1 - e),	e = exp(-5 / T), T = 60, 300, 900 s
 * where n is the number of runnable (and uninterruptible) tasks.  The
 * recurrence is linear in n, so the workers' share is the same
 * recurrence driven by the workers' own count, started at 0 when the
 * node manager starts.
 *
 * Accuracy (tests/unit/loadmodel_test.c): against an ideal averager
 * ticking with the model the estimate is exact up to rounding (1e-9).
 * Against Linux (11-bit fixed point that rounds up while rising, read
 * through /proc/loadavg's two decimals) it is within 0.015, 0.035 and
 * 0.065 of the load without the workers; the kernel's rounding is not
 * linear, which costs most on the 15-minute average.  When the model's
 * ticks are not in phase with the kernel's, add up to 1 - e (0.08,
 * 0.017, 0.006) per worker for a while after the worker count changes.
 */
#ifndef CILKNOW_LOADMODEL_H
#define CILKNOW_LOADMODEL_H

#define LOADMODEL_PERIOD	5.0	/* seconds between kernel updates */
#define LOADMODEL_NWORKERS_MAX	1e6	/* larger counts are clamped */

struct loadmodel {
	double	lm_load[3];	/* predicted own load: 1, 5, 15 minutes */
	double	lm_n;		/* own runnable workers now */
	double	lm_next;	/* monotonic time of the next tick */
	int	lm_started;	/* lm_next is valid */
};

/* No own load yet. */
void	loadmodel_init(struct loadmodel *);

/* One 5-second update with n own runnable workers. */
void	loadmodel_tick(struct loadmodel *, double n);

/*
 * Time-driven use, e.g. from a 1-second poll: applies one tick for
 * every 5-second period that ended by now (monotonic seconds), with the
 * count in force before now, then records n as the count from now on.
 * The first call only starts the clock.  A clock that goes backwards is
 * ignored; after a very long gap the model jumps to its steady state.
 */
void	loadmodel_update(struct loadmodel *, double now, double n);

/* The predicted own load. */
void	loadmodel_predict(const struct loadmodel *, double out[3]);

/*
 * measured - predicted, clamped at 0; NaN (unknown) stays NaN.  out may
 * be measured.
 */
void	loadmodel_subtract(const struct loadmodel *, const double measured[3],
	    double out[3]);

#endif
