/*
 * sim_test — the simulator against the thesis's claims (Lisiecki 1996,
 * chapter 4) and the improved rule against its targets.  The measured
 * numbers are printed as TAP comments.
 */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"

#define SEEDS	20

struct summary {
	double	su_quanta;	/* medians; -1 never */
	double	su_exact;
	int64_t	su_qmin, su_qmax;
	int64_t	su_emin, su_emax;	/* -1 if any never */
	int	su_failed;
};

static void
minmax(const int64_t *v, int n, int64_t *lo, int64_t *hi)
{
	int i;

	*lo = INT64_MAX;
	*hi = 0;
	for (i = 0; i < n; i++) {
		if (v[i] < 0) {
			*hi = -1;
			continue;
		}
		if (v[i] < *lo)
			*lo = v[i];
		if (*hi >= 0 && v[i] > *hi)
			*hi = v[i];
	}
	if (*lo == INT64_MAX)
		*lo = -1;
}

/* Runs seeds 1..n of sp and summarises them. */
static struct summary
runs(struct sim_params sp, int n, const char *name)
{
	struct summary su;
	struct sim_result res;
	int64_t q[64], e[64];
	int i;

	su.su_failed = 0;
	for (i = 0; i < n && i < 64; i++) {
		sp.sp_seed = (uint64_t)i + 1;
		if (sim_run(&sp, &res, NULL, NULL) == -1)
			su.su_failed++;
		q[i] = res.sr_quanta;
		e[i] = res.sr_exact;
	}
	minmax(q, n, &su.su_qmin, &su.su_qmax);
	minmax(e, n, &su.su_emin, &su.su_emax);
	su.su_quanta = sim_median(q, (size_t)n);
	su.su_exact = sim_median(e, (size_t)n);
	printf("# %s (P=%u J=%u, %d seeds): within one median %g "
	    "[%lld..%lld], exact median %g [%lld..%lld] (-1: never)\n",
	    name, sp.sp_procs, sp.sp_jobs, n, su.su_quanta,
	    (long long)su.su_qmin, (long long)su.su_qmax, su.su_exact,
	    (long long)su.su_emin, (long long)su.su_emax);
	return su;
}

static struct sim_params
params(uint32_t P, uint32_t J, enum sched_policy pol)
{
	struct sim_params sp;

	sim_params_init(&sp, P, J);
	sp.sp_rule.ru_policy = pol;
	return sp;
}

struct check {
	uint32_t	ck_procs;
	uint32_t	ck_quanta;
	int		ck_bad;
	uint32_t	ck_last[8];
};

static void
check_observe(void *arg, uint32_t q, const uint32_t *counts, size_t n)
{
	struct check *ck = arg;
	uint64_t sum = 0;
	size_t j;

	for (j = 0; j < n; j++)
		sum += counts[j];
	if (sum != ck->ck_procs || q != ck->ck_quanta)
		ck->ck_bad++;
	for (j = 0; j < n && j < 8; j++)
		ck->ck_last[j] = counts[j];
	ck->ck_quanta++;
}

/* 1 if sim_new() refuses sp with EINVAL. */
static int
rejects(const struct sim_params *sp)
{
	struct sim *sm;

	errno = 0;
	if ((sm = sim_new(sp)) != NULL) {
		sim_free(sm);
		return 0;
	}
	return errno == EINVAL;
}

static void
test_params(void)
{
	struct sim_params sp;

	sp = params(10, 11, SCHED_P_THESIS);
	ok(rejects(&sp), "J > P: EINVAL");
	sp = params(10, 2, SCHED_P_UNDEF);
	ok(rejects(&sp), "no policy: EINVAL");
	sp = params(10, 2, SCHED_P_THESIS);
	sp.sp_leave_rate = 1.5;
	ok(rejects(&sp), "leave rate 1.5: EINVAL");
	sp = params(10, 1, SCHED_P_THESIS);
	sp.sp_init = SIM_INIT_ENDGAME;
	ok(rejects(&sp), "end game needs 2 jobs");
	sp = params(4, 3, SCHED_P_THESIS);
	sp.sp_init = SIM_INIT_ENDGAME;
	ok(rejects(&sp), "end game needs job 2 to have 2");
}

