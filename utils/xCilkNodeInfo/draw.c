/*
 * xCilkNodeInfo: the pictures, drawn with cairo into whatever surface
 * the caller has (a window, an image for --png).  Everything is placed
 * from the picture's size alone, so a test knows where to look.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "brokerq.h"
#include "mono.h"
#include "xnode.h"

#define FONT		"DejaVu Sans"
#define GAP_MS		(3000ull * PROTO_HIST_PERIOD)	/* no sample: down */

static void
rgb(cairo_t *cr, struct xn_rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

static void
grey(cairo_t *cr, double v)
{
	cairo_set_source_rgb(cr, v, v, v);
}

static void
font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL,
	    bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, size);
}

/* Text from the network is made safe first: no control characters. */
static void
text(cairo_t *cr, double x, double y, const char *s)
{
	char safe[512];

	brokerq_safe(safe, sizeof(safe), s);
	cairo_move_to(cr, x, y);
	cairo_show_text(cr, safe);
}

static double
text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	return e.x_advance;
}

/*
 * A filled box with its edges on whole pixels: boxes side by side tile
 * without seams or blended stripes, and a pixel has one state's colour.
 */
static void
box(cairo_t *cr, double x, double y, double w, double h)
{
	double x0 = floor(x + 0.5), y0 = floor(y + 0.5);
	double x1 = floor(x + w + 0.5), y1 = floor(y + h + 0.5);

	if (x1 <= x0 || y1 <= y0)
		return;
	cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
	cairo_fill(cr);
}

/* Swatches and names of every colour, along the bottom. */
static void
legend(cairo_t *cr, double w, double h)
{
	double x = 8, y = h - XN_LEGEND + 6, need = 8, gap = 14;
	int i, size = 11;

	grey(cr, 0.94);
	box(cr, 0, h - XN_LEGEND, w, XN_LEGEND);
	/* Every swatch in the width: smaller names where they would not. */
	for (; size >= 7; size--, gap = 6) {
		font(cr, size, 0);
		for (i = 0, need = 8; i < xn_nlegend; i++)
			need += 18 + text_width(cr,
			    xn_state_label(xn_legend[i])) + gap;
		if (need <= w)
			break;
	}
	for (i = 0; i < xn_nlegend; i++) {
		rgb(cr, xn_state_rgb(xn_legend[i]));
		box(cr, x, y, 14, 14);
		grey(cr, 0.1);
		text(cr, x + 18, y + 11, xn_state_label(xn_legend[i]));
		x += 18 + text_width(cr, xn_state_label(xn_legend[i])) + gap;
	}
}

static void
clock_text(uint64_t ms, char *buf, size_t bufsz)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, bufsz, "%H:%M:%S", &tm) == 0)
		snprintf(buf, bufsz, "?");
}

/* ---- the cluster ---------------------------------------------------- */

static void
tile(cairo_t *cr, const struct xn_grid *g, int i,
    const struct proto_node_row *r, int stale)
{
	double x = g->g_x0 + (i % g->g_cols) * g->g_tw;
	double y = g->g_y0 + (i / g->g_cols) * g->g_th;
	double tw = g->g_tw - g->g_gap, th = g->g_th - g->g_gap, load;
	enum proto_node_state s = stale || xn_row_silent(r) ? PROTO_NS_UNDEF :
	    (enum proto_node_state)r->nw_state;
	char host[PROTO_HOST_MAX + 1], line[64];

	rgb(cr, xn_state_rgb(s));
	box(cr, x, y, tw, th);
	/* The owner's load as a white bar along the bottom, full at 1. */
	load = r->nw_load_milli / 1000.0;
	if (th >= 8) {
		cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
		box(cr, x + 2, y + th - 5, (tw - 4) * (load > 1 ? 1 : load),
		    3);
	}
	if (tw < 64 || th < 34)
		return;		/* colour only: a thousand nodes */
	cairo_save(cr);
	cairo_rectangle(cr, x, y, tw, th);
	cairo_clip(cr);
	grey(cr, 1);
	font(cr, th >= 50 ? 12 : 10, 1);
	if (r->nw_host[0] != '\0')
		brokerq_safe(host, sizeof(host), r->nw_host);
	else
		brokerq_host(&r->nw_addr, host, sizeof(host));
	text(cr, x + 4, y + (th >= 50 ? 15 : 12), host);
	font(cr, th >= 50 ? 11 : 9, 0);
	if (s == PROTO_NS_UNDEF)
		snprintf(line, sizeof(line), "no answer %us",
		    r->nw_seen_ms / 1000);
	else if (r->nw_njobs > 1)
		snprintf(line, sizeof(line), "jobs %u,%u%s", r->nw_jobs[0],
		    r->nw_jobs[1], r->nw_njobs > 2 ? ",..." : "");
	else if (r->nw_njobs == 1 || r->nw_job != 0)
		snprintf(line, sizeof(line), "job %u", r->nw_njobs == 1 ?
		    r->nw_jobs[0] : r->nw_job);
	else
		snprintf(line, sizeof(line), "%s", proto_state_name(s));
	text(cr, x + 4, y + (th >= 50 ? 30 : 23), line);
	if (th >= 50) {
		/* Processors: workers running / lent / all (CilkNodes). */
		snprintf(line, sizeof(line), "load %.2f  %u/%u/%u", load,
		    r->nw_running, r->nw_lent, r->nw_total);
		text(cr, x + 4, y + 44, line);
	}
	cairo_restore(cr);
}

