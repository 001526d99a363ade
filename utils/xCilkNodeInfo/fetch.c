/*
 * xCilkNodeInfo: asking, never waiting.  One endpoint on the program's
 * own loop asks the broker for the nodes (LIST_PAGE, page after page,
 * as brokerq.c does for CilkNodes, but each next page asked from the
 * handler of the last: the loop never waits) and each node manager
 * HIST_REQ (its history, page by page) every XN_REFRESH seconds; the
 * answers arrive as events like the window's.  A listing is shown only
 * once its last page came, so a half-fetched one never hides nodes.
 * What stays unanswered for the configured timeout (each page has the
 * whole of it) is marked not answering, and drawn so.
 * Keys and checks are CilkNodes' (brokerq.h): the cluster scheme when
 * the cluster key is readable, else the user's, whose answers must be
 * signed as @cluster; a large answer to a user comes after a cookie.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerq.h"
#include "log.h"
#include "mono.h"
#include "msg_keyring.h"
#include "pred.h"
#include "proto_page.h"
#include "xnode.h"

/* What we ask one party: since when, with which cookie. */
struct ask {
	double		a_waiting;	/* first unanswered question, 0: none */
	int		a_cookies;	/* cookies taken this round */
	int		a_have_cookie;
	uint8_t		a_cookie[PROTO_COOKIE_LEN];
};

struct watch {
	struct xn_node	*w_node;
	struct ask	 w_ask;
};

struct xn_fetch {
	struct evloop		*f_loop;
	struct msg_keyring	 f_keys;
	struct msg_ep		*f_ep;
	enum msg_scheme		 f_scheme;
	struct msg_addr		 f_broker;
	double			 f_timeout;
	xn_changed_fn		*f_changed;
	void			*f_arg;
	struct xn_cluster	*f_cluster;	/* NULL: only to find nodes */
	struct xn_cluster	 f_own;		/* the list when not shown */
	struct ask		 f_list;
	/* The listing under way: its rows so far, the page asked for. */
	int			 f_listing;
	uint32_t		 f_from;
	struct proto_node_row	*f_rows;
	uint32_t		 f_nrows, f_cap;
	struct watch		 f_watch[XN_VIEWS_MAX];
	int			 f_nwatch;
	struct evtimer		*f_timer;
};

static struct xn_cluster *
cluster(struct xn_fetch *f)
{
	return f->f_cluster != NULL ? f->f_cluster : &f->f_own;
}

/* An answer counts only from the address asked, and as @cluster. */
static int
from(const struct msg_in *in, const struct msg_addr *a)
{
	return msg_addr_eq(&in->mi_from, a) && (in->mi_scheme !=
	    MSG_SCHEME_USER || msg_verify_sender(in, MSG_SCHEME_USER,
	    MSG_CLUSTER_NAME, NULL));
}

static struct watch *
watch_of(struct xn_fetch *f, const struct msg_in *in)
{
	int i;

	for (i = 0; i < f->f_nwatch; i++)
		if (f->f_watch[i].w_node->xn_have_addr &&
		    from(in, &f->f_watch[i].w_node->xn_addr))
			return &f->f_watch[i];
	return NULL;
}

static void
changed(struct xn_fetch *f)
{
	if (f->f_changed != NULL)
		f->f_changed(f->f_arg);
}

static void
asked(struct ask *a)
{
	if (a->a_waiting == 0)
		a->a_waiting = now_mono();
}

/* Asks for the page of the listing under way (the cookie rule of LIST
 * holds: under the user scheme the cookie is echoed in every page). */
static void
send_list(struct xn_fetch *f)
{
	struct proto_list_page l;
	uint8_t buf[64];
	size_t len;

	memset(&l, 0, sizeof(l));
	l.lp_what = PROTO_LIST_NODES;
	l.lp_from = f->f_from;
	if ((l.lp_has_cookie = (uint8_t)f->f_list.a_have_cookie))
		memcpy(l.lp_cookie, f->f_list.a_cookie, PROTO_COOKIE_LEN);
	if ((len = proto_list_page_enc(&l, buf, sizeof(buf))) == 0)
		return;
	if (msg_ep_send(f->f_ep, &f->f_broker, f->f_scheme,
	    PROTO_H_LIST_PAGE, buf, len) == -1)
		log_debug("%s: %s", __func__, strerror(errno));
	asked(&f->f_list);
}

/* A new listing from the table's start; the shown one stays till done. */
static void
start_list(struct xn_fetch *f)
{
	f->f_listing = 1;
	f->f_from = 0;
	f->f_nrows = 0;
	send_list(f);
}

