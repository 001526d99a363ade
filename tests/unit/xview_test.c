/*
 * Unit tests of xCilkNodeInfo's model and drawing (utils/xCilkNodeInfo):
 * history pages merged, the grid of tiles and clicks on it, the colours
 * at the places the man page and the integration test name, and a
 * thousand nodes drawn (the time is printed for make bench, never
 * asserted: a busy machine is no failure).
 * XVIEW_PNG=FILE keeps the silent node's picture there, XVIEW_PNG_A=FILE
 * the thousand nodes', to look at.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fontconfig/fontconfig.h>

#include "tap.h"
#include "mono.h"
#include "../../utils/xCilkNodeInfo/xnode.h"

static struct proto_hist	page;

static void
fill_page(uint64_t boot, uint32_t first, uint32_t last, uint32_t from,
    uint32_t n, uint64_t t0, uint8_t state)
{
	uint32_t i;

	memset(&page, 0, sizeof(page));
	page.hi_boot = boot;
	page.hi_first = first;
	page.hi_last = last;
	page.hi_now_ms = t0 + 5000ull * (last - 1);
	page.hi_n = (uint16_t)n;
	for (i = 0; i < n; i++) {
		page.hi_s[i].hs_seq = from + i;
		page.hi_s[i].hs_time_ms = t0 + 5000ull * (from + i - 1);
		page.hi_s[i].hs_state = state;
	}
}

static void
test_merge(void)
{
	static struct xn_node n;

	memset(&n, 0, sizeof(n));
	fill_page(7, 1, 200, 1, PROTO_HIST_PAGE, 1000000, PROTO_NS_IDLE);
	ok(xn_node_merge(&n, &page) == 1 && n.xn_n == PROTO_HIST_PAGE &&
	    n.xn_since == PROTO_HIST_PAGE, "a first page: more to come");
	fill_page(7, 1, 200, PROTO_HIST_PAGE + 1, 200 - PROTO_HIST_PAGE,
	    1000000, PROTO_NS_RUNNING);
	ok(xn_node_merge(&n, &page) == 0 && n.xn_n == 200 &&
	    n.xn_since == 200 && n.xn_s[199].hs_state == PROTO_NS_RUNNING,
	    "the second page: all of it");
	ok(xn_node_merge(&n, &page) == 0 && n.xn_n == 200, "a page that "
	    "came twice adds nothing");
	fill_page(8, 1, 3, 1, 3, 9000000, PROTO_NS_BUSY);
	ok(xn_node_merge(&n, &page) == 0 && n.xn_n == 3 && n.xn_boot == 8 &&
	    n.xn_s[0].hs_time_ms == 9000000, "a restarted node manager: "
	    "its history starts again");
	/* More than the ring keeps: the oldest go. */
	memset(&n, 0, sizeof(n));
	fill_page(9, 1, 2000, 1, PROTO_HIST_PAGE, 0, PROTO_NS_IDLE);
	while (xn_node_merge(&n, &page) == 1)
		fill_page(9, 1, 2000, n.xn_since + 1, n.xn_since +
		    PROTO_HIST_PAGE > 2000 ? 2000 - n.xn_since :
		    PROTO_HIST_PAGE, 0, PROTO_NS_IDLE);
	ok(n.xn_since == 2000 && n.xn_n <= PROTO_HIST_KEEP &&
	    n.xn_s[n.xn_n - 1].hs_seq == 2000 && n.xn_s[0].hs_seq ==
	    2000 - n.xn_n + 1, "2000 samples: the newest %u kept, in order",
	    n.xn_n);
}

static void
test_grid(void)
{
	struct xn_grid g;

	xn_grid_layout(&g, 3, 960, 640);
	ok(g.g_cols == 3 && g.g_tw == 200 && g.g_th == 100 && g.g_y0 ==
	    XN_TOP, "3 nodes in 960x640: tiles of 200x100 in a row");
	ok(xn_grid_hit(&g, 3, 450, 100) == 2 && xn_grid_hit(&g, 3, 10, 40) ==
	    0 && xn_grid_hit(&g, 3, 700, 100) == -1 &&
	    xn_grid_hit(&g, 3, 100, 10) == -1, "clicks find their tile");
	xn_grid_layout(&g, 1000, 960, 640);
	ok(g.g_cols * g.g_rows >= 1000 && g.g_cols * g.g_tw <= 960 &&
	    g.g_y0 + g.g_rows * g.g_th <= 640 - XN_LEGEND + 0.001 &&
	    g.g_tw >= 10 && g.g_th >= 10, "1000 nodes fit in 960x640 "
	    "(%dx%d tiles of %.0fx%.0f)", g.g_cols, g.g_rows, g.g_tw, g.g_th);
	ok(xn_grid_hit(&g, 1000, g.g_x0 + g.g_tw * 5.5, g.g_y0 + g.g_th *
	    2.5) == 2 * g.g_cols + 5, "a click among 1000 finds its tile");
}