void
xn_draw_cluster(cairo_t *cr, double w, double h, const struct xn_cluster *c,
    double now)
{
	struct xn_grid g;
	uint32_t i, count[PROTO_NS_MAX], silent = 0;
	char title[512];
	size_t n;
	int stale = c->xc_status == XN_SILENT;

	grey(cr, 1);
	cairo_paint(cr);
	memset(count, 0, sizeof(count));
	for (i = 0; i < c->xc_n; i++) {
		if (stale || xn_row_silent(&c->xc_rows[i]))
			silent++;
		else if (c->xc_rows[i].nw_state < PROTO_NS_MAX)
			count[c->xc_rows[i].nw_state]++;
	}
	n = (size_t)snprintf(title, sizeof(title), "%u node%s: %u busy, "
	    "%u idle, %u running", c->xc_n, c->xc_n == 1 ? "" : "s",
	    count[PROTO_NS_BUSY], count[PROTO_NS_IDLE],
	    count[PROTO_NS_RUNNING] + count[PROTO_NS_SWITCHING]);
	if (silent > 0 && n < sizeof(title))
		snprintf(title + n, sizeof(title) - n, ", %u not answering",
		    silent);
	grey(cr, 0.1);
	font(cr, 15, 1);
	text(cr, 8, 22, title);
	font(cr, 11, 0);
	switch (c->xc_status) {
	case XN_WAITING:
		snprintf(title, sizeof(title), "asking the broker at %s",
		    c->xc_broker);
		break;
	case XN_SILENT:
		cairo_set_source_rgb(cr, 0.75, 0, 0);
		snprintf(title, sizeof(title), "the broker at %s is not "
		    "answering (%.0f s)", c->xc_broker, c->xc_answered > 0 ?
		    now - c->xc_answered : 0);
		break;
	case XN_REFUSED:
		cairo_set_source_rgb(cr, 0.75, 0, 0);
		snprintf(title, sizeof(title), "the broker at %s refused: %s",
		    c->xc_broker, c->xc_why);
		break;
	default:
		snprintf(title, sizeof(title), "broker %s", c->xc_broker);
		break;
	}
	text(cr, w - 8 - text_width(cr, title), 22, title);
	xn_grid_layout(&g, (int)c->xc_n, w, h);
	for (i = 0; i < c->xc_n; i++)
		tile(cr, &g, (int)i, &c->xc_rows[i], stale);
	legend(cr, w, h);
}

/* ---- one node ------------------------------------------------------- */

struct span {
	double	x0, w;		/* the band: where the hour is drawn */
	uint64_t now_ms;	/* the node's clock now */
};

static double
at(const struct span *sp, uint64_t t)
{
	double ago = t >= sp->now_ms ? 0 : (double)(sp->now_ms - t);

	if (ago > XN_HOUR_MS)
		ago = XN_HOUR_MS;
	return sp->x0 + sp->w * (1 - ago / XN_HOUR_MS);
}