/* Keeps a page's rows; -1 out of memory. */
static int
keep_rows(struct xn_fetch *f, const struct proto_page *pg)
{
	struct proto_node_row *p;
	uint32_t want = f->f_cap ? f->f_cap : PROTO_PAGE_ROWS;

	while (want < f->f_nrows + pg->pg_n)
		want *= 2;
	if (want != f->f_cap) {
		if ((p = reallocarray(f->f_rows, want, sizeof(*p))) == NULL)
			return -1;
		f->f_rows = p;
		f->f_cap = want;
	}
	memcpy(f->f_rows + f->f_nrows, pg->pg_nodes,
	    pg->pg_n * sizeof(*pg->pg_nodes));
	f->f_nrows += pg->pg_n;
	return 0;
}

static void
send_hist(struct xn_fetch *f, struct watch *w)
{
	struct proto_hist_req q;
	uint8_t buf[64];
	size_t len;

	memset(&q, 0, sizeof(q));
	q.hq_since = w->w_node->xn_since;
	if ((q.hq_has_cookie = (uint8_t)w->w_ask.a_have_cookie))
		memcpy(q.hq_cookie, w->w_ask.a_cookie, PROTO_COOKIE_LEN);
	if ((len = proto_hist_req_enc(&q, buf, sizeof(buf))) == 0)
		return;
	if (msg_ep_send(f->f_ep, &w->w_node->xn_addr, f->f_scheme,
	    PROTO_H_HIST_REQ, buf, len) == -1)
		log_debug("%s: %s", __func__, strerror(errno));
	asked(&w->w_ask);
}

/* The node's address from the broker's list: by address or by name. */
static void
resolve(struct xn_fetch *f, struct xn_node *n)
{
	const struct xn_cluster *c = cluster(f);
	char text[64];
	uint32_t i;

	for (i = 0; i < c->xc_n; i++) {
		brokerq_host(&c->xc_rows[i].nw_addr, text, sizeof(text));
		if (strcmp(text, n->xn_host) == 0 ||
		    pred_node_match(n->xn_host, c->xc_rows[i].nw_host))
			break;
	}
	if (i < c->xc_n) {
		if (!n->xn_have_addr || !msg_addr_eq(&n->xn_addr,
		    &c->xc_rows[i].nw_addr))
			xn_node_reset(n);
		n->xn_addr = c->xc_rows[i].nw_addr;
		n->xn_have_addr = 1;
		if (n->xn_status == XN_REFUSED)
			n->xn_status = XN_WAITING;
	} else if (!n->xn_have_addr) {
		n->xn_status = XN_REFUSED;
		snprintf(n->xn_why, sizeof(n->xn_why), "not registered with "
		    "the broker at %s (see CilkNodes)", c->xc_broker);
	}
}

static void
on_page(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct xn_fetch *f = arg;
	struct xn_cluster *c = cluster(f);
	struct proto_page pg;
	struct watch *w;
	int i, kept;

	(void)ep;
	if (!f->f_listing || !from(in, &f->f_broker))
		return;
	if (proto_page_dec(PROTO_LIST_NODES, &pg, in->mi_data,
	    in->mi_len) == -1) {
		log_debug("%s: malformed answer from the broker", __func__);
		return;
	}
	/* A page asked for twice and answered twice: taken once. */
	kept = pg.pg_from == f->f_from ? keep_rows(f, &pg) : 1;
	free(pg.pg_nodes);
	if (kept == 1)
		return;
	if (kept == -1) {
		log_warnx("%s: out of memory for %u nodes", __func__,
		    f->f_nrows + pg.pg_n);
		f->f_listing = 0;	/* the next tick tries again */
		return;
	}
	/* Each page has the whole timeout and its own cookies. */
	f->f_list.a_waiting = 0;
	f->f_list.a_cookies = 0;
	if (pg.pg_next != 0) {
		f->f_from = pg.pg_next;
		send_list(f);
		return;
	}
	f->f_listing = 0;
	free(c->xc_rows);
	c->xc_rows = f->f_rows;
	c->xc_n = f->f_nrows;
	f->f_rows = NULL;
	f->f_nrows = f->f_cap = 0;
	c->xc_status = XN_OK;
	c->xc_answered = now_mono();
	f->f_list.a_waiting = 0;
	for (i = 0; i < f->f_nwatch; i++) {
		w = &f->f_watch[i];
		if (w->w_node->xn_have_addr &&
		    w->w_node->xn_status != XN_SILENT)
			continue;
		resolve(f, w->w_node);
		if (w->w_node->xn_have_addr && w->w_ask.a_waiting == 0)
			send_hist(f, w);
	}
	changed(f);
}

