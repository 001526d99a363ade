/* xCilkNodeInfo: the model — colours, history pages, the tiles' grid. */
#include <math.h>
#include <string.h>

#include "xnode.h"

/*
 * Colours a person tells apart at a glance, also in small tiles:
 * the owner's red, idle green, a guest's blue, stopping orange, frozen
 * purple, fetching a job light blue; grey where nothing answered.
 * xCilkNodeInfo(1) lists them; the tests look for them in pixels.
 */
struct xn_rgb
xn_state_rgb(enum proto_node_state s)
{
	switch (s) {
	case PROTO_NS_BUSY:
		return (struct xn_rgb){ 0xd0 / 255.0, 0x40 / 255.0,
		    0x40 / 255.0 };
	case PROTO_NS_IDLE:
		return (struct xn_rgb){ 0x40 / 255.0, 0xb0 / 255.0,
		    0x50 / 255.0 };
	case PROTO_NS_RUNNING:
		return (struct xn_rgb){ 0x30 / 255.0, 0x60 / 255.0,
		    0xd0 / 255.0 };
	case PROTO_NS_SWITCHING:
		return (struct xn_rgb){ 0x60 / 255.0, 0xc0 / 255.0,
		    0xe0 / 255.0 };
	case PROTO_NS_STOPPING:
		return (struct xn_rgb){ 0xf0 / 255.0, 0xa0 / 255.0,
		    0x30 / 255.0 };
	case PROTO_NS_SUSPENDED:
		return (struct xn_rgb){ 0x90 / 255.0, 0x50 / 255.0,
		    0xb0 / 255.0 };
	case PROTO_NS_DRAIN:
		return (struct xn_rgb){ 0xa0 / 255.0, 0xa0 / 255.0,
		    0x40 / 255.0 };
	case PROTO_NS_DRAINED:
		return (struct xn_rgb){ 0x70 / 255.0, 0x70 / 255.0,
		    0x30 / 255.0 };
	case PROTO_NS_DOWN:
		return (struct xn_rgb){ 0x50 / 255.0, 0x50 / 255.0,
		    0x50 / 255.0 };
	default:
		return (struct xn_rgb){ 0x90 / 255.0, 0x90 / 255.0,
		    0x90 / 255.0 };
	}
}

const enum proto_node_state xn_legend[] = { PROTO_NS_BUSY, PROTO_NS_IDLE,
	PROTO_NS_RUNNING, PROTO_NS_SWITCHING, PROTO_NS_STOPPING,
	PROTO_NS_SUSPENDED, PROTO_NS_DRAIN, PROTO_NS_DRAINED, PROTO_NS_DOWN,
	PROTO_NS_UNDEF };
const int xn_nlegend = sizeof(xn_legend) / sizeof(xn_legend[0]);

const char *
xn_state_label(enum proto_node_state s)
{
	switch (s) {
	case PROTO_NS_BUSY:
		return "busy (owner)";
	case PROTO_NS_RUNNING:
		return "running job";
	case PROTO_NS_UNDEF:
		return "no answer";
	default:
		return proto_state_name(s);
	}
}

void
xn_node_reset(struct xn_node *n)
{
	n->xn_boot = 0;
	n->xn_since = n->xn_last = n->xn_n = 0;
}

int
xn_node_merge(struct xn_node *n, const struct proto_hist *h)
{
	uint16_t i;
	uint32_t drop;

	/* Another start of the node manager: its numbers begin again. */
	if (h->hi_boot != n->xn_boot || h->hi_last < n->xn_since) {
		xn_node_reset(n);
		n->xn_boot = h->hi_boot;
	}
	n->xn_now_ms = h->hi_now_ms;
	n->xn_last = h->hi_last;
	for (i = 0; i < h->hi_n; i++) {
		if (h->hi_s[i].hs_seq <= n->xn_since)
			continue;	/* a page that came twice */
		if (n->xn_n == PROTO_HIST_KEEP) {
			drop = PROTO_HIST_KEEP / 8;
			memmove(n->xn_s, n->xn_s + drop,
			    (n->xn_n - drop) * sizeof(n->xn_s[0]));
			n->xn_n -= drop;
		}
		n->xn_s[n->xn_n++] = h->hi_s[i];
		n->xn_since = h->hi_s[i].hs_seq;
	}
	return h->hi_n > 0 && n->xn_since < h->hi_last;
}

/*
 * The most square tiles that fit: columns in proportion to the area's
 * shape, then the rows they need.
 */
void
xn_grid_layout(struct xn_grid *g, int n, double w, double h)
{
	double top = XN_TOP, bottom = XN_LEGEND;

	memset(g, 0, sizeof(*g));
	if (n < 1)
		n = 1;
	h -= top + bottom;
	if (w < 1)
		w = 1;
	if (h < 1)
		h = 1;
	g->g_cols = (int)ceil(sqrt(n * w / h));
	if (g->g_cols > n)
		g->g_cols = n;
	if (g->g_cols < 1)
		g->g_cols = 1;
	g->g_rows = (n + g->g_cols - 1) / g->g_cols;
	g->g_tw = w / g->g_cols;
	g->g_th = h / g->g_rows;
	/* A few nodes: tiles of a readable size, not the whole window. */
	if (g->g_tw > 200)
		g->g_tw = 200;
	if (g->g_th > 100)
		g->g_th = 100;
	/* A tile much wider than tall reads badly: at most 2:1. */
	if (g->g_tw > 2 * g->g_th)
		g->g_tw = 2 * g->g_th;
	g->g_gap = g->g_tw < 20 || g->g_th < 20 ? 1 : 3;
	g->g_x0 = 0;
	g->g_y0 = top;
}

int
xn_grid_hit(const struct xn_grid *g, int n, double x, double y)
{
	int c, r, i;

	if (x < g->g_x0 || y < g->g_y0 || g->g_tw <= 0 || g->g_th <= 0)
		return -1;
	c = (int)((x - g->g_x0) / g->g_tw);
	r = (int)((y - g->g_y0) / g->g_th);
	if (c >= g->g_cols || r >= g->g_rows)
		return -1;
	i = r * g->g_cols + c;
	return i < n ? i : -1;
}

int
xn_row_silent(const struct proto_node_row *r)
{
	return r->nw_seen_ms / 1000 > XN_SILENT_S;
}
