/*
 * grid — the thesis's figure 4-2 experiment: mean quanta to within one
 * over seeds for P = 10 .. 100000 and a few J from 2 to P/10, with the
 * least-squares slope of quanta against log2 P.
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cilksim.h"

#define GRID_SEEDS	20	/* when --seeds is not given */
#define GRID_NP		5
#define GRID_NJ		4
#define GRID_MAX	(GRID_NP * GRID_NJ)

enum grid_series {
	GS_J2,
	GS_J10,
	GS_P100,	/* J = P/100 */
	GS_P10,		/* J = P/10 */
	GS_MAX
};

static const char *const series_names[GS_MAX] = {
	"J = 2", "J = 10", "J = P/100", "J = P/10"
};

struct grid_pt {
	uint32_t	gp_procs;
	uint32_t	gp_jobs;
	unsigned	gp_series;	/* bit mask of enum grid_series */
	double		gp_mean;	/* over converged runs */
	uint32_t	gp_runs;
	uint32_t	gp_never;
};

static size_t
grid_points(struct grid_pt *pt)
{
	static const uint32_t procs[GRID_NP] = { 10, 100, 1000, 10000,
	    100000 };
	uint32_t P, J[GS_MAX];
	size_t n = 0, k, s, i;

	for (i = 0; i < GRID_NP; i++) {
		P = procs[i];
		J[GS_J2] = 2;
		J[GS_J10] = 10;
		J[GS_P100] = P / 100;
		J[GS_P10] = P / 10;
		for (s = 0; s < GS_MAX; s++) {
			if (J[s] < 2 || (J[s] > P / 10 && J[s] != 2))
				continue;
			for (k = 0; k < n; k++)
				if (pt[k].gp_procs == P &&
				    pt[k].gp_jobs == J[s])
					break;
			if (k == n) {
				pt[n].gp_procs = P;
				pt[n].gp_jobs = J[s];
				pt[n].gp_series = 0;
				n++;
			}
			pt[k].gp_series |= 1u << s;
		}
	}
	return n;
}

/* Least-squares slope of mean quanta against log2 P; NAN if < 2 points. */
static double
slope(const struct grid_pt *pt, size_t n, unsigned mask)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, x, m = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if ((pt[i].gp_series & mask) == 0 || pt[i].gp_never ==
		    pt[i].gp_runs)
			continue;
		x = log2(pt[i].gp_procs);
		sx += x;
		sy += pt[i].gp_mean;
		sxx += x * x;
		sxy += x * pt[i].gp_mean;
		m++;
	}
	if (m < 2 || m * sxx - sx * sx == 0)
		return NAN;
	return (m * sxy - sx * sy) / (m * sxx - sx * sx);
}

static void
run_point(const struct cs_opts *o, struct grid_pt *g)
{
	struct sim_params sp = o->co_sp;
	struct sim_result res;
	double sum = 0;
	uint32_t i, seeds = o->co_seeds_set ? o->co_seeds : GRID_SEEDS;

	sp.sp_procs = g->gp_procs;
	sp.sp_jobs = g->gp_jobs;
	sp.sp_until_within = 1;
	g->gp_runs = seeds;
	g->gp_never = 0;
	for (i = 0; i < seeds; i++) {
		sp.sp_seed = o->co_sp.sp_seed + i;
		if (sim_run(&sp, &res, NULL, NULL) == -1)
			err(1, "simulation P=%u J=%u", sp.sp_procs,
			    sp.sp_jobs);
		if (res.sr_quanta < 0)
			g->gp_never++;
		else
			sum += (double)res.sr_quanta;
	}
	g->gp_mean = g->gp_never < seeds ? sum / (seeds - g->gp_never) : -1;
}

static void
print_json(const struct cs_opts *o, const struct grid_pt *pt, size_t n)
{
	size_t i;
	unsigned s;
	double k;

	printf("{\"schema\": 1, \"policy\": \"%s\", ",
	    sched_policy_name(o->co_sp.sp_rule.ru_policy));
	if (o->co_slots_arg != NULL)
		printf("\"slots\": \"%s\", ", o->co_slots_arg);
	printf("\"grid\": [");
	for (i = 0; i < n; i++) {
		printf("%s{\"P\": %u, \"J\": %u, \"runs\": %u, \"never\": %u, "
		    "\"mean_quanta\": ", i ? ", " : "", pt[i].gp_procs,
		    pt[i].gp_jobs, pt[i].gp_runs, pt[i].gp_never);
		if (pt[i].gp_mean < 0)
			printf("null}");
		else
			printf("%.3f}", pt[i].gp_mean);
	}
	printf("], \"slopes\": {");
	for (s = 0; s <= GS_MAX; s++) {
		k = slope(pt, n, s < GS_MAX ? 1u << s : ~0u);
		printf("%s\"%s\": ", s ? ", " : "",
		    s < GS_MAX ? series_names[s] : "all");
		if (isnan(k))
			printf("null");
		else
			printf("%.4f", k);
	}
	printf("}}\n");
}

static void
print_text(const struct cs_opts *o, const struct grid_pt *pt, size_t n)
{
	size_t i;
	unsigned s;
	double k;

	printf("CilkSim grid: policy=%s init=%s", sched_policy_name(
	    o->co_sp.sp_rule.ru_policy), o->co_sp.sp_init == SIM_INIT_ONE ?
	    "one" : "spread");
	if (o->co_slots_arg != NULL)
		printf(" slots=%s", o->co_slots_arg);
	printf(", mean quanta to within one over %u seeds\n",
	    pt[0].gp_runs);
	printf("%8s %7s %12s %6s\n", "P", "J", "mean quanta", "never");
	for (i = 0; i < n; i++) {
		printf("%8u %7u ", pt[i].gp_procs, pt[i].gp_jobs);
		if (pt[i].gp_mean < 0)
			printf("%12s", "-");
		else
			printf("%12.2f", pt[i].gp_mean);
		printf(" %6u\n", pt[i].gp_never);
	}
	printf("least-squares slope of mean quanta against log2 P:\n");
	for (s = 0; s <= GS_MAX; s++) {
		k = slope(pt, n, s < GS_MAX ? 1u << s : ~0u);
		printf("  %-12s", s < GS_MAX ? series_names[s] : "all points");
		if (isnan(k))
			printf(" -\n");
		else
			printf(" %.3f quanta per doubling of P\n", k);
	}
}

void
cs_grid(const struct cs_opts *o)
{
	struct grid_pt pt[GRID_MAX];
	size_t n, i;

	n = grid_points(pt);
	for (i = 0; i < n; i++) {
		fprintf(stderr, "CilkSim: grid %zu/%zu: P=%u J=%u\n", i + 1,
		    n, pt[i].gp_procs, pt[i].gp_jobs);
		run_point(o, &pt[i]);
	}
	if (o->co_json)
		print_json(o, pt, n);
	else
		print_text(o, pt, n);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
}
