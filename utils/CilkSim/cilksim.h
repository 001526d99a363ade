/* cilksim — the parts of CilkSim(1): options, runs, grid, plot. */
#ifndef CILKSIM_H
#define CILKSIM_H

#include <stdint.h>
#include <stdio.h>

#include "sim.h"

struct cs_opts {
	struct sim_params co_sp;	/* P, J, rule, init, limits, seed */
	uint32_t	 co_seeds;	/* runs: seeds co_sp.sp_seed + 0.. */
	int		 co_seeds_set;
	int		 co_json;
	int		 co_grid;
	int		 co_verbose;
	const char	*co_trace;	/* CSV of the first run, or NULL */
	const char	*co_plot;	/* SVG of the first run, or NULL */
	double		*co_weights;	/* --weights, J entries, or NULL */
	uint32_t	*co_caps;	/* --caps, J entries, or NULL */
	const char	*co_slots_arg;	/* --slots as given, or NULL */
	struct sim_slots co_slots[SIM_SLOT_KINDS_MAX];
};

/*
 * slots.c: "1:50%,8:30%,32:20%" into out (SIM_SLOT_KINDS_MAX entries)
 * and *n; NULL, or what is wrong (a static string).
 */
const char *cs_slots_parse(const char *, struct sim_slots *out,
	    uint32_t *n);

/* runs.c: the seeds of one (P, J); prints the summary or JSON. */
void	cs_runs(const struct cs_opts *);
/* grid.c: the thesis fig. 4-2 experiment. */
void	cs_grid(const struct cs_opts *);

/* plot.c: a recording of one run, written as CSV and SVG. */
struct cs_rec;

struct cs_rec *cs_rec_new(size_t njobs);
void	cs_rec_free(struct cs_rec *);
/* An observer for sim_run(); err()s out of memory. */
void	cs_rec_observe(void *, uint32_t, const uint32_t *, size_t);
/* quantum,job,count with a header line; -1 on a write error. */
int	cs_rec_csv(const struct cs_rec *, FILE *);
/* Node count of every job against the quantum; -1 on a write error. */
int	cs_rec_svg(const struct cs_rec *, const struct cs_opts *, FILE *);

/* JSON: a quantum count, or null for never (-1). */
void	cs_json_quanta(FILE *, double);

#endif