static void
test_median(void)
{
	int64_t a[3] = { 3, -1, 1 }, b[4] = { 4, 1, 3, 2 }, c[3] = { -1,
	    -1, 1 }, d[1] = { 5 };

	ok(sim_median(a, 3) == 3, "median 3, never, 1 is 3");
	ok(sim_median(b, 4) == 2.5, "median of 1..4 is 2.5");
	ok(sim_median(c, 3) == -1, "median of never, never, 1 is never");
	ok(sim_median(d, 1) == 5, "median of one");
	ok(sim_median(d, 0) == -1, "median of none is never");
}

static void
test_model(void)
{
	struct sim_params sp = params(1000, 10, SCHED_P_THESIS);
	struct sim_result a, b, c;
	struct check ck = { 1000, 0, 0, { 0 } };

	is_int(sim_run(&sp, &a, check_observe, &ck), 0, "run P=1000 J=10");
	is_int(ck.ck_bad, 0, "every quantum: counts sum to P, in order");
	is_int(ck.ck_quanta, a.sr_ran + 1, "observed quanta 0..%u", a.sr_ran);
	ok(a.sr_messages == 2ull * 1000 * a.sr_ran,
	    "messages = 2 per node per quantum (%llu)",
	    (unsigned long long)a.sr_messages);
	ok(a.sr_exact >= a.sr_quanta && a.sr_quanta > 0,
	    "exact (%lld) not before within one (%lld)",
	    (long long)a.sr_exact, (long long)a.sr_quanta);
	sim_run(&sp, &b, NULL, NULL);
	ok(a.sr_quanta == b.sr_quanta && a.sr_exact == b.sr_exact &&
	    a.sr_switches == b.sr_switches, "same seed, same run");
	sp.sp_seed = 2;
	sim_run(&sp, &c, NULL, NULL);
	ok(c.sr_switches != a.sr_switches || c.sr_exact != a.sr_exact,
	    "another seed, another run");
}

static void
test_thesis(void)
{
	struct sim_params sp = params(10000, 100, SCHED_P_THESIS);
	struct summary su;

	su = runs(sp, SEEDS, "thesis");
	/* The thesis: 16 quanta in its one run (fig. 4-1). */
	ok(!su.su_failed && su.su_quanta > 0 && su.su_quanta <= 25,
	    "thesis P=10000 J=100: median %g quanta to within one (<= 25)",
	    su.su_quanta);
	ok(su.su_qmax >= 0 && su.su_qmax <= 40,
	    "thesis: every seed within one by quantum 40 (max %lld)",
	    (long long)su.su_qmax);
	ok(su.su_exact > su.su_quanta, "thesis: exact (%g) takes longer: "
	    "the end game", su.su_exact);
	sp.sp_init = SIM_INIT_ONE;
	su = runs(sp, 5, "thesis, all on job 1");
	ok(su.su_qmax >= 0 && su.su_qmax <= 40, "from all on job 1: within "
	    "one by quantum 40");
}

static void
test_naive(void)
{
	struct sim_params sp = params(1000, 10, SCHED_P_NAIVE);
	struct summary su;

	sp.sp_max_quanta = 1000;
	su = runs(sp, 5, "naive");
	ok(su.su_quanta == -1 && su.su_qmin == -1,
	    "naive never gets within one in 1000 quanta (5 seeds)");
}

static void
test_fixed(void)
{
	struct summary f100, f1000, t1000;
	struct sim_params sp;

	sp = params(100, 10, SCHED_P_FIXED);
	sp.sp_max_quanta = 100000;
	f100 = runs(sp, 5, "fixed p=J/P");
	sp.sp_procs = 1000;
	f1000 = runs(sp, 5, "fixed p=J/P");
	sp.sp_rule.ru_policy = SCHED_P_THESIS;
	t1000 = runs(sp, 5, "thesis");
	ok(f100.su_quanta > 0 && f1000.su_quanta > 5 * f100.su_quanta,
	    "fixed p: P x10 makes it more than 5 x slower (%g -> %g)",
	    f100.su_quanta, f1000.su_quanta);
	ok(f1000.su_quanta > 10 * t1000.su_quanta,
	    "fixed p at P=1000: more than 10 x the thesis rule (%g vs %g)",
	    f1000.su_quanta, t1000.su_quanta);
	sp = params(1000, 10, SCHED_P_FIXED);
	sp.sp_rule.ru_fixed_p = 0.5;
	sp.sp_max_quanta = 2000;
	f1000 = runs(sp, 3, "fixed p=0.5");
	ok(f1000.su_quanta == -1, "fixed p=0.5 at P=1000 oscillates: never "
	    "within one in 2000 quanta");
}