/*
 * Where sample i holds: from its time to the next one's, the newest to
 * now while the node answers, and never across a gap in which it took
 * no samples (it was down: that is drawn as no answer).
 */
static uint64_t
until(const struct xn_node *n, uint32_t i, uint64_t now_ms, uint64_t heard_ms)
{
	uint64_t t = n->xn_s[i].hs_time_ms, end;

	end = i + 1 < n->xn_n ? n->xn_s[i + 1].hs_time_ms :
	    n->xn_status == XN_OK ? now_ms : heard_ms;
	if (end > t + GAP_MS && (i + 1 < n->xn_n || n->xn_status != XN_OK))
		end = t + GAP_MS;
	return end < t ? t : end;
}

static void
band(cairo_t *cr, const struct span *sp, const struct xn_node *n,
    uint64_t heard_ms)
{
	const struct proto_hist_sample *s;
	double x0, x1, y = XN_BAND_Y;
	uint64_t from, to;
	uint32_t i, j;
	char label[96];

	grey(cr, 0.93);
	box(cr, sp->x0, y, sp->w, XN_BAND_H);
	/* No answer: grey from the last word heard to now. */
	if (n->xn_status != XN_OK && n->xn_status != XN_WAITING) {
		rgb(cr, xn_state_rgb(PROTO_NS_UNDEF));
		x0 = n->xn_n > 0 ? at(sp, heard_ms) : sp->x0;
		box(cr, x0, y, sp->x0 + sp->w - x0, XN_BAND_H);
	}
	for (i = 0; i < n->xn_n; i++) {
		s = &n->xn_s[i];
		to = until(n, i, sp->now_ms, heard_ms);
		x0 = at(sp, s->hs_time_ms);
		x1 = at(sp, to);
		if (x1 <= x0)
			continue;
		rgb(cr, xn_state_rgb((enum proto_node_state)s->hs_state));
		/* Overlap by a pixel: no hairlines between samples. */
		box(cr, x0, y, x1 - x0, XN_BAND_H);
		if (i + 1 < n->xn_n && to < n->xn_s[i + 1].hs_time_ms) {
			rgb(cr, xn_state_rgb(PROTO_NS_UNDEF));
			box(cr, x1, y, at(sp, n->xn_s[i + 1].hs_time_ms) - x1,
			    XN_BAND_H);
		}
	}
	/* Each run of one job, named where there is room. */
	font(cr, 11, 1);
	for (i = 0; i < n->xn_n; i = j) {
		for (j = i + 1; j < n->xn_n && n->xn_s[j].hs_job ==
		    n->xn_s[i].hs_job; j++)
			;
		if (n->xn_s[i].hs_job == 0)
			continue;
		from = n->xn_s[i].hs_time_ms;
		to = until(n, j - 1, sp->now_ms, heard_ms);
		x0 = at(sp, from);
		x1 = at(sp, to);
		snprintf(label, sizeof(label), "job %u %s", n->xn_s[i].hs_job,
		    n->xn_s[i].hs_job_user);
		if (x1 - x0 < text_width(cr, label) + 8)
			snprintf(label, sizeof(label), "%u", n->xn_s[i].hs_job);
		if (x1 - x0 < text_width(cr, label) + 4)
			continue;
		grey(cr, 1);
		text(cr, x0 + 3, y + XN_BAND_H / 2 + 4, label);
	}
}

static void
ticks(cairo_t *cr, const struct span *sp, double y)
{
	static const char *const names[] = { "-60 min", "-45", "-30", "-15",
	    "now" };
	double x;
	int i;

	font(cr, 10, 0);
	for (i = 0; i <= 4; i++) {
		x = sp->x0 + sp->w * i / 4;
		grey(cr, 0.6);
		box(cr, x - 0.5, y, 1, 4);
		grey(cr, 0.3);
		text(cr, i == 4 ? x - text_width(cr, names[i]) :
		    i == 0 ? x : x - text_width(cr, names[i]) / 2, y + 14,
		    names[i]);
	}
}

