/*
 * sched_test — the fair-share rule: thresholds, rho, its sampling
 * frequency, weights, caps, water-filling, the improved plan, and
 * determinism through the injected random source.
 */
#include "fairshare.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tap.h"

#define NEAR(a, b)	(fabs((double)(a) - (double)(b)) <= \
			    1e-12 * (1 + fabs((double)(b))))

/* A scripted source: returns the values of a list, then repeats. */
struct script {
	const uint64_t	*sc_v;
	size_t		 sc_n;
	size_t		 sc_i;
};

static uint64_t
script_next(void *arg)
{
	struct script *sc = arg;

	return sc->sc_v[sc->sc_i++ % sc->sc_n];
}

/* The 64-bit value that sched_rng_unit() turns into u. */
static uint64_t
unit_bits(double u)
{
	return (uint64_t)(u * 0x1.0p53) << 11;
}

static struct sched_job
job(uint32_t count, double weight, uint32_t cap)
{
	struct sched_job j;

	j.sj_count = count;
	j.sj_weight = weight;
	j.sj_cap = cap;
	return j;
}

static double
thesis_rho(double p, double q)
{
	double r = (p * p - q * q) / (2 * p * q);

	return r > 1 ? 1 : r;
}

static void
test_rng(void)
{
	struct sched_rng a, b;
	uint64_t x, v[4] = { 0, UINT64_MAX, 1ULL << 63, 12345 };
	struct script sc = { v, 4, 0 };
	int i, same = 1, inrange = 1, differ = 0;
	double u;

	sched_rng_seed(&a, 42);
	sched_rng_seed(&b, 42);
	for (i = 0; i < 1000; i++)
		if (sched_rng_u64(&a) != sched_rng_u64(&b))
			same = 0;
	ok(same, "same seed, same 1000 draws");
	sched_rng_seed(&a, 42);
	sched_rng_seed(&b, 43);
	for (i = 0; i < 10; i++)
		if (sched_rng_u64(&a) != sched_rng_u64(&b))
			differ = 1;
	ok(differ, "different seeds, different draws");
	for (i = 0; i < 100000; i++) {
		x = sched_rng_below(&a, 7);
		u = sched_rng_unit(&a);
		if (x >= 7 || u < 0 || u >= 1)
			inrange = 0;
	}
	ok(inrange, "below(7) in [0, 7), unit in [0, 1)");
	is_int(sched_rng_below(&a, 0), 0, "below(0) is 0");

	sched_rng_custom(&a, script_next, &sc);
	is_int(sched_rng_u64(&a) == 0 && sched_rng_u64(&a) == UINT64_MAX, 1,
	    "custom source is called in order");
	ok(sched_rng_unit(&a) == 0.5, "unit(2^63) is 0.5");
	sc.sc_i = 1;
	ok(sched_rng_unit(&a) < 1, "unit(2^64 - 1) is below 1");
}

static void
test_threshold(void)
{
	struct sched_rule ru = { SCHED_P_THESIS, 0 };
	struct sched_job p, q;
	struct sched_rng rng;
	uint64_t zero = 0;
	struct script sc = { &zero, 1, 0 };
	int m, bad = 0;

	/* u = 0 switches whenever rho > 0: only the condition stops it. */
	sched_rng_custom(&rng, script_next, &sc);
	for (m = 1; m <= 300; m++) {
		p = job(m, 1, 0);
		q = job(m, 1, 0);
		if (sched_decide(&ru, &p, &q, &rng) != 0)
			bad++;
		q = job(m + 1, 1, 0);
		if (sched_decide(&ru, &p, &q, &rng) != 0)
			bad++;
		q = job(m - 1 > 0 ? m - 1 : 1, 1, 0);
		if (m >= 2 && sched_decide(&ru, &p, &q, &rng) != 0)
			bad++;
		q = job(m, 1, 0);
		p = job(m + 2, 1, 0);
		if (sched_decide(&ru, &p, &q, &rng) != 1)
			bad++;
	}
	is_int(bad, 0, "m_p < m_q + 2 never switches, m_p = m_q + 2 can");
	p = job(5, 1, 0);
	q = job(4, 1, 0);
	ok(!sched_improves(&p, &q) && sched_rho(&p, &q) == 0,
	    "5 vs 4: no improvement, rho 0");
	p = job(3, 1, 0);
	q = job(1, 1, 0);
	ok(sched_improves(&p, &q), "3 vs 1 improves (the end game)");
	p = job(2, 1, 0);
	ok(!sched_improves(&p, &q), "2 vs 1 does not (only swaps)");
}