/* The pixel (x, y) of an RGB24 image as 0xRRGGBB. */
static uint32_t
pixel(cairo_surface_t *s, int x, int y)
{
	const uint8_t *d = cairo_image_surface_get_data(s);

	cairo_surface_flush(s);
	return *(const uint32_t *)(const void *)(d + y *
	    cairo_image_surface_get_stride(s) + x * 4) & 0xffffff;
}

static uint32_t
hex(struct xn_rgb c)
{
	return (uint32_t)(c.r * 255 + 0.5) << 16 |
	    (uint32_t)(c.g * 255 + 0.5) << 8 | (uint32_t)(c.b * 255 + 0.5);
}

static void
test_colours(void)
{
	static const uint32_t want[] = { 0x909090, 0xd04040, 0x40b050,
	    0x3060d0, 0x60c0e0, 0xf0a030, 0x9050b0, 0xa0a040, 0x707030,
	    0x505050 };
	int s, same = 0;

	_Static_assert(sizeof(want) / sizeof(want[0]) == PROTO_NS_MAX,
	    "a colour for every state");
	for (s = 0; s < PROTO_NS_MAX; s++)
		if (hex(xn_state_rgb((enum proto_node_state)s)) != want[s])
			break;
	ok(s == PROTO_NS_MAX, "each state has the colour xCilkNodeInfo(1) "
	    "gives it");
	for (s = 1; s < PROTO_NS_MAX; s++)
		if (hex(xn_state_rgb((enum proto_node_state)s)) ==
		    hex(xn_state_rgb(PROTO_NS_UNDEF)))
			same++;
	ok(same == 0 && xn_nlegend == PROTO_NS_MAX, "no state is drawn as "
	    "no answer; the legend has them all");
}

static void
test_draw(void)
{
	static struct xn_node n;
	static struct xn_cluster c;
	struct proto_node_row rows[3];
	cairo_surface_t *s;
	cairo_t *cr;
	/* not now_mono(): under 10 minutes after boot, "heard 10 minutes
	 * ago" would be a time before the clock's zero (failed so once) */
	double now = 86400.0;
	uint64_t t = now_real_ms();
	uint32_t i;

	memset(&n, 0, sizeof(n));
	strlcpy(n.xn_host, "127.0.0.3", sizeof(n.xn_host));
	n.xn_status = XN_OK;
	n.xn_now_ms = t;
	n.xn_answered = now;
	/* From 45 min ago: 30 min idle, 140 samples running, then busy. */
	for (i = 0; i < 540; i++) {
		n.xn_s[i].hs_seq = i + 1;
		n.xn_s[i].hs_time_ms = t - 2700000 + 5000ull * i;
		n.xn_s[i].hs_state = i < 360 ? PROTO_NS_IDLE : i < 500 ?
		    PROTO_NS_RUNNING : PROTO_NS_BUSY;
		n.xn_s[i].hs_job = i >= 360 && i < 500 ? 7 : 0;
		n.xn_s[i].hs_owner_milli = i >= 500 ? 800 : 0;
		n.xn_s[i].hs_guest_milli = n.xn_s[i].hs_job ? 1000 : 0;
		strlcpy(n.xn_s[i].hs_job_user, n.xn_s[i].hs_job ? "carol" :
		    "", sizeof(n.xn_s[i].hs_job_user));
	}
	n.xn_n = 540;
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 420);
	cr = cairo_create(s);
	xn_draw_node(cr, 800, 420, &n, now);
	ok(pixel(s, 783, 94) == 0xd04040, "the band's newest pixel: busy");
	ok(pixel(s, 70 + 714 * 30 / 60, 94) == 0x40b050 &&
	    pixel(s, 70 + 714 * 50 / 60, 94) == 0x3060d0 &&
	    pixel(s, 75, 94) == 0xeeeeee, "30 min ago idle, 10 running, "
	    "before 45 nothing known");
	ok(pixel(s, 70 + 714 * 50 / 60, 238) == 0x3060d0 &&
	    pixel(s, 780, 238) == 0xd04040 && pixel(s, 70 + 714 * 30 / 60,
	    238) == 0xf8f8f8, "the load: none, the guests' blue, then the "
	    "owner's red");
	ok(pixel(s, 15, 407) == 0xd04040, "the legend starts with busy");
	n.xn_status = XN_SILENT;
	n.xn_now_ms = t - 600000;	/* last heard 10 minutes ago */
	n.xn_answered = now - 600;
	n.xn_n = 540 - 120;		/* nothing after it */
	xn_draw_node(cr, 800, 420, &n, now);
	ok(pixel(s, 783, 94) == 0x909090 && pixel(s, 70 + 714 * 52 / 60,
	    94) == 0x909090 && pixel(s, 70 + 714 * 47 / 60, 94) == 0x3060d0,
	    "not answering: grey since it was last heard, its past kept");
	ok(cairo_surface_write_to_png(s, getenv("XVIEW_PNG") != NULL ?
	    getenv("XVIEW_PNG") : "/dev/null") == CAIRO_STATUS_SUCCESS,
	    "a PNG is written");
	cairo_destroy(cr);
	cairo_surface_destroy(s);

	memset(&c, 0, sizeof(c));
	memset(rows, 0, sizeof(rows));
	rows[0].nw_state = PROTO_NS_BUSY;
	rows[1].nw_state = PROTO_NS_RUNNING;
	rows[1].nw_job = 3;
	rows[2].nw_state = PROTO_NS_IDLE;
	rows[2].nw_seen_ms = 1000 * (XN_SILENT_S + 1);
	c.xc_rows = rows;
	c.xc_n = 3;
	c.xc_status = XN_OK;
	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 960, 640);
	cr = cairo_create(s);
	xn_draw_cluster(cr, 960, 640, &c, now);
	ok(pixel(s, 150, 104) == 0xd04040 && pixel(s, 350, 104) == 0x3060d0 &&
	    pixel(s, 550, 104) == 0x909090, "tiles: busy, running, and "
	    "not seen for %d s: grey", XN_SILENT_S + 1);
	c.xc_status = XN_SILENT;
	xn_draw_cluster(cr, 960, 640, &c, now);
	ok(pixel(s, 150, 104) == 0x909090, "a silent broker: every tile grey");
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	c.xc_rows = NULL;
}

