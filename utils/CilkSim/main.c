/*
 * CilkSim — simulate the distributed fair-share scheduler quantum by
 * quantum (DESIGN.md section 5; Lisiecki 1996, chapter 4).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilksim.h"

#define CS_SEEDS_MAX	100000
#define CS_QUANTA_MAX	100000000

enum {
	OPT_SEEDS = 256,
	OPT_SEED,
	OPT_POLICY,
	OPT_MAX_QUANTA,
	OPT_INIT,
	OPT_WEIGHTS,
	OPT_CAPS,
	OPT_TRACE,
	OPT_PLOT,
	OPT_LEAVE,
	OPT_JOIN,
	OPT_JSON,
	OPT_GRID,
	OPT_FIXED_P,
	OPT_STALE,
	OPT_PEERS,
	OPT_SLOTS
};

static const struct option longopts[] = {
	{ "seeds",	required_argument,	NULL,	OPT_SEEDS },
	{ "seed",	required_argument,	NULL,	OPT_SEED },
	{ "policy",	required_argument,	NULL,	OPT_POLICY },
	{ "max-quanta",	required_argument,	NULL,	OPT_MAX_QUANTA },
	{ "init",	required_argument,	NULL,	OPT_INIT },
	{ "weights",	required_argument,	NULL,	OPT_WEIGHTS },
	{ "caps",	required_argument,	NULL,	OPT_CAPS },
	{ "trace",	required_argument,	NULL,	OPT_TRACE },
	{ "plot",	required_argument,	NULL,	OPT_PLOT },
	{ "leave-rate",	required_argument,	NULL,	OPT_LEAVE },
	{ "join-rate",	required_argument,	NULL,	OPT_JOIN },
	{ "json",	no_argument,		NULL,	OPT_JSON },
	{ "grid",	no_argument,		NULL,	OPT_GRID },
	{ "fixed-p",	required_argument,	NULL,	OPT_FIXED_P },
	{ "stale",	required_argument,	NULL,	OPT_STALE },
	{ "peers",	required_argument,	NULL,	OPT_PEERS },
	{ "slots",	required_argument,	NULL,	OPT_SLOTS },
	{ "help",	no_argument,		NULL,	'h' },
	{ "version",	no_argument,		NULL,	'V' },
	{ NULL,		0,			NULL,	0 }
};

static void
print_usage(FILE *fp)
{
	fprintf(fp,
	    "usage: CilkSim -P procs -J jobs [--seeds n] [--seed s]\n"
	    "               [--policy thesis|naive|fixed|improved|targeted]\n"
	    "               [--max-quanta q] [--init one|spread|endgame]\n"
	    "               [--weights w1,w2,...] [--caps c1,c2,...]\n"
	    "               [--trace file.csv] [--plot file.svg]\n"
	    "               [--leave-rate r] [--join-rate r]\n"
	    "               [--fixed-p p|auto] [--stale f] [--peers k]\n"
	    "               [--slots s1:pct1%%,s2:pct2%%,...] [--json] [-v]\n"
	    "       CilkSim --grid [--seeds n] [--policy ...] [--slots ...]\n"
	    "               [--json]\n"
	    "       CilkSim -h | -V\n");
}

static void __attribute__((noreturn))
usage(void)
{
	print_usage(stderr);
	exit(2);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarnx(fmt, ap);
	va_end(ap);
	usage();
}

static long long
number(const char *opt, const char *s, long long min, long long max)
{
	const char *errstr;
	long long v;

	v = strtonum(s, min, max, &errstr);
	if (errstr != NULL)
		bad("%s %s: %s (%lld..%lld)", opt, s, errstr, min, max);
	return v;
}

static double
fraction(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(v >= 0 && v <= 1))
		bad("%s %s: not a number in [0, 1]", opt, s);
	return v;
}

/* "a,b,c" with exactly n items, each through one(). */
static void
list(const char *opt, const char *s, uint32_t n, void *out,
    int (*one)(const char *, void *, size_t))
{
	char *copy, *p, *item;
	size_t i = 0;

	if ((copy = strdup(s)) == NULL)
		err(1, "strdup");
	p = copy;
	while ((item = strsep(&p, ",")) != NULL) {
		if (i == n)
			bad("%s: more than %u values (one per job)", opt, n);
		if (one(item, out, i) == -1)
			bad("%s: bad value \"%s\"", opt, item);
		i++;
	}
	if (i != n)
		bad("%s: %zu values for %u jobs", opt, i, n);
	free(copy);
}