static void
test_rho(void)
{
	struct sched_job p, q;
	int a, b, bad = 0, over = 0;

	p = job(10, 1, 0);
	q = job(5, 1, 0);
	ok(NEAR(sched_rho(&p, &q), 0.75), "rho(10, 5) = 0.75");
	p = job(100, 1, 0);
	q = job(98, 1, 0);
	ok(NEAR(sched_rho(&p, &q), 396.0 / 19600), "rho(100, 98) = 396/19600");
	p = job(3, 1, 0);
	q = job(1, 1, 0);
	ok(sched_rho(&p, &q) == 1, "rho(3, 1) = 4/3 capped at 1");
	p = job(9901, 1, 0);
	ok(sched_rho(&p, &q) == 1, "rho(9901, 1) capped at 1");
	for (a = 1; a <= 400; a++)
		for (b = 1; b <= 400; b++) {
			p = job(a, 1, 0);
			q = job(b, 1, 0);
			if (a >= b + 2 && !NEAR(sched_rho(&p, &q),
			    thesis_rho(a, b)))
				bad++;
			if (sched_rho(&p, &q) > 1 || sched_rho(&p, &q) < 0)
				over++;
		}
	is_int(bad, 0, "rho = (m_p^2 - m_q^2) / (2 m_p m_q) for 1..400");
	is_int(over, 0, "rho always in [0, 1]");
	p = job(10, 3, 0);
	q = job(5, 3, 0);
	ok(NEAR(sched_rho(&p, &q), 0.75), "equal weights of 3: same rho");
	p = job(0, 1, 0);
	q = job(0, 1, 0);
	ok(sched_rho(&p, &q) == 0, "counts 0 are read as 1: no switch");
}

/* 200000 decisions: the switch count is within 5 sigma of n * rho. */
static void
frequency(const struct sched_rule *ru, uint32_t mp, uint32_t mq,
    double want, uint64_t seed)
{
	struct sched_rng rng;
	struct sched_job p = job(mp, 1, 0), q = job(mq, 1, 0);
	const int n = 200000;
	double sigma;
	int i, k = 0;

	sched_rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
		k += sched_decide(ru, &p, &q, &rng);
	sigma = sqrt(n * want * (1 - want));
	ok(fabs(k - n * want) <= 5 * sigma,
	    "%s %u vs %u: %d of %d switched, expected %.0f +- %.0f",
	    sched_policy_name(ru->ru_policy), mp, mq, k, n, n * want,
	    5 * sigma);
}

static void
test_frequency(void)
{
	struct sched_rule th = { SCHED_P_THESIS, 0 }, fx = { SCHED_P_FIXED,
	    0.25 };

	frequency(&th, 13, 10, thesis_rho(13, 10), 1);
	frequency(&th, 10, 5, 0.75, 2);
	frequency(&th, 1001, 999, thesis_rho(1001, 999), 3);
	frequency(&fx, 13, 10, 0.25, 4);
	frequency(&fx, 11, 10, 0, 5);
}

