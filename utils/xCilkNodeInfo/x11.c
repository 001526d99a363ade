/*
 * xCilkNodeInfo: windows.  Plain Xlib for the windows and their events,
 * cairo's Xlib surface to draw; no toolkit, so no main loop but ours:
 * the X connection is one more descriptor in the program's evloop,
 * beside the UDP socket, and the window never waits on the network.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <cairo-xlib.h>

#include "brokerq.h"
#include "cli.h"
#include "evloop.h"
#include "log.h"
#include "mono.h"
#include "xnode.h"

struct view {
	Window			 v_win;
	cairo_surface_t		*v_surf;
	int			 v_w, v_h;
	struct xn_cluster	*v_cluster;	/* a cluster view, or */
	struct xn_node		*v_node;	/* a node view */
	int			 v_own;		/* v_node is ours to free */
	int			 v_dirty;
	int			 v_mapped;
};

struct xn_x11 {
	Display		*x_dpy;
	struct evloop	*x_loop;
	struct xn_fetch	*x_fetch;
	Atom		 x_delete;
	struct view	 x_v[XN_VIEWS_MAX];
	int		 x_nv;
};

/* Woken by the X connection: the events are read after the loop returns. */
static void
on_x(struct evloop *loop, int fd, short revents, void *arg)
{
	(void)loop;
	(void)fd;
	(void)revents;
	(void)arg;
}

