/*
 * xCilkNodeInfo — Cilk-NOW's X-window display of a node's activity
 * (Lisiecki 1996, section 2.3): one node's last hour, or with -a the
 * whole cluster as tiles; --png draws the same into a file.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fontconfig/fontconfig.h>
#include <sodium.h>

#include "brokerq.h"
#include "cli.h"
#include "log.h"
#include "mono.h"
#include "xnode.h"

#define PROG		"xCilkNodeInfo"
#define OPT_PNG		0x101
#define OPT_SIZE	0x102

struct xopts {
	struct cli_common	 xo_cc;
	int			 xo_all;	/* -a */
	const char		*xo_host;
	const char		*xo_png;	/* --png FILE */
	int			 xo_w, xo_h;	/* --size, 0: by view */
};

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: xCilkNodeInfo [-v] [-c file] [-o key=value] "
	    "[-b host[:port]]\n"
	    "                     [--png file [--size WxH]] -a | host\n"
	    "  host        one node's last hour: state, load (owner and "
	    "guests),\n"
	    "              idle time, users, the jobs that ran and their "
	    "users\n"
	    "  -a          the whole cluster, a tile per node; click one "
	    "to open it\n"
	    "  --png file  draw once into a PNG file instead of a window\n"
	    "  --size WxH  the picture's size in pixels\n");
	exit(status);
}

static int
parse_size(const char *s, int *w, int *h)
{
	char *end;
	long a, b;

	a = strtol(s, &end, 10);
	if (*end != 'x')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end != '\0' || a < 320 || b < 240 || a > 8192 || b > 8192)
		return -1;
	*w = (int)a;
	*h = (int)b;
	return 0;
}

static void
parse(struct xopts *o, int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "png", required_argument, NULL, OPT_PNG },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int ch;

	memset(o, 0, sizeof(*o));
	while ((ch = getopt_long(argc, argv, "ab:c:ho:vV", longopts,
	    NULL)) != -1) {
		switch (cli_common_opt(&o->xo_cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'a':
			o->xo_all = 1;
			break;
		case OPT_PNG:
			o->xo_png = optarg;
			break;
		case OPT_SIZE:
			if (parse_size(optarg, &o->xo_w, &o->xo_h) == -1) {
				warnx("--size %s: not WxH within 320x240 .. "
				    "8192x8192", optarg);
				usage(CLI_EXIT_USAGE);
			}
			break;
		case 'h':
			usage(CLI_EXIT_OK);
		case 'V':
			cli_version(PROG);
			exit(CLI_EXIT_OK);
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	if (optind < argc)
		o->xo_host = argv[optind++];
	if (optind != argc || o->xo_all == (o->xo_host != NULL)) {
		warnx("name one node, or -a for the whole cluster");
		usage(CLI_EXIT_USAGE);
	}
	if (o->xo_w == 0) {
		o->xo_w = o->xo_all ? 960 : 800;
		o->xo_h = o->xo_all ? 640 : 420;
	}
}

static int
status_exit(enum xn_status s)
{
	switch (s) {
	case XN_OK:
		return CLI_EXIT_OK;
	case XN_REFUSED:
		return CLI_EXIT_FAILURE;
	default:
		return CLI_EXIT_TIMEOUT;
	}
}

/* --png: ask once, wait for the answers or the timeout, draw, done. */
static int
run_png(const struct xopts *o, const struct conf *cf, struct evloop *loop,
    struct xn_fetch *f, struct xn_cluster *c, struct xn_node *n)
{
	char err[256];
	double timeout, deadline;
	int rc;

	if (conf_get_seconds(cf, "timeout", &timeout) == -1 || timeout <= 0)
		timeout = 3;
	/* The broker, then the node: each may take the whole timeout. */
	deadline = now_mono() + 2 * timeout + 2 * XN_REFRESH;
	xn_fetch_start(f);
	while (!xn_fetch_settled(f) && now_mono() < deadline)
		if (evloop_run_once(loop, deadline - now_mono()) == -1) {
			warn("event loop");
			return CLI_EXIT_FAILURE;
		}
	if (xn_png_write(o->xo_png, o->xo_w, o->xo_h, c, n, now_mono(), err,
	    sizeof(err)) == -1) {
		warnx("%s", err);
		return CLI_EXIT_FAILURE;
	}
	rc = status_exit(c != NULL ? c->xc_status : n->xn_status);
	if (rc != CLI_EXIT_OK)
		warnx("%s", c != NULL ? (c->xc_status == XN_REFUSED ?
		    c->xc_why : "the broker did not answer") :
		    n->xn_status == XN_REFUSED || n->xn_why[0] != '\0' ?
		    n->xn_why : "the node manager did not answer");
	return rc;
}

static struct xn_x11 *the_x11;

static void
changed(void *arg)
{
	(void)arg;
	if (the_x11 != NULL)
		xn_x11_changed(the_x11);
}

int
main(int argc, char *argv[])
{
	static struct xn_cluster cluster;
	static struct xn_node node;
	struct xopts o;
	struct conf *cf;
	struct evloop *loop;
	struct xn_fetch *f;
	const char *display = getenv("DISPLAY");
	char err[BROKERQ_ERR_MAX];
	int rc;

	parse(&o, argc, argv);
	if (o.xo_png == NULL && (display == NULL || display[0] == '\0')) {
		warnx("no X display (DISPLAY is not set); draw into a file "
		    "instead with --png FILE");
		return CLI_EXIT_USAGE;
	}
	log_init(1, PROG, o.xo_cc.cc_verbose);
	if (sodium_init() < 0) {
		warnx("libsodium failed to initialise");
		return CLI_EXIT_FAILURE;
	}
	if ((cf = cli_conf_load(&o.xo_cc, PROG)) == NULL)
		return CLI_EXIT_USAGE;
	if ((loop = evloop_new()) == NULL) {
		warn("event loop");
		conf_free(cf);
		return CLI_EXIT_FAILURE;
	}
	if ((f = xn_fetch_new(cf, loop, changed, NULL, err,
	    sizeof(err))) == NULL) {
		brokerq_warn(PROG, err);
		evloop_free(loop);
		conf_free(cf);
		return CLI_EXIT_FAILURE;
	}
	if (o.xo_all)
		xn_fetch_cluster(f, &cluster);
	else {
		strlcpy(node.xn_host, o.xo_host, sizeof(node.xn_host));
		(void)xn_fetch_node(f, &node);
	}
	if (o.xo_png != NULL)
		rc = run_png(&o, cf, loop, f, o.xo_all ? &cluster : NULL,
		    o.xo_all ? NULL : &node);
	else if ((the_x11 = xn_x11_open(loop, f, NULL, err,
	    sizeof(err))) == NULL) {
		warnx("%s", err);
		rc = CLI_EXIT_USAGE;
	} else if (xn_x11_view(the_x11, o.xo_all ? &cluster : NULL,
	    o.xo_all ? NULL : &node, o.xo_w, o.xo_h) == -1) {
		warnx("cannot make a window");
		rc = CLI_EXIT_FAILURE;
	} else {
		xn_fetch_start(f);
		rc = xn_x11_run(the_x11);
	}
	xn_x11_close(the_x11);
	xn_fetch_free(f);
	free(cluster.xc_rows);
	evloop_free(loop);
	conf_free(cf);
	/* cairo's and fontconfig's caches: no leak for the sanitizers. */
	cairo_debug_reset_static_data();
	FcFini();
	return rc;
}