/* Milliseconds to draw c at 1280x960, as a window does, over 10 runs. */
static double
draw_ms(const struct xn_cluster *c)
{
	cairo_surface_t *s;
	cairo_t *cr;
	double t0;
	int k;

	s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1280, 960);
	cr = cairo_create(s);
	t0 = now_mono();
	for (k = 0; k < 10; k++)
		xn_draw_cluster(cr, 1280, 960, c, now_mono());
	cairo_surface_flush(s);
	t0 = (now_mono() - t0) / 10 * 1000;
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	return t0;
}

/* A thousand nodes, drawn as -a draws them every second. */
static void
test_thousand(void)
{
	static struct xn_cluster c;
	struct proto_node_row *rows;
	char err[256];
	double t0, per;
	int i, k;

	if ((rows = calloc(1000, sizeof(*rows))) == NULL)
		return;
	for (i = 0; i < 1000; i++) {
		rows[i].nw_node = (uint32_t)i + 1;
		snprintf(rows[i].nw_host, sizeof(rows[i].nw_host),
		    "ws%03d.example.org", i);
		rows[i].nw_state = (uint8_t)(1 + i % 3);
		rows[i].nw_job = i % 3 == 2 ? (uint32_t)(i % 17) + 1 : 0;
		rows[i].nw_load_milli = (uint32_t)(i * 7 % 1000);
	}
	c.xc_rows = rows;
	c.xc_status = XN_OK;
	/* What a window redraws each second: 3 tiles, then 1000. */
	c.xc_n = 3;
	printf("# bench: xview draw 3 tiles %.2f ms\n", draw_ms(&c));
	c.xc_n = 1000;
	per = draw_ms(&c);
	/* Times are make bench's (tests/bench/xview.sh), never asserted. */
	printf("# bench: xview draw 1000 tiles %.2f ms\n", per);
	t0 = now_mono();
	for (k = 0; k < 5; k++)
		if (xn_png_write(getenv("XVIEW_PNG_A") != NULL ?
		    getenv("XVIEW_PNG_A") : "/dev/null", 1280, 960, &c, NULL,
		    now_mono(), err, sizeof(err)) == -1)
			break;
	per = (now_mono() - t0) / 5;
	ok(k == 5, "1000 tiles at 1280x960 into a PNG, 5 times (%.0f ms "
	    "a picture)", per * 1000);
	printf("# bench: xview png 1000 tiles %.1f ms\n", per * 1000);
	ok(xn_png_write("/nonexistent/x.png", 400, 300, &c, NULL, now_mono(),
	    err, sizeof(err)) == -1 && strstr(err, "/nonexistent") != NULL,
	    "a PNG that cannot be written is an error (%s)", err);
	free(rows);
}

int
main(void)
{
	test_merge();
	test_grid();
	test_colours();
	test_draw();
	test_thousand();
	cairo_debug_reset_static_data();
	FcFini();
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