static void
test_endgame(void)
{
	struct sim_params sp;
	struct summary s50, s500;

	sp = params(100, 50, SCHED_P_THESIS);
	sp.sp_init = SIM_INIT_ENDGAME;
	sp.sp_max_quanta = 100000;
	s50 = runs(sp, SEEDS, "thesis end game");
	sp.sp_procs = 1000;
	sp.sp_jobs = 500;
	s500 = runs(sp, SEEDS, "thesis end game");
	ok(s50.su_quanta == 0, "end game starts within one");
	ok(s50.su_exact > 0 && s500.su_exact > 3 * s50.su_exact,
	    "thesis end game grows with J: J=50 %g, J=500 %g quanta",
	    s50.su_exact, s500.su_exact);
}

static void
test_improved(void)
{
	struct sim_params sp;
	struct summary su;
	uint32_t J;

	sp = params(10000, 100, SCHED_P_IMPROVED);
	su = runs(sp, SEEDS, "improved");
	ok(su.su_quanta >= 0 && su.su_quanta <= 10, "improved: median %g "
	    "quanta to within one (target <= 10)", su.su_quanta);
	ok(su.su_exact >= 0 && su.su_exact <= 15, "improved: median %g "
	    "quanta to exact (target <= 15)", su.su_exact);
	for (J = 50; J <= 5000; J *= 10) {
		sp = params(2 * J, J, SCHED_P_IMPROVED);
		sp.sp_init = SIM_INIT_ENDGAME;
		su = runs(sp, SEEDS, "improved end game");
		ok(su.su_exact >= 0 && su.su_exact <= 5 && su.su_emax <= 5,
		    "improved end game J=%u: median %g, max %lld quanta "
		    "(target <= 5)", J, su.su_exact, (long long)su.su_emax);
	}
	/* Stale views fall back to the thesis rule. */
	sp = params(10000, 100, SCHED_P_IMPROVED);
	sp.sp_stale = 0.1;
	su = runs(sp, SEEDS, "improved, 10% stale");
	ok(su.su_quanta <= 10 && su.su_exact >= 0 && su.su_exact <= 15,
	    "improved with 10%% stale views: medians %g and %g",
	    su.su_quanta, su.su_exact);
	sp.sp_stale = 0.5;
	su = runs(sp, SEEDS, "improved, 50% stale");
	ok(su.su_exact >= 0 && su.su_exact <= 40,
	    "improved with 50%% stale views: exact median %g (<= 40)",
	    su.su_exact);
	sp.sp_stale = 1;
	sp.sp_until_within = 1;
	su = runs(sp, 5, "improved, all stale (= thesis)");
	ok(su.su_quanta > 10, "all stale behaves like the thesis rule (%g)",
	    su.su_quanta);
	sp = params(10000, 100, SCHED_P_TARGETED);
	su = runs(sp, SEEDS, "targeted");
	ok(su.su_exact >= 0 && su.su_exact <= 30, "targeted (no ranks): "
	    "exact median %g (<= 30)", su.su_exact);
	sp = params(1000, 500, SCHED_P_TARGETED);
	sp.sp_init = SIM_INIT_ENDGAME;
	su = runs(sp, SEEDS, "targeted end game");
	ok(su.su_exact >= 0 && su.su_exact <= 10, "targeted end game J=500: "
	    "exact median %g (<= 10)", su.su_exact);
}

