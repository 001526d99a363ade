/*
 * xCilkNodeInfo's parts: what it knows (model.c), how it learns it
 * without ever waiting (fetch.c), how it draws (draw.c) into a window
 * (x11.c) or a PNG file (png.c).  main.c reads the command line.
 */
#ifndef XNODE_H
#define XNODE_H

#include <stdint.h>

#include <cairo.h>

#include "conf.h"
#include "proto.h"
#include "proto_hist.h"

#define XN_REFRESH	1.0	/* seconds between questions */
#define XN_HOUR_MS	3600000ull	/* what a node view spans */
#define XN_SILENT_S	90	/* a node not seen by the broker for longer
				   is drawn as not answering */
#define XN_VIEWS_MAX	32	/* windows open at once */

enum xn_status {
	XN_WAITING = 0,		/* asked, no answer yet */
	XN_OK,			/* answered */
	XN_SILENT,		/* no answer within the timeout */
	XN_REFUSED		/* answered no: xn_why says why */
};

/* One node's last hour, as the node manager told it. */
struct xn_node {
	char			 xn_host[PROTO_HOST_MAX + 1];	/* as asked */
	struct msg_addr		 xn_addr;
	int			 xn_have_addr;
	uint64_t		 xn_boot;
	uint64_t		 xn_now_ms;	/* its clock, last answer */
	double			 xn_answered;	/* our clock, last answer */
	uint32_t		 xn_since;	/* newest sample we have */
	uint32_t		 xn_last;	/* newest it keeps */
	uint32_t		 xn_n;
	struct proto_hist_sample xn_s[PROTO_HIST_KEEP];	/* oldest first */
	enum xn_status		 xn_status;
	char			 xn_why[PROTO_REASON_MAX];
};

/* The broker's list of nodes. */
struct xn_cluster {
	struct proto_node_row	*xc_rows;
	uint32_t		 xc_n;
	char			 xc_broker[64];
	double			 xc_answered;
	enum xn_status		 xc_status;
	char			 xc_why[PROTO_REASON_MAX];
};

/* model.c: pure functions of the model, for drawing and tests. */
struct xn_rgb {
	double	r, g, b;
};
/* The colour of a state (xCilkNodeInfo(1), COLOURS); UNDEF: no answer. */
struct xn_rgb	 xn_state_rgb(enum proto_node_state);
/* The legend's entries, in order: a state each, UNDEF last. */
extern const enum proto_node_state xn_legend[];
extern const int xn_nlegend;
const char	*xn_state_label(enum proto_node_state);

/* Merges a page of history; 1 if the node has more to send, else 0. */
int		 xn_node_merge(struct xn_node *, const struct proto_hist *);
void		 xn_node_reset(struct xn_node *);

/* Tiles in a grid: n of them in w x h pixels. */
struct xn_grid {
	int	g_cols, g_rows;
	double	g_x0, g_y0;		/* top left of tile 0 */
	double	g_tw, g_th;		/* a tile's cell, gap included */
	double	g_gap;
};
void		 xn_grid_layout(struct xn_grid *, int n, double w, double h);
/* The tile at (x, y), or -1. */
int		 xn_grid_hit(const struct xn_grid *, int n, double x, double y);
/* Whether the broker's row says the node does not answer. */
int		 xn_row_silent(const struct proto_node_row *);

/* draw.c: a whole picture into cr, w x h pixels. */
#define XN_TOP		34.0	/* title line */
#define XN_LEGEND	26.0	/* legend line at the bottom */
#define XN_BAND_X	70.0	/* node view: where the hour starts */
#define XN_BAND_Y	(XN_TOP + 16.0)
#define XN_BAND_H	48.0
void		 xn_draw_cluster(cairo_t *, double w, double h,
		    const struct xn_cluster *, double now);
void		 xn_draw_node(cairo_t *, double w, double h,
		    const struct xn_node *, double now);

/* fetch.c: every question in flight, answered through the loop. */
struct xn_fetch;
typedef void	xn_changed_fn(void *arg);
struct xn_fetch	*xn_fetch_new(const struct conf *, struct evloop *,
		    xn_changed_fn *, void *arg, char *err, size_t errlen);
void		 xn_fetch_free(struct xn_fetch *);
/* The cluster to keep asking the broker about (NULL: stop). */
void		 xn_fetch_cluster(struct xn_fetch *, struct xn_cluster *);
/* A node to keep asking for its history (xn_host or xn_addr set). */
int		 xn_fetch_node(struct xn_fetch *, struct xn_node *);
void		 xn_fetch_forget(struct xn_fetch *, struct xn_node *);
/* Asks now what is due; the loop's timers go on asking. */
void		 xn_fetch_start(struct xn_fetch *);
/* 1 once every watched thing has answered in full or given up. */
int		 xn_fetch_settled(const struct xn_fetch *);

/* x11.c: windows on a display, driven by the same loop. */
struct xn_x11;
struct xn_x11	*xn_x11_open(struct evloop *, struct xn_fetch *,
		    const char *display, char *err, size_t errlen);
/* A window for the cluster (node NULL) or for one node. */
int		 xn_x11_view(struct xn_x11 *, struct xn_cluster *,
		    struct xn_node *, int w, int h);
/* Runs until the last window is closed; the exit status. */
int		 xn_x11_run(struct xn_x11 *);
void		 xn_x11_close(struct xn_x11 *);
void		 xn_x11_changed(void *);

/* png.c: one picture into a file; 0, or -1 with the reason in err. */
int		 xn_png_write(const char *path, int w, int h,
		    const struct xn_cluster *, const struct xn_node *,
		    double now, char *err, size_t errlen);

#endif