static void
test_policies(void)
{
	struct sched_rule ru = { SCHED_P_NAIVE, 0 };
	struct sched_job p = job(11, 1, 0), q = job(10, 1, 0);
	struct sched_rng rng;

	sched_rng_seed(&rng, 1);
	is_int(sched_decide(&ru, &p, &q, &rng), 1, "naive: 11 vs 10 switches");
	is_int(sched_decide(&ru, &q, &p, &rng), 0, "naive: 10 vs 11 stays");
	ru.ru_policy = SCHED_P_FIXED;
	ru.ru_fixed_p = 1;
	is_int(sched_decide(&ru, &p, &q, &rng), 0,
	    "fixed p=1: 11 vs 10 stays (no improvement)");
	p = job(12, 1, 0);
	is_int(sched_decide(&ru, &p, &q, &rng), 1, "fixed p=1: 12 vs 10 "
	    "switches");
	ru.ru_fixed_p = 1.5;
	errno = 0;
	is_int(sched_decide(&ru, &p, &q, &rng), -1, "fixed p=1.5 is EINVAL");
	ru.ru_policy = SCHED_P_UNDEF;
	is_int(sched_decide(&ru, &p, &q, &rng), -1, "policy UNDEF is EINVAL");
	is_int(errno, EINVAL, "errno EINVAL");
	ru.ru_policy = SCHED_P_THESIS;
	q = job(10, 0, 0);
	is_int(sched_decide(&ru, &p, &q, &rng), -1, "weight 0 is EINVAL");
	q = job(10, NAN, 0);
	is_int(sched_decide(&ru, &p, &q, &rng), -1, "weight NaN is EINVAL");
	is_str(sched_policy_name(SCHED_P_IMPROVED), "improved", "name");
	is_int(sched_policy_parse("thesis"), SCHED_P_THESIS, "parse thesis");
	is_int(sched_policy_parse("bogus"), SCHED_P_UNDEF, "parse bogus");
	ok(sched_policy_name(SCHED_P_MAX) == NULL, "no name for MAX");
}

static void
test_weights(void)
{
	struct sched_job p, q;
	double sh[3], w[3] = { 2, 1, 1 };

	is_int(sched_fair_shares(12, 3, w, NULL, sh), 0, "shares 2:1:1");
	ok(NEAR(sh[0], 6) && NEAR(sh[1], 3) && NEAR(sh[2], 3),
	    "weight 2 gets twice the share: 6, 3, 3");
	/* (m_p - 1) / w_p >= (m_q + 1) / w_q */
	p = job(7, 2, 0);
	q = job(3, 1, 0);
	ok(!sched_improves(&p, &q), "w 2 at 7 vs w 1 at 3: 3 < 4, stays");
	p = job(9, 2, 0);
	ok(sched_improves(&p, &q), "w 2 at 9 vs w 1 at 3: 4 >= 4, may go");
	p = job(5, 1, 0);
	q = job(8, 2, 0);
	ok(!sched_improves(&p, &q), "w 1 at 5 vs w 2 at 8: 4 < 4.5, stays");
	p = job(6, 1, 0);
	ok(sched_improves(&p, &q), "w 1 at 6 vs w 2 at 8: 5 >= 4.5, may go");
	/*
	 * Two jobs, P = 100, weights 1:9, fair split 10:90.  At 20:80 the
	 * desired move is 10 nodes and 20 * 80 / 100 = 16 pairings happen:
	 * rho = 10 / 16, so the expected switches land exactly on 10:90.
	 */
	p = job(20, 1, 0);
	q = job(80, 9, 0);
	ok(NEAR(sched_rho(&p, &q), 0.625), "weighted rho 1:9 at 20:80 is "
	    "0.625 (got %.6f)", sched_rho(&p, &q));
	ok(NEAR(sched_rho(&p, &q) * 20 * 80 / 100, 10),
	    "expected switches = the 2-job gap");
	p = job(40, 2, 0);
	q = job(10, 2, 0);
	ok(NEAR(sched_rho(&p, &q), thesis_rho(40, 10)),
	    "weights 2:2 reduce to the thesis rho");
}