static void
on_hist(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	static struct proto_hist h;
	struct xn_fetch *f = arg;
	struct watch *w;

	(void)ep;
	if ((w = watch_of(f, in)) == NULL)
		return;
	if (proto_hist_dec(&h, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed answer from %s", __func__,
		    w->w_node->xn_host);
		return;
	}
	w->w_ask.a_waiting = 0;
	w->w_node->xn_status = XN_OK;
	w->w_node->xn_answered = now_mono();
	if (xn_node_merge(w->w_node, &h))
		send_hist(f, w);	/* the next page, at once */
	changed(f);
}

/* Asked to prove our address: once per round, ask again with it. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct xn_fetch *f = arg;
	struct proto_cookie c;
	struct watch *w = NULL;
	struct ask *a;

	(void)ep;
	if (proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1)
		return;
	if (from(in, &f->f_broker) && f->f_listing)
		a = &f->f_list;
	else if ((w = watch_of(f, in)) != NULL)
		a = &w->w_ask;
	else
		return;
	if (a->a_cookies++ >= BROKERQ_TRIES)
		return;
	memcpy(a->a_cookie, c.co_cookie, PROTO_COOKIE_LEN);
	a->a_have_cookie = 1;
	if (w != NULL)
		send_hist(f, w);
	else
		send_list(f);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct xn_fetch *f = arg;
	struct proto_error e;
	struct watch *w;
	char why[PROTO_REASON_MAX];

	(void)ep;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1)
		return;
	brokerq_safe(why, sizeof(why), e.er_reason);
	if (e.er_handler == PROTO_H_LIST_PAGE && from(in, &f->f_broker)) {
		cluster(f)->xc_status = XN_REFUSED;
		strlcpy(cluster(f)->xc_why, why, sizeof(cluster(f)->xc_why));
		f->f_list.a_waiting = 0;
		f->f_listing = 0;
	} else if (e.er_handler == PROTO_H_HIST_REQ &&
	    (w = watch_of(f, in)) != NULL) {
		w->w_node->xn_status = XN_REFUSED;
		strlcpy(w->w_node->xn_why, why, sizeof(w->w_node->xn_why));
		w->w_ask.a_waiting = 0;
	} else
		return;
	changed(f);
}

static const struct msg_handler table[PROTO_H_MAX] = {
	[PROTO_H_COOKIE] = { "cookie", MSG_SCHEMES_ALL, on_cookie },
	[PROTO_H_NODES_PAGE] = { "nodes-page", MSG_SCHEMES_ALL, on_page },
	[PROTO_H_HIST] = { "hist", MSG_SCHEMES_ALL, on_hist },
	[PROTO_H_ERROR] = { "error", MSG_SCHEMES_ALL, on_error },
};

/* Silent for the whole timeout: not answering, until it answers. */
static int
overdue(const struct xn_fetch *f, const struct ask *a, double now)
{
	return a->a_waiting > 0 && now - a->a_waiting >= f->f_timeout;
}

static int
wants_list(const struct xn_fetch *f)
{
	int i;

	if (f->f_cluster != NULL)
		return 1;
	for (i = 0; i < f->f_nwatch; i++)
		if (!f->f_watch[i].w_node->xn_have_addr ||
		    f->f_watch[i].w_node->xn_status == XN_SILENT)
			return 1;
	return 0;
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct xn_fetch *f = arg;
	struct xn_cluster *c = cluster(f);
	struct watch *w;
	double now = now_mono();
	int i, moved = 0;

	/* A listing that stalls is dropped; the last whole one stays. */
	if (overdue(f, &f->f_list, now))
		f->f_listing = 0;
	if (overdue(f, &f->f_list, now) && c->xc_status != XN_SILENT) {
		c->xc_status = XN_SILENT;
		moved = 1;
		/* A node found through a silent broker: not answering. */
		for (i = 0; i < f->f_nwatch; i++)
			if (!f->f_watch[i].w_node->xn_have_addr) {
				f->f_watch[i].w_node->xn_status = XN_SILENT;
				snprintf(f->f_watch[i].w_node->xn_why,
				    sizeof(f->f_watch[i].w_node->xn_why),
				    "the broker at %s is not answering",
				    c->xc_broker);
			}
	}
	f->f_list.a_cookies = 0;
	if (f->f_listing)
		send_list(f);	/* the page under way, once more */
	else if (wants_list(f))
		start_list(f);
	for (i = 0; i < f->f_nwatch; i++) {
		w = &f->f_watch[i];
		w->w_ask.a_cookies = 0;
		if (!w->w_node->xn_have_addr)
			continue;
		if (overdue(f, &w->w_ask, now) &&
		    w->w_node->xn_status != XN_SILENT) {
			w->w_node->xn_status = XN_SILENT;
			moved = 1;
		}
		send_hist(f, w);
	}
	if (moved)
		changed(f);
	f->f_timer = evloop_timer_add(loop, XN_REFRESH, on_tick, f);
}