static int
one_weight(const char *s, void *out, size_t i)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) ||
	    v <= 0 || v > 1e6)
		return -1;
	((double *)out)[i] = v;
	return 0;
}

static int
one_cap(const char *s, void *out, size_t i)
{
	const char *errstr;

	((uint32_t *)out)[i] = (uint32_t)strtonum(s, 0, SIM_PROCS_MAX,
	    &errstr);
	return errstr == NULL ? 0 : -1;
}

/* The option strings that need -J before they can be read. */
struct cs_args {
	const char	*ca_procs;
	const char	*ca_jobs;
	const char	*ca_weights;
	const char	*ca_caps;
};

static enum sim_init
init_parse(const char *s)
{
	if (strcmp(s, "one") == 0)
		return SIM_INIT_ONE;
	if (strcmp(s, "spread") == 0)
		return SIM_INIT_SPREAD;
	if (strcmp(s, "endgame") == 0)
		return SIM_INIT_ENDGAME;
	bad("--init %s: not one, spread or endgame", s);
}

/* --slots: the share of the nodes that lend each number of processors. */
static void
slots(struct cs_opts *o, const char *s)
{
	const char *why;

	if ((why = cs_slots_parse(s, o->co_slots,
	    &o->co_sp.sp_nslots)) != NULL)
		bad("--slots %s: %s", s, why);
	o->co_sp.sp_slots = o->co_slots;
	o->co_slots_arg = s;
}