static void
test_caps(void)
{
	struct sched_job p, q;

	p = job(100, 1, 0);
	q = job(5, 1, 5);
	ok(sched_job_full(&q) && !sched_improves(&p, &q) &&
	    sched_rho(&p, &q) == 0, "a job at its cap attracts no node");
	q = job(6, 1, 5);
	ok(sched_rho(&p, &q) == 0, "nor a job above its cap");
	q = job(4, 1, 5);
	ok(NEAR(sched_rho(&p, &q), 1 / (400.0 / 104)),
	    "room for 1 node: desired 1, rho = 1 / (100*4/104)");
	p = job(12, 1, 10);
	q = job(11, 1, 0);
	ok(sched_improves(&p, &q), "a job over its cap gives nodes away even "
	    "to a larger job");
	ok(NEAR(sched_rho(&p, &q), 2 / (132.0 / 23)),
	    "over its cap by 2: desired 2, rho = 2 / (12*11/23)");
	p = job(10, 1, 10);
	ok(!sched_improves(&p, &q), "a job at its cap keeps its nodes");
}

static void
shares_case(uint64_t P, size_t n, const double *w, const uint32_t *c,
    const double *want, const char *name)
{
	double sh[8];
	size_t j;
	int good;

	good = sched_fair_shares(P, n, w, c, sh) == 0;
	for (j = 0; j < n && good; j++)
		good = NEAR(sh[j], want[j]);
	if (!ok(good, "water-filling: %s", name))
		for (j = 0; j < n; j++)
			printf("#   share %zu: got %.6f want %.6f\n", j, sh[j],
			    want[j]);
}

static void
test_shares(void)
{
	double w1[4] = { 1, 1, 1, 1 }, w2[3] = { 1, 2, 3 };
	uint32_t c1[4] = { 10, 20, 0, 0 }, c2[3] = { 0, 5, 0 };
	uint32_t c3[4] = { 5, 30, 40, 0 }, c4[2] = { 10, 20 };
	uint32_t c5[4] = { 3, 3, 3, 0 };
	double e1[4] = { 10, 20, 35, 35 }, e2[3] = { 6.25, 5, 18.75 };
	double e3[4] = { 5, 30, 32.5, 32.5 }, e4[2] = { 10, 20 };
	double e5[4] = { 2.5, 2.5, 2.5, 2.5 }, e6[3] = { 10.0 / 3,
	    10.0 / 3, 10.0 / 3 };
	double sh[2];

	shares_case(10, 3, NULL, NULL, e6, "P=10 J=3: 10/3 each");
	shares_case(100, 4, NULL, c1, e1, "caps 10,20,-,-: 10 20 35 35");
	shares_case(30, 3, w2, c2, e2, "w 1,2,3 cap -,5,-: 6.25 5 18.75");
	shares_case(100, 4, w1, c3, e3, "caps 5,30,40,-: cascade to 32.5");
	shares_case(100, 2, NULL, c4, e4, "caps summing below P: at caps");
	shares_case(10, 4, NULL, c5, e5, "caps above the level do not bind");
	errno = 0;
	is_int(sched_fair_shares(10, 0, NULL, NULL, sh), -1, "no jobs: -1");
	w1[1] = -1;
	is_int(sched_fair_shares(10, 2, w1, NULL, sh), -1, "weight -1: -1");
	is_int(errno, EINVAL, "errno EINVAL");
}

