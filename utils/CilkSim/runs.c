/*
 * runs — the seeds of one (P, J): the readable summary or the JSON of
 * DESIGN.md section 7, and the trace and plot of the first run.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cilksim.h"

static double
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *
init_name(enum sim_init i)
{
	switch (i) {
	case SIM_INIT_ONE:
		return "one";
	case SIM_INIT_ENDGAME:
		return "endgame";
	default:
		return "spread";
	}
}

/* What the observer of a run needs: the recording and the progress. */
struct cs_watch {
	struct cs_rec	*cw_rec;	/* NULL: not recording */
	double		 cw_last;	/* last progress line, or the start */
	uint64_t	 cw_seed;
};

/* Records the first run and reports progress on long runs. */
static void
watch(void *arg, uint32_t q, const uint32_t *counts, size_t njobs)
{
	struct cs_watch *cw = arg;
	double t;

	if (cw->cw_rec != NULL)
		cs_rec_observe(cw->cw_rec, q, counts, njobs);
	if (q % 16 == 0 && (t = now()) - cw->cw_last >= 2) {
		fprintf(stderr, "CilkSim: seed %llu: quantum %u\n",
		    (unsigned long long)cw->cw_seed, q);
		cw->cw_last = t;
	}
}

void
cs_json_quanta(FILE *fp, double q)
{
	if (q < 0)
		fputs("null", fp);
	else if (q == (double)(int64_t)q)
		fprintf(fp, "%lld", (long long)q);
	else
		fprintf(fp, "%.1f", q);
}

static void
text_quanta(char *buf, size_t len, int64_t q)
{
	if (q < 0)
		snprintf(buf, len, "never");
	else
		snprintf(buf, len, "%lld", (long long)q);
}

static void
write_outputs(const struct cs_opts *o, const struct cs_rec *rec)
{
	FILE *fp;

	if (o->co_trace != NULL) {
		if ((fp = fopen(o->co_trace, "w")) == NULL)
			err(1, "%s", o->co_trace);
		if (cs_rec_csv(rec, fp) == -1 || fclose(fp) == EOF)
			err(1, "%s", o->co_trace);
	}
	if (o->co_plot != NULL) {
		if ((fp = fopen(o->co_plot, "w")) == NULL)
			err(1, "%s", o->co_plot);
		if (cs_rec_svg(rec, o, fp) == -1 || fclose(fp) == EOF)
			err(1, "%s", o->co_plot);
	}
}

static void
print_text(const struct cs_opts *o, const struct sim_result *res,
    double mq, double me, double secs)
{
	const struct sim_params *sp = &o->co_sp;
	char q[32], e[32];
	uint64_t nq = 0;
	uint32_t i;
	int churn = sp->sp_leave_rate > 0 || sp->sp_join_rate > 0;

	printf("CilkSim: P=%u J=%u policy=%s init=%s seeds=%u",
	    sp->sp_procs, sp->sp_jobs,
	    sched_policy_name(sp->sp_rule.ru_policy),
	    init_name(sp->sp_init), o->co_seeds);
	if (sp->sp_rule.ru_policy == SCHED_P_FIXED &&
	    sp->sp_rule.ru_fixed_p == SIM_FIXED_AUTO)
		printf(" p=J/P=%g", (double)sp->sp_jobs / sp->sp_procs);
	else if (sp->sp_rule.ru_policy == SCHED_P_FIXED)
		printf(" p=%g", sp->sp_rule.ru_fixed_p);
	if (sp->sp_stale > 0)
		printf(" stale=%g", sp->sp_stale);
	if (sp->sp_peers > 0)
		printf(" peers=%u", sp->sp_peers);
	if (o->co_slots_arg != NULL)
		printf(" slots=%s", o->co_slots_arg);
	if (churn)
		printf(" leave=%g join=%g", sp->sp_leave_rate,
		    sp->sp_join_rate);
	printf(" max-quanta=%u\n", sp->sp_max_quanta);
	printf("%20s %8s %8s %12s %10s", "seed", "quanta", "exact",
	    "messages", "switches");
	if (churn)
		printf(" %9s %8s", "distance", "within");
	printf("\n");
	for (i = 0; i < o->co_seeds; i++) {
		text_quanta(q, sizeof(q), res[i].sr_quanta);
		text_quanta(e, sizeof(e), res[i].sr_exact);
		printf("%20llu %8s %8s %12llu %10llu",
		    (unsigned long long)(sp->sp_seed + i), q, e,
		    (unsigned long long)res[i].sr_messages,
		    (unsigned long long)res[i].sr_switches);
		if (churn)
			printf(" %9.3f %7.1f%%", res[i].sr_mean_dist,
			    100 * res[i].sr_within_frac);
		printf("\n");
		nq += res[i].sr_node_quanta;
	}
	printf("median quanta to within one: ");
	if (mq < 0)
		printf("never (limit %u)\n", sp->sp_max_quanta);
	else
		printf("%g\n", mq);
	printf("median quanta to exact: ");
	if (me < 0)
		printf("never (limit %u)\n", sp->sp_max_quanta);
	else
		printf("%g\n", me);
	if (churn)
		printf("distance = mean over quanta of sum_j |count_j - "
		    "share_j| / J\n");
	printf("simulated %llu processor-quanta in %.2f s (%.3g per s)\n",
	    (unsigned long long)nq, secs, secs > 0 ? nq / secs : 0.0);
}