static void
test_weights_caps(void)
{
	double w[2] = { 1, 9 };
	uint32_t caps[4] = { 10, 20, 0, 0 };
	struct sim_params sp;
	struct sim_result res;
	struct check ck = { 1000, 0, 0, { 0 } };
	static const enum sched_policy pols[2] = { SCHED_P_THESIS,
	    SCHED_P_IMPROVED };
	enum sched_policy pol;
	int i;

	for (i = 0; i < 2; i++) {
		pol = pols[i];
		sp = params(1000, 2, pol);
		sp.sp_weights = w;
		ck.ck_procs = 1000;
		ck.ck_quanta = 0;
		sim_run(&sp, &res, check_observe, &ck);
		ok(res.sr_exact > 0 && ck.ck_last[0] == 100 &&
		    ck.ck_last[1] == 900, "%s, weights 1:9 on 1000: exact "
		    "100/900 at quantum %lld", sched_policy_name(pol),
		    (long long)res.sr_exact);
		sp = params(100, 4, pol);
		sp.sp_caps = caps;
		ck.ck_procs = 100;
		ck.ck_quanta = 0;
		sim_run(&sp, &res, check_observe, &ck);
		ok(res.sr_exact > 0 && ck.ck_last[0] == 10 &&
		    ck.ck_last[1] == 20 && ck.ck_last[2] == 35 &&
		    ck.ck_last[3] == 35, "%s, caps 10,20: exact 10/20/35/35 "
		    "at quantum %lld", sched_policy_name(pol),
		    (long long)res.sr_exact);
	}
}

static void
test_churn(void)
{
	struct sim_params sp;
	struct sim_result th, im;
	struct sim *sm;
	const uint32_t *c;
	uint64_t sum;
	uint32_t q, j;
	int bad = 0;

	sp = params(2000, 20, SCHED_P_THESIS);
	sp.sp_leave_rate = 0.02;
	sp.sp_join_rate = 0.02;
	sp.sp_max_quanta = 100;
	if ((sm = sim_new(&sp)) == NULL) {
		ok(0, "sim_new with churn");
		return;
	}
	for (q = 0; q < 100; q++) {
		sim_step(sm);
		c = sim_counts(sm);
		for (sum = 0, j = 0; j < 20; j++)
			sum += c[j];
		if (sum != sim_available(sm))
			bad++;
	}
	ok(bad == 0 && sim_available(sm) < 2000,
	    "churn: counts sum to the %u available nodes", sim_available(sm));
	sim_free(sm);
	sim_run(&sp, &th, NULL, NULL);
	sp.sp_rule.ru_policy = SCHED_P_IMPROVED;
	sim_run(&sp, &im, NULL, NULL);
	printf("# churn 2%%: mean distance thesis %.3f, improved %.3f\n",
	    th.sr_mean_dist, im.sr_mean_dist);
	ok(th.sr_ran == 100 && im.sr_ran == 100, "churn runs all 100 quanta");
	ok(isfinite(th.sr_mean_dist) && im.sr_mean_dist < th.sr_mean_dist,
	    "churn: improved stays closer to fair (%.3f < %.3f)",
	    im.sr_mean_dist, th.sr_mean_dist);
}

/* Pairing within a sample of 32 peers converges as with everyone. */
static void
test_peers(void)
{
	struct sim_params sp = params(1000, 10, SCHED_P_THESIS);
	struct sim_result all, some;
	struct check ck = { 1000, 0, 0, { 0 } };
	struct sim *sm;

	sp.sp_peers = SIM_PEERS_MAX + 1;
	ok((sm = sim_new(&sp)) == NULL, "peers above %d: refused",
	    SIM_PEERS_MAX);
	sp.sp_peers = 0;
	sim_run(&sp, &all, NULL, NULL);
	sp.sp_peers = 32;
	is_int(sim_run(&sp, &some, check_observe, &ck), 0,
	    "run P=1000 J=10 with 32 peers each");
	is_int(ck.ck_bad, 0, "every quantum: counts sum to P");
	ok(some.sr_quanta > 0 && some.sr_quanta <= 2 * all.sr_quanta + 5 &&
	    some.sr_exact > 0,
	    "within one after %lld quanta (everyone: %lld), exact after %lld",
	    (long long)some.sr_quanta, (long long)all.sr_quanta,
	    (long long)some.sr_exact);
}

int
main(void)
{
	test_params();
	test_peers();
	test_median();
	test_model();
	test_thesis();
	test_naive();
	test_fixed();
	test_endgame();
	test_improved();
	test_weights_caps();
	test_churn();
	return tap_done();
}