static void
test_convergence_tests(void)
{
	double sh[4] = { 2, 2, 2, 2 }, sf[3] = { 10.0 / 3, 10.0 / 3,
	    10.0 / 3 };
	uint32_t end[4] = { 3, 1, 2, 2 }, fair[4] = { 2, 2, 2, 2 };
	uint32_t far[4] = { 4, 0, 2, 2 }, f1[3] = { 4, 3, 3 };
	uint32_t f2[3] = { 5, 3, 2 }, lo, hi;

	ok(sched_within_one(4, end, sh) && !sched_exact(4, end, sh),
	    "3,1,2,2 of 2: within one, not exact");
	ok(sched_exact(4, fair, sh), "2,2,2,2: exact");
	ok(!sched_within_one(4, far, sh), "4,0,2,2: not within one");
	ok(sched_exact(3, f1, sf), "4,3,3 of 10/3: exact");
	ok(sched_within_one(3, f2, sf) && !sched_exact(3, f2, sf),
	    "5,3,2 of 10/3: within one of floor/ceil, not exact");
	sched_share_bounds(100.0 * (1 + 1e-15), &lo, &hi);
	ok(lo == 100 && hi == 100, "rounding noise: 100(1+1e-15) is 100");
	sched_share_bounds(2.5, &lo, &hi);
	ok(lo == 2 && hi == 3, "2.5 is between 2 and 3");
}

static void
test_plan(void)
{
	struct sched_plan *pl;
	uint32_t c[100], got[100], total;
	uint64_t r;
	int64_t t;
	size_t j;
	int bad;
	uint32_t caps[3] = { 0, 5, 0 }, c3[3] = { 28, 1, 1 };
	double w3[3] = { 1, 2, 3 };
	struct sched_rng rng;
	double mean;

	ok((pl = sched_plan_new(100)) != NULL, "plan for 100 jobs");
	if (pl == NULL)
		return;
	/* The end game: P = 200, job 1 at 3, job 2 at 1, the rest at 2. */
	for (j = 0; j < 100; j++)
		c[j] = 2;
	c[0] = 3;
	c[1] = 1;
	is_int(sched_plan_update(pl, c, NULL, NULL), 0, "plan update");
	is_int(sched_plan_moves(pl), 1, "end game: one move");
	is_int(sched_plan_move(pl, 0, 0), 1, "job 1 rank 0 goes to job 2");
	is_int(sched_plan_move(pl, 0, 1), -1, "job 1 rank 1 stays");
	bad = 0;
	for (j = 1; j < 100; j++)
		for (r = 0; r < c[j]; r++)
			if (sched_plan_move(pl, j, r) != -1)
				bad++;
	is_int(bad, 0, "every other node stays");

	/* Spread: job 1 at 9901, 99 jobs at 1. */
	for (j = 0; j < 100; j++)
		c[j] = 1;
	c[0] = 9901;
	sched_plan_update(pl, c, NULL, NULL);
	is_int(sched_plan_moves(pl), 9801, "spread: 9801 moves");
	for (j = 0; j < 100; j++)
		got[j] = c[j];
	for (r = 0; r < c[0]; r++)
		if ((t = sched_plan_move(pl, 0, r)) >= 0) {
			got[0]--;
			got[t]++;
		}
	bad = 0;
	for (j = 0; j < 100; j++)
		bad += got[j] != 100;
	is_int(bad, 0, "after the moves every job has exactly 100");

	/* Targets go to the floor or ceiling, ceilings to holders first. */
	for (j = 0; j < 100; j++)
		c[j] = j < 50 ? 3 : 2;
	c[99] = 0;
	c[98] = 1;	/* 247 nodes: 2.47 each, 47 ceilings */
	sched_plan_update(pl, c, NULL, NULL);
	total = 0;
	bad = 0;
	for (j = 0; j < 100; j++) {
		total += sched_plan_target(pl, j);
		if (sched_plan_target(pl, j) != (j < 47 ? 3u : 2u))
			bad++;
	}
	is_int(total, 247, "targets sum to the nodes");
	is_int(bad, 0, "ceilings go to the jobs that hold them");
	is_int(sched_plan_moves(pl), 3, "3 moves: jobs 48-50 fill 99 and 100");
	sched_plan_free(pl);

	/* Weights and caps: 30 nodes, w 1,2,3, job 2 capped at 5. */
	pl = sched_plan_new(3);
	sched_plan_update(pl, c3, w3, caps);
	ok(sched_plan_target(pl, 0) + sched_plan_target(pl, 1) +
	    sched_plan_target(pl, 2) == 30 && sched_plan_target(pl, 1) == 5,
	    "weighted capped targets: %u %u %u", sched_plan_target(pl, 0),
	    sched_plan_target(pl, 1), sched_plan_target(pl, 2));

	/* The randomised form moves X_j nodes in expectation. */
	sched_rng_seed(&rng, 7);
	mean = 0;
	for (r = 0; r < 10000; r++)
		for (j = 0; j < c3[0]; j++)
			mean += sched_plan_move_random(pl, 0, &rng) >= 0;
	mean /= 10000;
	ok(fabs(mean - (28.0 - sched_plan_target(pl, 0))) < 0.15,
	    "targeted: mean movers %.3f, excess %u", mean,
	    28 - sched_plan_target(pl, 0));
	sched_plan_free(pl);
	ok(sched_plan_new(0) == NULL && errno == EINVAL, "no jobs: EINVAL");
}