/* The owner's load (red) with the guests' (blue) on top of it. */
static void
loads(cairo_t *cr, const struct span *sp, const struct xn_node *n,
    uint64_t heard_ms, double y, double h)
{
	const struct proto_hist_sample *s;
	double top = 1, v, x0, x1, own, guest;
	char label[32];
	uint32_t i;

	for (i = 0; i < n->xn_n; i++) {
		v = (n->xn_s[i].hs_owner_milli + n->xn_s[i].hs_guest_milli) /
		    1000.0;
		if (v > top)
			top = ceil(v);
	}
	grey(cr, 0.97);
	box(cr, sp->x0, y, sp->w, h);
	for (i = 0; i < n->xn_n; i++) {
		s = &n->xn_s[i];
		x0 = at(sp, s->hs_time_ms);
		x1 = at(sp, until(n, i, sp->now_ms, heard_ms));
		if (x1 <= x0)
			continue;
		own = h * (s->hs_owner_milli / 1000.0) / top;
		guest = h * (s->hs_guest_milli / 1000.0) / top;
		if (own > h)
			own = h;
		if (own + guest > h)
			guest = h - own;
		rgb(cr, xn_state_rgb(PROTO_NS_BUSY));
		box(cr, x0, y + h - own, x1 - x0, own);
		rgb(cr, xn_state_rgb(PROTO_NS_RUNNING));
		box(cr, x0, y + h - own - guest, x1 - x0, guest);
	}
	grey(cr, 0.2);
	font(cr, 11, 0);
	text(cr, 8, y + 12, "load");
	font(cr, 9, 0);
	snprintf(label, sizeof(label), "%.0f", top);
	text(cr, sp->x0 - 4 - text_width(cr, label), y + 9, label);
	text(cr, sp->x0 - 10, y + h, "0");
	rgb(cr, xn_state_rgb(PROTO_NS_BUSY));
	text(cr, 8, y + 26, "owner");
	rgb(cr, xn_state_rgb(PROTO_NS_RUNNING));
	text(cr, 8, y + 38, "guests");
}

/* Seconds since input, up to an hour; logged-in users as a strip. */
static void
idle_users(cairo_t *cr, const struct span *sp, const struct xn_node *n,
    uint64_t heard_ms, double y, double h)
{
	const struct proto_hist_sample *s;
	double x0, x1, v;
	uint32_t i;

	grey(cr, 0.97);
	box(cr, sp->x0, y, sp->w, h);
	grey(cr, 0.93);
	box(cr, sp->x0, y + h + 6, sp->w, 10);
	for (i = 0; i < n->xn_n; i++) {
		s = &n->xn_s[i];
		x0 = at(sp, s->hs_time_ms);
		x1 = at(sp, until(n, i, sp->now_ms, heard_ms));
		if (x1 <= x0)
			continue;
		v = s->hs_idle >= 3600 ? 1 : s->hs_idle / 3600.0;
		cairo_set_source_rgb(cr, 0.15, 0.5, 0.25);
		box(cr, x0, y + h * (1 - v), x1 - x0, h * v);
		if (s->hs_users > 0) {
			grey(cr, 0.3);
			box(cr, x0, y + h + 6, x1 - x0, 10);
		}
	}
	grey(cr, 0.2);
	font(cr, 11, 0);
	text(cr, 8, y + 12, "idle");
	font(cr, 9, 0);
	text(cr, sp->x0 - 30, y + 9, "60m+");
	text(cr, sp->x0 - 10, y + h, "0");
	font(cr, 11, 0);
	text(cr, 8, y + h + 15, "users");
}

/* The jobs of the hour, and who ran them, as one line of text. */
static void
jobs_line(cairo_t *cr, const struct xn_node *n, double x, double y,
    double w)
{
	char line[1024], when[16];
	size_t len;
	uint32_t i, j;

	len = (size_t)snprintf(line, sizeof(line), "jobs this hour:");
	for (i = 0; i < n->xn_n && len < sizeof(line); i = j) {
		for (j = i + 1; j < n->xn_n && n->xn_s[j].hs_job ==
		    n->xn_s[i].hs_job; j++)
			;
		if (n->xn_s[i].hs_job == 0)
			continue;
		clock_text(n->xn_s[i].hs_time_ms, when, sizeof(when));
		len += (size_t)snprintf(line + len, sizeof(line) - len,
		    " %u (%s, from %s)", n->xn_s[i].hs_job,
		    n->xn_s[i].hs_job_user, when);
	}
	if (strcmp(line, "jobs this hour:") == 0)
		strlcat(line, " none", sizeof(line));
	cairo_save(cr);
	cairo_rectangle(cr, x, y - 12, w, 16);
	cairo_clip(cr);
	text(cr, x, y, line);
	cairo_restore(cr);
}

