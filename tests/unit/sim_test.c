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

/*
 * Seeds a claim is measured over: 20, or SIM_SEEDS (valgrind runs a
 * few, to see the simulator's memory, not to measure it).
 */
static int SEEDS = 20;

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

static const struct sim_slots mixed[3] = {
	{ 1, 0.5 }, { 8, 0.3 }, { 32, 0.2 }
};
static const struct sim_slots single[1] = { { 1, 1 } };

static void
test_slots_params(void)
{
	struct sim_slots bad[2] = { { 1, 0.5 }, { 8, 0.5 } };
	struct sim_params sp = params(100, 2, SCHED_P_THESIS);

	sp.sp_slots = bad;
	sp.sp_nslots = 2;
	ok(!rejects(&sp), "slots 1:50%%,8:50%%: accepted");
	bad[1].ss_slots = 0;
	ok(rejects(&sp), "a node of 0 processors: EINVAL");
	bad[1].ss_slots = SIM_SLOTS_MAX + 1;
	ok(rejects(&sp), "a node of %d processors: EINVAL",
	    SIM_SLOTS_MAX + 1);
	bad[1].ss_slots = 1;
	ok(rejects(&sp), "the same size twice: EINVAL");
	bad[1].ss_slots = 8;
	bad[1].ss_frac = 0.4;
	ok(rejects(&sp), "fractions summing to 0.9: EINVAL");
	sp.sp_slots = NULL;
	ok(rejects(&sp), "entries without a table: EINVAL");
}

/* a and b the same run, draw for draw. */
static int
same_run(const struct sim_result *a, const struct sim_result *b)
{
	return a->sr_quanta == b->sr_quanta && a->sr_exact == b->sr_exact &&
	    a->sr_messages == b->sr_messages &&
	    a->sr_switches == b->sr_switches && a->sr_ran == b->sr_ran &&
	    a->sr_mean_dist == b->sr_mean_dist;
}

/*
 * Nodes of one processor are the simulation as it was before nodes had
 * several: the figures below are what it printed then (CilkSim -P 1000
 * -J 10; -P 2000 -J 20 --peers 8 --leave-rate 0.01 --join-rate 0.02
 * --max-quanta 60), and "1:100%" changes nothing.
 */
static void
test_slots_single(void)
{
	struct sim_params sp = params(1000, 10, SCHED_P_THESIS);
	struct sim_result a, b;

	sim_run(&sp, &a, NULL, NULL);
	sp.sp_slots = single;
	sp.sp_nslots = 1;
	sim_run(&sp, &b, NULL, NULL);
	ok(a.sr_quanta == 13 && a.sr_exact == 23 && a.sr_messages == 46000 &&
	    a.sr_switches == 1253, "P=1000 J=10 seed 1: 13, 23, 46000 "
	    "messages, 1253 switches, as before slots");
	ok(same_run(&a, &b), "slots 1:100%%: the same run");
	sp = params(2000, 20, SCHED_P_THESIS);
	sp.sp_peers = 8;
	sp.sp_leave_rate = 0.01;
	sp.sp_join_rate = 0.02;
	sp.sp_max_quanta = 60;
	sim_run(&sp, &a, NULL, NULL);
	sp.sp_slots = single;
	sp.sp_nslots = 1;
	sim_run(&sp, &b, NULL, NULL);
	ok(a.sr_quanta == 14 && a.sr_exact == -1 &&
	    a.sr_messages == 195748 && a.sr_switches == 2838,
	    "peers and churn: 14, never, 195748 messages, 2838 switches, "
	    "as before slots");
	ok(same_run(&a, &b), "peers and churn, slots 1:100%%: the same run");
}

/* Nodes are drawn until they hold P, the last one truncated. */
static void
test_slots_layout(void)
{
	struct sim_params sp = params(100000, 100, SCHED_P_THESIS);
	struct sim *sm;
	uint32_t n, first, k, next = 0, kind[3] = { 0, 0, 0 }, odd = 0;
	uint64_t sum = 0;

	sp.sp_slots = mixed;
	sp.sp_nslots = 3;
	if ((sm = sim_new(&sp)) == NULL) {
		ok(0, "sim_new with slots");
		return;
	}
	for (n = 0; n < sim_nodes(sm); n++) {
		k = sim_node_procs(sm, n, &first);
		if (first != next)
			odd++;
		next = first + k;
		sum += k;
		if (k == 1)
			kind[0]++;
		else if (k == 8)
			kind[1]++;
		else if (k == 32)
			kind[2]++;
		else if (n + 1 != sim_nodes(sm))
			odd++;
	}
	printf("# %u nodes: %u of 1, %u of 8, %u of 32\n", sim_nodes(sm),
	    kind[0], kind[1], kind[2]);
	ok(sum == 100000 && odd == 0, "the nodes hold the %llu processors, "
	    "in order, only the last of another size",
	    (unsigned long long)sum);
	ok(fabs(kind[0] / (double)sim_nodes(sm) - 0.5) < 0.03 &&
	    fabs(kind[1] / (double)sim_nodes(sm) - 0.3) < 0.03 &&
	    fabs(kind[2] / (double)sim_nodes(sm) - 0.2) < 0.03,
	    "the sizes follow 1:50%%,8:30%%,32:20%%");
	sim_free(sm);
}