static void
test_determinism(void)
{
	struct sched_rule ru = { SCHED_P_THESIS, 0 };
	struct sched_job p = job(13, 1, 0), q = job(10, 1, 0);
	struct sched_rng a, b;
	uint64_t v[2];
	struct script sc = { v, 2, 0 };
	int i, same = 1, seq[4];

	sched_rng_seed(&a, 99);
	sched_rng_seed(&b, 99);
	for (i = 0; i < 10000; i++)
		if (sched_decide(&ru, &p, &q, &a) !=
		    sched_decide(&ru, &p, &q, &b))
			same = 0;
	ok(same, "same seed: the same 10000 decisions");
	/* rho(13, 10) = 69 / 260 = 0.2654: just below switches. */
	v[0] = unit_bits(0.2653);
	v[1] = unit_bits(0.2655);
	sched_rng_custom(&a, script_next, &sc);
	for (i = 0; i < 4; i++)
		seq[i] = sched_decide(&ru, &p, &q, &a);
	ok(seq[0] == 1 && seq[1] == 0 && seq[2] == 1 && seq[3] == 0,
	    "scripted draws 0.2653, 0.2655 around rho 0.2654: 1 0 1 0");
	is_int(sc.sc_i, 4, "one draw per decision when 0 < rho < 1");
	p = job(30, 1, 0);
	sched_decide(&ru, &p, &q, &a);
	is_int(sc.sc_i, 4, "no draw when rho = 1");
}

static void
test_peer_pick(void)
{
	static const uint32_t slots[4] = { 1, 0, 8, 3 };
	uint32_t hits[5] = { 0 };
	struct sched_rng rng;
	int i;

	sched_rng_seed(&rng, 7);
	for (i = 0; i < 120000; i++)
		hits[sched_peer_pick(&rng, slots, 4)]++;
	ok(hits[1] == 0 && hits[4] == 0,
	    "a node that lends nothing is never a peer");
	/* 1:8:3 of 12: expected 10000, 80000, 30000; 5 sigma bounds. */
	ok(hits[0] > 9500 && hits[0] < 10500, "1 of 12 processors: %u",
	    hits[0]);
	ok(hits[2] > 79200 && hits[2] < 80800, "8 of 12: %u", hits[2]);
	ok(hits[3] > 29200 && hits[3] < 30800, "3 of 12: %u", hits[3]);
	ok(sched_peer_pick(&rng, slots + 1, 1) == 1,
	    "no processor lent: n, none");
	ok(sched_peer_pick(&rng, slots, 0) == 0, "no node: n");
}

int
main(void)
{
	test_peer_pick();
	test_rng();
	test_threshold();
	test_rho();
	test_frequency();
	test_policies();
	test_weights();
	test_caps();
	test_shares();
	test_convergence_tests();
	test_plan();
	test_determinism();
	return tap_done();
}