void
xn_draw_node(cairo_t *cr, double w, double h, const struct xn_node *n,
    double now)
{
	const struct proto_hist_sample *s = n->xn_n > 0 ?
	    &n->xn_s[n->xn_n - 1] : NULL;
	struct span sp;
	uint64_t heard_ms = n->xn_now_ms;
	double y, left;
	char line[512], when[16];

	grey(cr, 1);
	cairo_paint(cr);
	sp.x0 = XN_BAND_X;
	sp.w = w - XN_BAND_X - 16;
	/* The node's clock, moved on by what ours moved since it spoke. */
	sp.now_ms = n->xn_now_ms + (n->xn_answered > 0 && now > n->xn_answered ?
	    (uint64_t)((now - n->xn_answered) * 1000) : 0);
	if (n->xn_now_ms == 0)
		sp.now_ms = now_real_ms();

	grey(cr, 0.1);
	font(cr, 15, 1);
	text(cr, 8, 22, n->xn_host);
	left = 8 + text_width(cr, n->xn_host) + 12;
	font(cr, 12, 0);
	if (n->xn_status == XN_SILENT) {
		cairo_set_source_rgb(cr, 0.75, 0, 0);
		clock_text(heard_ms, when, sizeof(when));
		snprintf(line, sizeof(line), "not answering%s%s",
		    heard_ms > 0 ? " since " : "", heard_ms > 0 ? when : "");
	} else if (n->xn_status == XN_REFUSED)
		snprintf(line, sizeof(line), "%s", n->xn_why);
	else if (s == NULL)
		snprintf(line, sizeof(line), "asking");
	else if (s->hs_job != 0)
		snprintf(line, sizeof(line), "%s: job %u of %s, %u of %u "
		    "processors lent, %u running", proto_state_name(s->hs_state),
		    s->hs_job, s->hs_job_user, s->hs_lent, s->hs_total,
		    s->hs_running);
	else
		snprintf(line, sizeof(line), "%s, %u of %u processors lent",
		    xn_state_label((enum proto_node_state)s->hs_state),
		    s->hs_lent, s->hs_total);
	text(cr, left, 22, line);
	clock_text(sp.now_ms, when, sizeof(when));
	grey(cr, 0.3);
	text(cr, w - 8 - text_width(cr, when), 22, when);

	grey(cr, 0.2);
	font(cr, 11, 0);
	text(cr, 8, XN_BAND_Y + XN_BAND_H / 2 + 4, "state");
	band(cr, &sp, n, heard_ms);
	ticks(cr, &sp, XN_BAND_Y + XN_BAND_H);
	y = XN_BAND_Y + XN_BAND_H + 24;
	/* What is left between the ticks and the text lines: 2/3 load. */
	left = h - XN_LEGEND - 44 - y - 24;
	if (left < 60)
		left = 60;
	loads(cr, &sp, n, heard_ms, y, left * 0.6);
	y += left * 0.6 + 8;
	idle_users(cr, &sp, n, heard_ms, y, left * 0.4 - 16);
	y += left * 0.4 + 20;

	grey(cr, 0.1);
	font(cr, 11, 0);
	if (s != NULL) {
		snprintf(line, sizeof(line), "now: load %.2f owner + %.2f "
		    "guests, idle %u s, %u user%s%s%s", s->hs_owner_milli /
		    1000.0, s->hs_guest_milli / 1000.0, s->hs_idle,
		    s->hs_users, s->hs_users == 1 ? "" : "s",
		    s->hs_names[0] != '\0' ? ": " : "", s->hs_names);
		text(cr, 8, y + 14, line);
	}
	jobs_line(cr, n, 8, y + 30, w - 16);
	legend(cr, w, h);
}