/*
 * Four jobs on nodes of 32, 32, 32 and 4 processors share processors,
 * not nodes: 25 each, with everyone and within samples.
 */
static void
test_slots_shares(void)
{
	static const struct sim_slots big[1] = { { 32, 1 } };
	struct sim_params sp = params(100, 4, SCHED_P_THESIS);
	struct sim_result res;
	struct check ck = { 100, 0, 0, { 0 } };
	uint32_t peers;

	sp.sp_slots = big;
	sp.sp_nslots = 1;
	for (peers = 0; peers <= 2; peers += 2) {
		sp.sp_peers = peers;
		ck.ck_quanta = 0;
		ck.ck_bad = 0;
		sim_run(&sp, &res, check_observe, &ck);
		ok(res.sr_exact > 0 && ck.ck_bad == 0 && ck.ck_last[0] == 25 &&
		    ck.ck_last[1] == 25 && ck.ck_last[2] == 25 &&
		    ck.ck_last[3] == 25, "4 nodes of 32,32,32,4 (peers %u): "
		    "exact 25/25/25/25 processors at quantum %lld", peers,
		    (long long)res.sr_exact);
	}
}

/* Mixed nodes converge as single-processor ones, within samples too. */
static void
test_slots_converge(void)
{
	struct sim_params sp = params(10000, 100, SCHED_P_THESIS);
	struct summary one, many;

	sp.sp_peers = 32;
	sp.sp_max_quanta = 5000;
	one = runs(sp, SEEDS, "peers 32, one processor a node");
	sp.sp_slots = mixed;
	sp.sp_nslots = 3;
	many = runs(sp, SEEDS, "peers 32, 1:50%,8:30%,32:20%");
	ok(!many.su_failed && many.su_quanta > 0 &&
	    many.su_quanta <= one.su_quanta + 3 && many.su_qmax <= 40,
	    "mixed nodes: median %g quanta to within one (single %g), "
	    "max %lld", many.su_quanta, one.su_quanta,
	    (long long)many.su_qmax);
	ok(many.su_emax >= 0, "mixed nodes: every seed exact (median %g, "
	    "max %lld)", many.su_exact, (long long)many.su_emax);
	sp.sp_peers = 0;
	many = runs(sp, 5, "everyone, 1:50%,8:30%,32:20%");
	ok(many.su_quanta > 0 && many.su_quanta <= 25 && many.su_emax >= 0,
	    "mixed nodes, everyone: median %g quanta to within one",
	    many.su_quanta);
}

/* An owner's return takes all its node's processors, and gives them back. */
static void
test_slots_churn(void)
{
	struct sim_params sp = params(2000, 20, SCHED_P_THESIS);
	struct sim *sm;
	const uint32_t *c;
	uint32_t q, n, k, first, busy, avail, j, left = 0, sum;
	int split = 0, wrong = 0;

	sp.sp_slots = mixed;
	sp.sp_nslots = 3;
	sp.sp_peers = 8;
	sp.sp_leave_rate = 0.05;
	sp.sp_join_rate = 0.05;
	if ((sm = sim_new(&sp)) == NULL) {
		ok(0, "sim_new with slots and churn");
		return;
	}
	for (q = 0; q < 100; q++) {
		if (sim_step(sm) == -1)
			wrong++;
		avail = 0;
		for (n = 0; n < sim_nodes(sm); n++) {
			k = sim_node_procs(sm, n, &first);
			for (busy = 0, j = 0; j < k; j++)
				busy += sim_proc_job(sm, first + j) ==
				    UINT32_MAX;
			if (busy != 0 && busy != k)
				split++;
			if (busy == k && k >= 8)
				left++;
			avail += k - busy;
		}
		c = sim_counts(sm);
		for (sum = 0, j = 0; j < 20; j++)
			sum += c[j];
		if (avail != sim_available(sm) || sum != avail)
			wrong++;
	}
	ok(split == 0, "churn: every node lends all its processors or none");
	ok(wrong == 0 && left > 0, "churn: the counts sum to the available "
	    "nodes' processors (%u now; nodes of 8 or more were busy %u "
	    "times)", sim_available(sm), left);
	sim_free(sm);
}

int
main(void)
{
	const char *env = getenv("SIM_SEEDS");

	if (env != NULL && atoi(env) > 0 && atoi(env) < 64)
		SEEDS = atoi(env);
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
	test_slots_params();
	test_slots_single();
	test_slots_layout();
	test_slots_shares();
	test_slots_converge();
	test_slots_churn();
	return tap_done();
}
