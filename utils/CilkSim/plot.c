/*
 * plot — records one run's counts and writes them as CSV (--trace) and as
 * a self-contained SVG line chart like the thesis's figure 4-1 (--plot).
 */
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilksim.h"

#define SVG_W		900
#define SVG_H		560
#define SVG_L		80	/* margins */
#define SVG_R		30
#define SVG_T		50
#define SVG_B		60
#define SVG_SHARES_MAX	8	/* distinct fair shares drawn */

struct cs_rec {
	size_t		 rc_njobs;
	uint32_t	 rc_nq;		/* quanta recorded: 0..rc_nq-1 */
	uint32_t	 rc_cap;
	uint32_t	*rc_counts;	/* rc_nq rows of rc_njobs */
};

struct cs_rec *
cs_rec_new(size_t njobs)
{
	struct cs_rec *rc;

	if ((rc = calloc(1, sizeof(*rc))) == NULL)
		return NULL;
	rc->rc_njobs = njobs;
	return rc;
}

void
cs_rec_free(struct cs_rec *rc)
{
	if (rc == NULL)
		return;
	free(rc->rc_counts);
	free(rc);
}

void
cs_rec_observe(void *arg, uint32_t q, const uint32_t *counts, size_t njobs)
{
	struct cs_rec *rc = arg;
	uint32_t *p;
	uint32_t ncap;

	if (q != rc->rc_nq || njobs != rc->rc_njobs)
		errx(1, "recording: quantum %u out of order", q);
	if (rc->rc_nq == rc->rc_cap) {
		ncap = rc->rc_cap ? rc->rc_cap * 2 : 64;
		p = reallocarray(rc->rc_counts, (size_t)ncap * njobs,
		    sizeof(*p));
		if (p == NULL)
			err(1, "recording");
		rc->rc_counts = p;
		rc->rc_cap = ncap;
	}
	memcpy(rc->rc_counts + (size_t)rc->rc_nq * njobs, counts,
	    njobs * sizeof(*counts));
	rc->rc_nq++;
}

int
cs_rec_csv(const struct cs_rec *rc, FILE *fp)
{
	uint32_t q;
	size_t j;

	fprintf(fp, "quantum,job,count\n");
	for (q = 0; q < rc->rc_nq; q++)
		for (j = 0; j < rc->rc_njobs; j++)
			fprintf(fp, "%u,%zu,%u\n", q, j + 1,
			    rc->rc_counts[(size_t)q * rc->rc_njobs + j]);
	return ferror(fp) ? -1 : 0;
}

struct axis {
	double	ax_lo, ax_hi;	/* data range */
	double	ax_p0, ax_p1;	/* pixels */
	int	ax_log;
};

static double
axis_map(const struct axis *ax, double v)
{
	double f;

	if (ax->ax_log) {
		v = v < ax->ax_lo ? ax->ax_lo : v;	/* 0 on the axis */
		f = (log10(v) - log10(ax->ax_lo)) /
		    (log10(ax->ax_hi) - log10(ax->ax_lo));
	} else
		f = (v - ax->ax_lo) / (ax->ax_hi - ax->ax_lo);
	return ax->ax_p0 + f * (ax->ax_p1 - ax->ax_p0);
}

/* A tick step of 1, 2 or 5 times a power of ten, about n ticks. */
static double
nice_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;

	if (m < 1.5)
		return p;
	if (m < 3.5)
		return 2 * p;
	if (m < 7.5)
		return 5 * p;
	return 10 * p;
}

/* Job j's colour: hues spread around the wheel (HSL), as #rrggbb. */
static void
job_colour(size_t j, size_t n, char *buf, size_t len)
{
	double h = 6.0 * (double)j / (double)n, s = 0.7, l = 0.42;
	double c = (1 - fabs(2 * l - 1)) * s;
	double x = c * (1 - fabs(fmod(h, 2) - 1)), m = l - c / 2;
	double rgb[3];
	/* Which of r, g, b get c and x in each sixth of the wheel. */
	static const int cpos[6] = { 0, 1, 1, 2, 2, 0 };
	static const int xpos[6] = { 1, 0, 2, 1, 0, 2 };
	int sixth = (int)h;

	if (sixth > 5)
		sixth = 5;
	rgb[0] = rgb[1] = rgb[2] = 0;
	rgb[cpos[sixth]] = c;
	rgb[xpos[sixth]] = x;
	snprintf(buf, len, "#%02x%02x%02x", (int)lround((rgb[0] + m) * 255),
	    (int)lround((rgb[1] + m) * 255), (int)lround((rgb[2] + m) * 255));
}