static void
parse(int argc, char *argv[], struct cs_opts *o, struct cs_args *a)
{
	struct sim_params *sp = &o->co_sp;
	int ch;

	while ((ch = getopt_long(argc, argv, "hJ:P:vV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'P':
			a->ca_procs = optarg;
			break;
		case 'J':
			a->ca_jobs = optarg;
			break;
		case 'h':
			print_usage(stdout);
			exit(0);
		case 'v':
			o->co_verbose = 1;
			break;
		case 'V':
			printf("CilkSim %s\n", CILKNOW_VERSION);
			exit(0);
		case OPT_SEEDS:
			o->co_seeds = (uint32_t)number("--seeds", optarg, 1,
			    CS_SEEDS_MAX);
			o->co_seeds_set = 1;
			break;
		case OPT_SEED:
			sp->sp_seed = (uint64_t)number("--seed", optarg, 0,
			    LLONG_MAX);
			break;
		case OPT_POLICY:
			sp->sp_rule.ru_policy = sched_policy_parse(optarg);
			if (sp->sp_rule.ru_policy == SCHED_P_UNDEF)
				bad("--policy %s: not thesis, naive, fixed, "
				    "improved or targeted", optarg);
			break;
		case OPT_MAX_QUANTA:
			sp->sp_max_quanta = (uint32_t)number("--max-quanta",
			    optarg, 0, CS_QUANTA_MAX);
			break;
		case OPT_INIT:
			sp->sp_init = init_parse(optarg);
			break;
		case OPT_WEIGHTS:
			a->ca_weights = optarg;
			break;
		case OPT_CAPS:
			a->ca_caps = optarg;
			break;
		case OPT_TRACE:
			o->co_trace = optarg;
			break;
		case OPT_PLOT:
			o->co_plot = optarg;
			break;
		case OPT_LEAVE:
			sp->sp_leave_rate = fraction("--leave-rate", optarg);
			break;
		case OPT_JOIN:
			sp->sp_join_rate = fraction("--join-rate", optarg);
			break;
		case OPT_JSON:
			o->co_json = 1;
			break;
		case OPT_GRID:
			o->co_grid = 1;
			break;
		case OPT_FIXED_P:
			if (strcmp(optarg, "auto") == 0)
				sp->sp_rule.ru_fixed_p = SIM_FIXED_AUTO;
			else
				sp->sp_rule.ru_fixed_p = fraction("--fixed-p",
				    optarg);
			break;
		case OPT_STALE:
			sp->sp_stale = fraction("--stale", optarg);
			break;
		case OPT_PEERS:
			sp->sp_peers = (uint32_t)number("--peers", optarg, 0,
			    SIM_PEERS_MAX);
			break;
		case OPT_SLOTS:
			slots(o, optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		bad("unexpected argument \"%s\"", argv[optind]);
}

static void
check_grid(const struct cs_opts *o, const struct cs_args *a)
{
	const struct sim_params *sp = &o->co_sp;

	if (a->ca_procs != NULL || a->ca_jobs != NULL ||
	    a->ca_weights != NULL || a->ca_caps != NULL ||
	    o->co_trace != NULL || o->co_plot != NULL ||
	    sp->sp_leave_rate > 0 || sp->sp_join_rate > 0)
		bad("--grid chooses P and J itself and takes no -P, -J, "
		    "--weights, --caps, --trace, --plot or churn");
	if (sp->sp_init == SIM_INIT_ENDGAME)
		bad("--grid does not take --init endgame");
}

/* -P, -J, then the per-job lists (freed by main). */
static void
check_run(struct cs_opts *o, const struct cs_args *a)
{
	struct sim_params *sp = &o->co_sp;
	struct sim *sm;
	double *wv;
	uint32_t *cv, j;
	uint64_t capsum = 0;

	if (a->ca_procs == NULL || a->ca_jobs == NULL)
		bad("-P and -J are required");
	sp->sp_procs = (uint32_t)number("-P", a->ca_procs, 1, SIM_PROCS_MAX);
	sp->sp_jobs = (uint32_t)number("-J", a->ca_jobs, 1, sp->sp_procs);
	if (a->ca_weights != NULL) {
		if ((wv = calloc(sp->sp_jobs, sizeof(*wv))) == NULL)
			err(1, "calloc");
		list("--weights", a->ca_weights, sp->sp_jobs, wv, one_weight);
		sp->sp_weights = o->co_weights = wv;
	}
	if (a->ca_caps != NULL) {
		if ((cv = calloc(sp->sp_jobs, sizeof(*cv))) == NULL)
			err(1, "calloc");
		list("--caps", a->ca_caps, sp->sp_jobs, cv, one_cap);
		for (j = 0; j < sp->sp_jobs && capsum != UINT64_MAX; j++)
			capsum = cv[j] == 0 ? UINT64_MAX : capsum + cv[j];
		if (capsum < sp->sp_procs)
			bad("--caps: the caps sum to %llu, fewer than the "
			    "%u processors", (unsigned long long)capsum,
			    sp->sp_procs);
		sp->sp_caps = o->co_caps = cv;
	}
	if (sp->sp_init == SIM_INIT_ENDGAME) {
		if ((sm = sim_new(sp)) == NULL && errno == ENOMEM)
			err(1, "simulation");
		if (sm == NULL)
			bad("--init endgame needs J >= 2 and a fair share "
			    "of at least 2 for job 2");
		sim_free(sm);
	}
}

int
main(int argc, char *argv[])
{
	struct cs_opts o;
	struct cs_args a;

	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	sim_params_init(&o.co_sp, 0, 0);
	o.co_seeds = 1;
	parse(argc, argv, &o, &a);
	if (o.co_grid) {
		check_grid(&o, &a);
		cs_grid(&o);
	} else {
		check_run(&o, &a);
		cs_runs(&o);
	}
	free(o.co_caps);
	free(o.co_weights);
	return 0;
}