static void
print_json(const struct cs_opts *o, const struct sim_result *res,
    double mq, double me)
{
	const struct sim_params *sp = &o->co_sp;
	uint32_t i;
	int churn = sp->sp_leave_rate > 0 || sp->sp_join_rate > 0;

	printf("{\"schema\": 1, \"P\": %u, \"J\": %u, \"policy\": \"%s\", ",
	    sp->sp_procs, sp->sp_jobs,
	    sched_policy_name(sp->sp_rule.ru_policy));
	/* Only with --slots: the single-processor document is unchanged. */
	if (o->co_slots_arg != NULL)
		printf("\"slots\": \"%s\", ", o->co_slots_arg);
	printf("\"runs\": [");
	for (i = 0; i < o->co_seeds; i++) {
		printf("%s{\"seed\": %llu, \"quanta\": ", i ? ", " : "",
		    (unsigned long long)(sp->sp_seed + i));
		cs_json_quanta(stdout, (double)res[i].sr_quanta);
		printf(", \"exact\": ");
		cs_json_quanta(stdout, (double)res[i].sr_exact);
		printf(", \"messages\": %llu",
		    (unsigned long long)res[i].sr_messages);
		if (churn)
			printf(", \"mean_distance\": %.6g, "
			    "\"within_fraction\": %.6g", res[i].sr_mean_dist,
			    res[i].sr_within_frac);
		printf("}");
	}
	printf("], \"median_quanta\": ");
	cs_json_quanta(stdout, mq);
	printf(", \"median_exact\": ");
	cs_json_quanta(stdout, me);
	printf("}\n");
}

void
cs_runs(const struct cs_opts *o)
{
	struct sim_params sp = o->co_sp;
	struct sim_result *res;
	struct cs_rec *rec = NULL;
	struct cs_watch cw;
	int64_t *qv, *ev;
	double t0, last, mq, me;
	uint32_t i;

	res = calloc(o->co_seeds, sizeof(*res));
	qv = calloc(o->co_seeds, sizeof(*qv));
	ev = calloc(o->co_seeds, sizeof(*ev));
	if (res == NULL || qv == NULL || ev == NULL)
		err(1, "calloc");
	if ((o->co_trace != NULL || o->co_plot != NULL) &&
	    (rec = cs_rec_new(sp.sp_jobs)) == NULL)
		err(1, "recording");
	t0 = last = now();
	for (i = 0; i < o->co_seeds; i++) {
		sp.sp_seed = o->co_sp.sp_seed + i;
		cw.cw_rec = i == 0 ? rec : NULL;
		cw.cw_last = now();
		cw.cw_seed = sp.sp_seed;
		if (sim_run(&sp, &res[i], watch, &cw) == -1)
			err(1, "simulation (seed %llu)",
			    (unsigned long long)sp.sp_seed);
		qv[i] = res[i].sr_quanta;
		ev[i] = res[i].sr_exact;
		if (o->co_verbose || (i + 1 < o->co_seeds &&
		    now() - last >= 1)) {
			last = now();
			fprintf(stderr, "CilkSim: seed %llu done (%u/%u)\n",
			    (unsigned long long)sp.sp_seed, i + 1,
			    o->co_seeds);
		}
	}
	t0 = now() - t0;
	if (rec != NULL)
		write_outputs(o, rec);
	mq = sim_median(qv, o->co_seeds);
	me = sim_median(ev, o->co_seeds);
	if (o->co_json)
		print_json(o, res, mq, me);
	else
		print_text(o, res, mq, me, t0);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "stdout");
	cs_rec_free(rec);
	free(ev);
	free(qv);
	free(res);
}