static void
svg_axes(FILE *fp, const struct axis *x, const struct axis *y)
{
	double v, step, decade;

	fprintf(fp, "<g stroke=\"#000\" stroke-width=\"1\">\n"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n"
	    "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n</g>\n",
	    SVG_L, SVG_H - SVG_B, SVG_W - SVG_R, SVG_H - SVG_B,
	    SVG_L, SVG_T, SVG_L, SVG_H - SVG_B);
	fprintf(fp, "<g font-family=\"sans-serif\" font-size=\"12\">\n");
	step = nice_step(x->ax_hi - x->ax_lo, 10);
	if (step < 1)
		step = 1;
	for (v = 0; v <= x->ax_hi + 1e-9; v += step)
		fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
		    "y2=\"%d\" stroke=\"#000\"/><text x=\"%.1f\" y=\"%d\" "
		    "text-anchor=\"middle\">%g</text>\n", axis_map(x, v),
		    SVG_H - SVG_B, axis_map(x, v), SVG_H - SVG_B + 5,
		    axis_map(x, v), SVG_H - SVG_B + 20, v);
	if (y->ax_log) {
		for (decade = 1; decade <= y->ax_hi * 1.0001; decade *= 10)
			fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			    "y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" "
			    "y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			    SVG_L, axis_map(y, decade), SVG_W - SVG_R,
			    axis_map(y, decade), SVG_L - 6,
			    axis_map(y, decade) + 4, decade);
	} else {
		step = nice_step(y->ax_hi - y->ax_lo, 8);
		if (step < 1)
			step = 1;
		for (v = 0; v <= y->ax_hi + 1e-9; v += step)
			fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
			    "y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" "
			    "y=\"%.1f\" text-anchor=\"end\">%g</text>\n",
			    SVG_L, axis_map(y, v), SVG_W - SVG_R,
			    axis_map(y, v), SVG_L - 6, axis_map(y, v) + 4, v);
	}
	fprintf(fp, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
	    "quantum</text>\n", (SVG_L + SVG_W - SVG_R) / 2, SVG_H - 15);
	fprintf(fp, "<text x=\"20\" y=\"%d\" text-anchor=\"middle\" "
	    "transform=\"rotate(-90 20 %d)\">nodes%s</text>\n</g>\n",
	    (SVG_T + SVG_H - SVG_B) / 2, (SVG_T + SVG_H - SVG_B) / 2,
	    y->ax_log ? " (log scale)" : "");
}

/* Dashed lines at the fair shares (at most SVG_SHARES_MAX distinct). */
static void
svg_shares(FILE *fp, const struct cs_opts *o, const struct axis *y)
{
	const struct sim_params *sp = &o->co_sp;
	double *sh, seen[SVG_SHARES_MAX];
	size_t j, k, nseen = 0;

	if (sp->sp_leave_rate > 0 || sp->sp_join_rate > 0)
		return;		/* the shares move with the nodes */
	if ((sh = calloc(sp->sp_jobs, sizeof(*sh))) == NULL)
		err(1, "calloc");
	if (sched_fair_shares(sp->sp_procs, sp->sp_jobs, sp->sp_weights,
	    sp->sp_caps, sh) == -1)
		err(1, "fair shares");
	for (j = 0; j < sp->sp_jobs && nseen < SVG_SHARES_MAX; j++) {
		for (k = 0; k < nseen; k++)
			if (fabs(seen[k] - sh[j]) < 1e-9)
				break;
		if (k < nseen)
			continue;
		seen[nseen++] = sh[j];
		fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
		    "stroke=\"#000\" stroke-dasharray=\"6,4\"/>\n", SVG_L,
		    axis_map(y, sh[j]), SVG_W - SVG_R, axis_map(y, sh[j]));
	}
	free(sh);
}

int
cs_rec_svg(const struct cs_rec *rc, const struct cs_opts *o, FILE *fp)
{
	const struct sim_params *sp = &o->co_sp;
	struct axis x, y;
	uint32_t q, c, cmax = 1, cmin = UINT32_MAX;
	size_t i, j, nj = rc->rc_njobs;
	char colour[16];

	for (i = 0; i < (size_t)rc->rc_nq * nj; i++) {
		c = rc->rc_counts[i];
		cmax = c > cmax ? c : cmax;
		cmin = c > 0 && c < cmin ? c : cmin;
	}
	x.ax_lo = 0;
	x.ax_hi = rc->rc_nq > 1 ? rc->rc_nq - 1 : 1;
	x.ax_p0 = SVG_L;
	x.ax_p1 = SVG_W - SVG_R;
	x.ax_log = 0;
	y.ax_log = cmin != UINT32_MAX && cmax >= 20.0 * cmin;
	y.ax_lo = y.ax_log ? 0.8 : 0;
	y.ax_hi = y.ax_log ? pow(10, ceil(log10(cmax * 1.05))) : cmax * 1.1;
	y.ax_p0 = SVG_H - SVG_B;
	y.ax_p1 = SVG_T;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	    "height=\"%d\" viewBox=\"0 0 %d %d\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
	    SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(fp, "<text x=\"%d\" y=\"28\" font-family=\"sans-serif\" "
	    "font-size=\"15\" text-anchor=\"middle\">CilkSim: %u processors, "
	    "%u jobs, policy %s, seed %llu (dashed: fair share)</text>\n",
	    SVG_W / 2, sp->sp_procs, sp->sp_jobs,
	    sched_policy_name(sp->sp_rule.ru_policy),
	    (unsigned long long)sp->sp_seed);
	svg_axes(fp, &x, &y);
	fprintf(fp, "<g fill=\"none\" stroke-width=\"1.2\" "
	    "stroke-opacity=\"0.8\">\n");
	for (j = 0; j < nj; j++) {
		job_colour(j, nj, colour, sizeof(colour));
		fprintf(fp, "<polyline stroke=\"%s\" points=\"", colour);
		for (q = 0; q < rc->rc_nq; q++)
			fprintf(fp, "%s%.1f,%.1f", q ? " " : "",
			    axis_map(&x, q),
			    axis_map(&y, rc->rc_counts[(size_t)q * nj + j]));
		fprintf(fp, "\"/>\n");
	}
	fprintf(fp, "</g>\n");
	svg_shares(fp, o, &y);
	fprintf(fp, "</svg>\n");
	return ferror(fp) ? -1 : 0;
}