struct xn_x11 *
xn_x11_open(struct evloop *loop, struct xn_fetch *f, const char *display,
    char *err, size_t errlen)
{
	struct xn_x11 *x;

	if ((x = calloc(1, sizeof(*x))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((x->x_dpy = XOpenDisplay(display)) == NULL) {
		snprintf(err, errlen, "cannot open display %s; without one, "
		    "draw into a file with --png FILE", display != NULL ?
		    display : XDisplayName(NULL));
		free(x);
		return NULL;
	}
	x->x_loop = loop;
	x->x_fetch = f;
	x->x_delete = XInternAtom(x->x_dpy, "WM_DELETE_WINDOW", False);
	if (evloop_add_fd(loop, ConnectionNumber(x->x_dpy), POLLIN, on_x,
	    x) == -1) {
		snprintf(err, errlen, "event loop: cannot watch the display");
		XCloseDisplay(x->x_dpy);
		free(x);
		return NULL;
	}
	return x;
}

void
xn_x11_changed(void *arg)
{
	struct xn_x11 *x = arg;
	int i;

	for (i = 0; i < x->x_nv; i++)
		x->x_v[i].v_dirty = 1;
}

int
xn_x11_view(struct xn_x11 *x, struct xn_cluster *c, struct xn_node *n,
    int w, int h)
{
	struct view *v;
	XClassHint class = { "xCilkNodeInfo", "XCilkNodeInfo" };
	XSizeHints hints;
	char title[PROTO_HOST_MAX + 64];
	int scr = DefaultScreen(x->x_dpy);

	if (x->x_nv == XN_VIEWS_MAX)
		return -1;
	v = &x->x_v[x->x_nv];
	memset(v, 0, sizeof(*v));
	v->v_cluster = c;
	v->v_node = n;
	v->v_w = w;
	v->v_h = h;
	v->v_win = XCreateSimpleWindow(x->x_dpy, RootWindow(x->x_dpy, scr),
	    0, 0, (unsigned)w, (unsigned)h, 0, BlackPixel(x->x_dpy, scr),
	    WhitePixel(x->x_dpy, scr));
	if (c != NULL)
		snprintf(title, sizeof(title), "xCilkNodeInfo: cluster");
	else
		snprintf(title, sizeof(title), "xCilkNodeInfo: %s",
		    n->xn_host);
	XStoreName(x->x_dpy, v->v_win, title);
	XSetClassHint(x->x_dpy, v->v_win, &class);
	memset(&hints, 0, sizeof(hints));
	hints.flags = PMinSize;
	hints.min_width = 320;
	hints.min_height = 240;
	XSetWMNormalHints(x->x_dpy, v->v_win, &hints);
	XSetWMProtocols(x->x_dpy, v->v_win, &x->x_delete, 1);
	XSelectInput(x->x_dpy, v->v_win, ExposureMask | StructureNotifyMask |
	    ButtonPressMask | KeyPressMask);
	v->v_surf = cairo_xlib_surface_create(x->x_dpy, v->v_win,
	    DefaultVisual(x->x_dpy, scr), w, h);
	if (cairo_surface_status(v->v_surf) != CAIRO_STATUS_SUCCESS) {
		log_warnx("cairo: %s", cairo_status_to_string(
		    cairo_surface_status(v->v_surf)));
		cairo_surface_destroy(v->v_surf);
		XDestroyWindow(x->x_dpy, v->v_win);
		return -1;
	}
	XMapWindow(x->x_dpy, v->v_win);
	v->v_dirty = 1;
	x->x_nv++;
	return 0;
}

static void
draw(struct xn_x11 *x, struct view *v)
{
	cairo_t *cr = cairo_create(v->v_surf);
	double now = now_mono();

	(void)x;
	/* Drawn aside, then shown whole: no flicker. */
	cairo_push_group(cr);
	if (v->v_cluster != NULL)
		xn_draw_cluster(cr, v->v_w, v->v_h, v->v_cluster, now);
	else
		xn_draw_node(cr, v->v_w, v->v_h, v->v_node, now);
	cairo_pop_group_to_source(cr);
	cairo_paint(cr);
	cairo_destroy(cr);
	cairo_surface_flush(v->v_surf);
	v->v_dirty = 0;
}

static void
close_view(struct xn_x11 *x, struct view *v)
{
	cairo_surface_destroy(v->v_surf);
	XDestroyWindow(x->x_dpy, v->v_win);
	if (v->v_own) {
		xn_fetch_forget(x->x_fetch, v->v_node);
		free(v->v_node);
	}
	*v = x->x_v[--x->x_nv];
}

static struct view *
view_of(struct xn_x11 *x, Window w)
{
	int i;

	for (i = 0; i < x->x_nv; i++)
		if (x->x_v[i].v_win == w)
			return &x->x_v[i];
	return NULL;
}

/* A click on a tile opens that node's view (or raises it). */
static void
click(struct xn_x11 *x, struct view *v, int px, int py)
{
	const struct proto_node_row *r;
	struct xn_grid g;
	struct xn_node *n;
	int i;

	if (v->v_cluster == NULL)
		return;
	xn_grid_layout(&g, (int)v->v_cluster->xc_n, v->v_w, v->v_h);
	if ((i = xn_grid_hit(&g, (int)v->v_cluster->xc_n, px, py)) < 0)
		return;
	r = &v->v_cluster->xc_rows[i];
	for (i = 0; i < x->x_nv; i++)
		if (x->x_v[i].v_node != NULL &&
		    msg_addr_eq(&x->x_v[i].v_node->xn_addr, &r->nw_addr)) {
			XRaiseWindow(x->x_dpy, x->x_v[i].v_win);
			return;
		}
	if ((n = calloc(1, sizeof(*n))) == NULL) {
		log_warnx("out of memory");
		return;
	}
	if (r->nw_host[0] != '\0')
		brokerq_safe(n->xn_host, sizeof(n->xn_host), r->nw_host);
	else
		brokerq_host(&r->nw_addr, n->xn_host, sizeof(n->xn_host));
	n->xn_addr = r->nw_addr;
	n->xn_have_addr = 1;
	if (xn_fetch_node(x->x_fetch, n) == -1 ||
	    xn_x11_view(x, NULL, n, 800, 420) == -1) {
		log_warnx("too many windows open");
		xn_fetch_forget(x->x_fetch, n);
		free(n);
		return;
	}
	x->x_v[x->x_nv - 1].v_own = 1;
}

static void
event(struct xn_x11 *x, XEvent *e)
{
	struct view *v = view_of(x, e->xany.window);
	KeySym k;

	if (v == NULL)
		return;
	switch (e->type) {
	case Expose:
		if (e->xexpose.count == 0)
			v->v_dirty = 1;
		break;
	case MapNotify:
		v->v_mapped = 1;
		v->v_dirty = 1;
		break;
	case ConfigureNotify:
		if (e->xconfigure.width != v->v_w ||
		    e->xconfigure.height != v->v_h) {
			v->v_w = e->xconfigure.width;
			v->v_h = e->xconfigure.height;
			cairo_xlib_surface_set_size(v->v_surf, v->v_w, v->v_h);
			v->v_dirty = 1;
		}
		break;
	case ButtonPress:
		if (e->xbutton.button == Button1)
			click(x, v, e->xbutton.x, e->xbutton.y);
		break;
	case KeyPress:
		k = XLookupKeysym(&e->xkey, 0);
		if (k == XK_q || k == XK_Escape)
			close_view(x, v);
		break;
	case ClientMessage:
		if ((Atom)e->xclient.data.l[0] == x->x_delete)
			close_view(x, v);
		break;
	default:
		break;
	}
}

int
xn_x11_run(struct xn_x11 *x)
{
	XEvent e;
	int i;

	while (x->x_nv > 0) {
		/* Xlib may hold events already read: take them first. */
		while (x->x_nv > 0 && XPending(x->x_dpy) > 0) {
			XNextEvent(x->x_dpy, &e);
			event(x, &e);
		}
		for (i = 0; i < x->x_nv; i++)
			if (x->x_v[i].v_dirty && x->x_v[i].v_mapped)
				draw(x, &x->x_v[i]);
		XFlush(x->x_dpy);
		if (x->x_nv > 0 && evloop_run_once(x->x_loop, -1) == -1) {
			log_warn("event loop");
			return CLI_EXIT_FAILURE;
		}
	}
	return 0;
}

void
xn_x11_close(struct xn_x11 *x)
{
	if (x == NULL)
		return;
	while (x->x_nv > 0)
		close_view(x, &x->x_v[0]);
	(void)evloop_del_fd(x->x_loop, ConnectionNumber(x->x_dpy));
	XCloseDisplay(x->x_dpy);
	free(x);
}