struct xn_fetch *
xn_fetch_new(const struct conf *cf, struct evloop *loop, xn_changed_fn *fn,
    void *arg, char *err, size_t errlen)
{
	struct xn_fetch *f;
	struct msg_ep_opts eo;
	struct msg_addr any;
	const char *broker = conf_get(cf, "broker");

	if ((f = calloc(1, sizeof(*f))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->f_loop = loop;
	f->f_changed = fn;
	f->f_arg = arg;
	if (msg_addr_parse(&f->f_broker, broker, 7410) == -1) {
		snprintf(err, errlen, "broker %s: bad or unknown address",
		    broker);
		goto fail;
	}
	msg_addr_text(&f->f_broker, f->f_own.xc_broker,
	    sizeof(f->f_own.xc_broker));
	if (conf_get_seconds(cf, "timeout", &f->f_timeout) == -1 ||
	    f->f_timeout <= 0)
		f->f_timeout = 3;
	if (msg_keyring_load(&f->f_keys, cf, MSG_KR_CLUSTER_OPT |
	    MSG_KR_USER_OPT, "tool", err, errlen) == -1)
		goto fail;
	if (f->f_keys.kr_cluster.ks_n > 0)
		f->f_scheme = MSG_SCHEME_CLUSTER;
	else if (f->f_keys.kr_user.ks_n > 0)
		f->f_scheme = MSG_SCHEME_USER;
	else {
		snprintf(err, errlen, "no key to ask with: neither %s "
		    "(cluster_key) nor %s (user_key) could be read; make a "
		    "user key with 'CilkKey generate-user'",
		    conf_get(cf, "cluster_key"), conf_get(cf, "user_key"));
		goto fail;
	}
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = f->f_broker.ma_family;
	if ((f->f_ep = msg_ep_new(loop, &f->f_keys, table, PROTO_H_MAX, f,
	    &eo)) == NULL || msg_ep_bind(f->f_ep, &any) == -1) {
		snprintf(err, errlen, "endpoint: %s", strerror(errno));
		goto fail;
	}
	return f;
 fail:
	xn_fetch_free(f);
	return NULL;
}

void
xn_fetch_free(struct xn_fetch *f)
{
	if (f == NULL)
		return;
	if (f->f_timer != NULL)
		evloop_timer_cancel(f->f_loop, f->f_timer);
	msg_ep_free(f->f_ep);
	msg_keyring_clear(&f->f_keys);
	free(f->f_own.xc_rows);
	free(f->f_rows);
	free(f);
}

void
xn_fetch_cluster(struct xn_fetch *f, struct xn_cluster *c)
{
	if (c != NULL)
		strlcpy(c->xc_broker, f->f_own.xc_broker,
		    sizeof(c->xc_broker));
	f->f_cluster = c;
}

int
xn_fetch_node(struct xn_fetch *f, struct xn_node *n)
{
	struct watch *w;

	if (f->f_nwatch == XN_VIEWS_MAX)
		return -1;
	w = &f->f_watch[f->f_nwatch++];
	memset(w, 0, sizeof(*w));
	w->w_node = n;
	if (!n->xn_have_addr)
		resolve(f, n);
	if (n->xn_status == XN_REFUSED && !n->xn_have_addr &&
	    cluster(f)->xc_status == XN_WAITING)
		n->xn_status = XN_WAITING;	/* no list yet to look in */
	if (n->xn_have_addr)
		send_hist(f, w);
	return 0;
}

void
xn_fetch_forget(struct xn_fetch *f, struct xn_node *n)
{
	int i;

	for (i = 0; i < f->f_nwatch; i++)
		if (f->f_watch[i].w_node == n) {
			f->f_watch[i] = f->f_watch[--f->f_nwatch];
			return;
		}
}

void
xn_fetch_start(struct xn_fetch *f)
{
	if (f->f_timer == NULL)
		on_tick(f->f_loop, f);
}

int
xn_fetch_settled(const struct xn_fetch *f)
{
	const struct xn_node *n;
	int i;

	if (f->f_cluster != NULL && f->f_cluster->xc_status == XN_WAITING)
		return 0;
	for (i = 0; i < f->f_nwatch; i++) {
		n = f->f_watch[i].w_node;
		if (n->xn_status == XN_WAITING ||
		    (n->xn_status == XN_OK && n->xn_since < n->xn_last))
			return 0;
	}
	return 1;
}
