/*
 * cn_steal — a program of threads across processes (include/
 * cn_steal.h): the job's members as the clearinghouse lists them, the
 * thief's requests, the victim's books, and the transfers that carry
 * closures and values between processes, each retried until taken or
 * until its other end is lost.  Runs on the event loop's thread only.
 */
#include "cn_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cn_sched.h"
#include "cn_steal.h"
#include "mono.h"

#define NET_DONE_RING	256	/* transfers taken, remembered */
#define NET_XIN_MAX	64	/* transfers arriving at once */
#define NET_ASK_GAP	0.05	/* an unknown sender: members again */
/* Without word of a change (ALIVE), the list is asked for this often. */
#define NET_ASK_ANYWAY	5.0
#define NET_STATS_GAP	0.5
#define NET_HELD_MAX	8	/* newcomers' steals held for the list */

struct xout {
	uint64_t	 xo_id;
	uint32_t	 xo_to;
	uint8_t		 xo_kind;
	struct cn_cont	 xo_k;
	uint16_t	 xo_fn;
	uint64_t	 xo_steal;
	uint8_t		*xo_data;
	uint32_t	 xo_total, xo_acked, xo_sent;
	double		 xo_last;
};

struct xin {
	uint32_t	 xi_from;
	uint64_t	 xi_id;
	uint8_t		 xi_kind;
	struct cn_cont	 xi_k;
	uint16_t	 xi_fn;
	uint64_t	 xi_steal;
	uint8_t		*xi_buf;
	uint32_t	 xi_total, xi_got;
};

struct thief {
	uint32_t	 th_id;
	uint64_t	 th_serial;
	int		 th_gave;
	int		 th_said;	/* root, verbose: its first steal */
};

/* A steal from a member not yet in our list, until the list comes. */
struct held {
	uint32_t	 hd_from;
	uint64_t	 hd_serial;
	struct msg_addr	 hd_addr;
	double		 hd_at;
};

struct cn_net {
	struct cn_ctx	*n_c;
	struct cn_sched	*n_s;		/* NULL until there is one */
	int		 n_own_sched;	/* a worker's: ours to free */
	struct cn_books	 n_books;
	struct cn_member *n_mb;
	uint32_t	 n_nmb;
	uint64_t	 n_version;
	uint64_t	 n_heard;	/* the clearinghouse's, by ALIVE */
	uint32_t	 n_maxid;
	uint8_t		*n_seen;	/* ids ever listed, by id */
	uint32_t	 n_nseen;
	double		 n_last_ask;
	/* Thief. */
	uint64_t	 n_serial;
	int		 n_asking;
	uint32_t	 n_victim;
	double		 n_asked_at, n_next_steal;
	unsigned	 n_nones;
	/* Victim. */
	struct thief	*n_th;
	uint32_t	 n_nth;
	struct held	 n_held[NET_HELD_MAX];
	uint32_t	 n_nheld;
	/* Transfers. */
	struct xout	*n_xo;
	uint32_t	 n_nxo, n_capxo;
	uint64_t	 n_xid;
	struct xin	 n_xi[NET_XIN_MAX];
	uint32_t	 n_nxi;
	struct { uint32_t from; uint64_t id; } n_done[NET_DONE_RING];
	uint32_t	 n_donei;
	/* Counts: ours, and at the root every worker's. */
	uint64_t	 n_st[CN_TSTATS_N];
	uint64_t	 n_st_sent[CN_TSTATS_N];
	double		 n_stats_at;
	uint64_t	(*n_wst)[CN_TSTATS_N];
	uint32_t	 n_nwst;
	uint32_t	 n_workers_lost;
	int		 n_verbose;
	uint8_t		 n_buf[MSG_PAYLOAD_MAX];
	struct cn_member n_tmp[CN_MEMBERS_MAX];
};

static void	pump(struct cn_net *, struct xout *, int);
static void	lend(struct cn_ctx *, uint32_t, uint64_t);

static uint32_t
self_id(const struct cn_net *n)
{
	return n->n_c->c_id;
}

static const struct cn_member *
member(const struct cn_net *n, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < n->n_nmb; i++)
		if (n->n_mb[i].mb_id == id)
			return &n->n_mb[i];
	return NULL;
}

static uint32_t
root_id(const struct cn_net *n)
{
	uint32_t i;

	for (i = 0; i < n->n_nmb; i++)
		if (n->n_mb[i].mb_root)
			return n->n_mb[i].mb_id;
	return 0;
}

/* Listed once, listed no more: lost (ids are never handed out twice). */
static int
gone(const struct cn_net *n, uint32_t id)
{
	return id != 0 && id <= n->n_maxid && member(n, id) == NULL;
}

static void
ssend(struct cn_net *n, uint32_t to, enum cn_steal_handler h,
    const struct cn_smsg *m)
{
	const struct cn_member *mb;
	size_t len;

	if (n->n_c->c_lost || (mb = member(n, to)) == NULL)
		return;
	if ((len = cn_smsg_enc(h, m, n->n_buf, sizeof(n->n_buf))) == 0 ||
	    msg_ep_send(n->n_c->c_ep, &mb->mb_addr, MSG_SCHEME_JOB, h,
	    n->n_buf, len) == -1)
		return;
}

static void
ask_members(struct cn_net *n, double now)
{
	struct cn_smsg m;
	size_t len;

	if (n->n_c->c_id == 0 || n->n_c->c_lost)
		return;
	memset(&m, 0, sizeof(m));
	m.sm_from = n->n_c->c_id;
	m.sm_version = n->n_version;
	if ((len = cn_smsg_enc(CN_H_MEMBERS_ASK, &m, n->n_buf,
	    sizeof(n->n_buf))) > 0)
		(void)msg_ep_send(n->n_c->c_ep, &n->n_c->c_chouse,
		    MSG_SCHEME_USER, CN_H_MEMBERS_ASK, n->n_buf, len);
	n->n_last_ask = now;
}

static void
stats_now(struct cn_net *n)
{
	if (n->n_s != NULL)
		n->n_st[CN_TS_THREADS] = n->n_s->s_threads;
}

/* A worker tells the root its counts, when they changed. */
static void
send_stats(struct cn_net *n, double now)
{
	struct cn_smsg m;
	uint32_t r;

	if (!n->n_c->c_worker || (r = root_id(n)) == 0 || r == self_id(n))
		return;
	stats_now(n);
	if (memcmp(n->n_st, n->n_st_sent, sizeof(n->n_st)) == 0)
		return;
	memset(&m, 0, sizeof(m));
	m.sm_from = self_id(n);
	memcpy(m.sm_stat, n->n_st, sizeof(m.sm_stat));
	ssend(n, r, CN_H_TSTATS, &m);
	memcpy(n->n_st_sent, n->n_st, sizeof(n->n_st));
	n->n_stats_at = now;
}

/*
 * A newcomer's steal, answered when the list that names it comes: it
 * would otherwise ask again only CN_RESEND later, and a new worker's
 * first steal is the one that matters most.  Held is who it says it is
 * under the job key; its address is checked against the list then.
 */
static void
hold(struct cn_net *n, const struct msg_in *in, const struct cn_smsg *m,
    double now)
{
	char name[CN_MEMBER_NAME_MAX];
	struct held *hd;
	uint32_t i;

	cn_member_name(m->sm_from, name);
	if (!msg_verify_sender(in, MSG_SCHEME_JOB, name, NULL))
		return;
	for (i = 0; i < n->n_nheld;)	/* their thieves have asked again */
		if (now - n->n_held[i].hd_at >= CN_RESEND)
			n->n_held[i] = n->n_held[--n->n_nheld];
		else
			i++;
	for (i = 0; i < n->n_nheld; i++)
		if (n->n_held[i].hd_from == m->sm_from)
			break;
	if (i == NET_HELD_MAX)
		return;		/* the rest ask again */
	hd = &n->n_held[i];
	if (i == n->n_nheld)
		n->n_nheld++;
	else if (m->sm_serial <= hd->hd_serial)
		return;
	hd->hd_from = m->sm_from;
	hd->hd_serial = m->sm_serial;
	hd->hd_addr = in->mi_from;
	hd->hd_at = now;
}

/* The sender of a steal message: a member, at its listed address. */
static int
from_member(struct cn_net *n, const struct msg_in *in,
    enum cn_steal_handler h, struct cn_smsg *m)
{
	const struct cn_member *mb;
	char name[CN_MEMBER_NAME_MAX];
	double now;

	if (n->n_c->c_lost || n->n_c->c_id == 0 ||
	    cn_smsg_dec(h, m, in->mi_data, in->mi_len) == -1)
		return 0;
	if ((mb = member(n, m->sm_from)) == NULL) {
		/* A newcomer we have not heard of yet: ask. */
		now = now_mono();
		if (m->sm_from <= n->n_maxid)
			return 0;
		if (h == CN_H_TSTEAL)
			hold(n, in, m, now);
		if (now - n->n_last_ask >= NET_ASK_GAP)
			ask_members(n, now);
		return 0;
	}
	/* Any holder of the job key is the job's; it says which one. */
	cn_member_name(m->sm_from, name);
	return msg_verify_sender(in, MSG_SCHEME_JOB, name, &mb->mb_addr);
}

static struct xout *
xout_new(struct cn_net *n, uint32_t to, uint8_t kind, struct cn_cont k,
    const void *data, size_t len)
{
	struct xout *nx, *x;
	uint32_t cap;

	if (n->n_nxo == n->n_capxo) {
		cap = n->n_capxo ? n->n_capxo * 2 : 32;
		if ((nx = reallocarray(n->n_xo, cap, sizeof(*nx))) == NULL)
			return NULL;
		n->n_xo = nx;
		n->n_capxo = cap;
	}
	x = &n->n_xo[n->n_nxo];
	memset(x, 0, sizeof(*x));
	if ((x->xo_data = malloc(len ? len : 1)) == NULL)
		return NULL;
	if (len > 0)
		memcpy(x->xo_data, data, len);
	n->n_nxo++;
	x->xo_id = ++n->n_xid;
	x->xo_to = to;
	x->xo_kind = kind;
	x->xo_k = k;
	x->xo_total = (uint32_t)len;
	n->n_st[CN_TS_BYTES] += len;
	return x;
}

static void
xout_free(struct cn_net *n, struct xout *x)
{
	free(x->xo_data);
	*x = n->n_xo[--n->n_nxo];
}

/* Chunks from what was sent (all from the last ack if again). */
static void
pump(struct cn_net *n, struct xout *x, int again)
{
	struct cn_smsg m;
	uint32_t off, end;

	if (again || x->xo_sent < x->xo_acked)
		x->xo_sent = x->xo_acked;
	end = x->xo_acked + CN_XFER_WINDOW * CN_XFER_CHUNK;
	if (end > x->xo_total || end < x->xo_acked)
		end = x->xo_total;
	memset(&m, 0, sizeof(m));
	m.sm_from = self_id(n);
	m.sm_serial = x->xo_id;
	m.sm_kind = x->xo_kind;
	m.sm_k = x->xo_k;
	m.sm_fn = x->xo_fn;
	m.sm_steal = x->xo_steal;
	m.sm_total = x->xo_total;
	/* A value of 0 bytes is one empty chunk. */
	for (off = x->xo_sent; off < end || (x->xo_total == 0 &&
	    off == 0 && (again || x->xo_last == 0)); off += m.sm_len) {
		m.sm_off = off;
		m.sm_len = x->xo_total - off < CN_XFER_CHUNK ?
		    x->xo_total - off : CN_XFER_CHUNK;
		m.sm_data = x->xo_data + off;
		ssend(n, x->xo_to, CN_H_XFER, &m);
		if (m.sm_len == 0)
			break;
	}
	if (off > x->xo_sent)
		x->xo_sent = off;
	x->xo_last = now_mono();
}

/* Everything to or from a lost member goes; what it stole runs here. */
static void
rerun(void *arg, const struct cn_book *e)
{
	struct cn_net *n = arg;

	if (cn_sched_push(n->n_s, e->b_fn, e->b_k, e->b_arg, e->b_len) == -1)
		cn_sched_fail(n->n_s, "running a lost thief's closure again",
		    errno);
}

static void
lost(struct cn_net *n, uint32_t id)
{
	uint32_t i, k;

	if (n->n_s != NULL && (k = cn_books_lost(&n->n_books, id, rerun,
	    n)) > 0) {
		n->n_st[CN_TS_LOST]++;
		n->n_st[CN_TS_RERUN] += k;
		if (n->n_verbose)
			fprintf(stderr, "%s: cilknow: worker %u is lost: %u "
			    "closures it stole run again here\n",
			    n->n_c->c_prog->cp_name, id, k);
	}
	for (i = 0; i < n->n_nxo;)
		if (n->n_xo[i].xo_to == id)
			xout_free(n, &n->n_xo[i]);
		else
			i++;
	for (i = 0; i < n->n_nxi;)
		if (n->n_xi[i].xi_from == id) {
			free(n->n_xi[i].xi_buf);
			n->n_xi[i] = n->n_xi[--n->n_nxi];
		} else
			i++;
	if (n->n_asking && n->n_victim == id)
		n->n_asking = 0;
}

/* After a new member list: whatever names a lost member. */
static void
sweep(struct cn_net *n)
{
	uint32_t i;

	for (i = 1; i < n->n_books.bk_n; i++)
		if (n->n_books.bk_e[i].b_used &&
		    gone(n, n->n_books.bk_e[i].b_thief))
			lost(n, n->n_books.bk_e[i].b_thief);
	for (i = 0; i < n->n_nxo; i++)
		if (gone(n, n->n_xo[i].xo_to)) {
			lost(n, n->n_xo[i].xo_to);
			i = (uint32_t)-1;	/* the list changed */
		}
	for (i = 0; i < n->n_nxi; i++)
		if (gone(n, n->n_xi[i].xi_from)) {
			lost(n, n->n_xi[i].xi_from);
			i = (uint32_t)-1;
		}
	if (n->n_asking && gone(n, n->n_victim))
		n->n_asking = 0;
	for (i = 1; i < n->n_nseen && i <= n->n_maxid; i++)
		if (n->n_seen[i] == 1 && member(n, i) == NULL) {
			n->n_seen[i] = 2;
			n->n_workers_lost++;
		}
}

/* The newcomers' held steals whose senders the list now names there. */
static void
lend_held(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;
	const struct cn_member *mb;
	const struct held *hd;
	double now = now_mono();
	uint32_t i;

	for (i = 0; i < n->n_nheld; i++) {
		hd = &n->n_held[i];
		if (now - hd->hd_at < CN_RESEND &&
		    (mb = member(n, hd->hd_from)) != NULL &&
		    msg_addr_eq(&mb->mb_addr, &hd->hd_addr))
			lend(c, hd->hd_from, hd->hd_serial);
	}
	n->n_nheld = 0;
}

void
cn_net_on_members(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct cn_member *nm;
	struct cn_smsg m;
	uint8_t *ns;
	uint32_t i, need;

	(void)ep;
	if (n == NULL || c->c_lost)
		return;
	m.sm_members = n->n_tmp;
	if (!msg_verify_sender(in, MSG_SCHEME_USER, c->c_user,
	    &c->c_chouse) || cn_smsg_dec(CN_H_MEMBERS, &m, in->mi_data,
	    in->mi_len) == -1 || m.sm_version <= n->n_version ||
	    m.sm_maxid < n->n_maxid)
		return;
	if ((nm = reallocarray(n->n_mb, m.sm_nmembers ? m.sm_nmembers : 1,
	    sizeof(*nm))) == NULL)
		return;
	need = m.sm_maxid + 1;
	if (need > n->n_nseen) {
		if ((ns = realloc(n->n_seen, need)) == NULL) {
			n->n_mb = nm;
			return;
		}
		memset(ns + n->n_nseen, 0, need - n->n_nseen);
		n->n_seen = ns;
		n->n_nseen = need;
	}
	n->n_mb = nm;
	memcpy(nm, n->n_tmp, m.sm_nmembers * sizeof(*nm));
	n->n_nmb = m.sm_nmembers;
	n->n_version = m.sm_version;
	n->n_maxid = m.sm_maxid;
	for (i = 0; i < n->n_nmb; i++)
		if (n->n_seen[nm[i].mb_id] == 0)
			n->n_seen[nm[i].mb_id] = 1;
	sweep(n);
	lend_held(c);
}

static struct thief *
thief_of(struct cn_net *n, uint32_t id)
{
	struct thief *nt;
	uint32_t i;

	for (i = 0; i < n->n_nth; i++)
		if (n->n_th[i].th_id == id)
			return &n->n_th[i];
	if ((nt = reallocarray(n->n_th, n->n_nth + 1, sizeof(*nt))) == NULL)
		return NULL;
	n->n_th = nt;
	memset(&nt[n->n_nth], 0, sizeof(*nt));
	nt[n->n_nth].th_id = id;
	return &nt[n->n_nth++];
}

static void
say_none(struct cn_net *n, uint32_t to, uint64_t serial)
{
	struct cn_smsg m;

	memset(&m, 0, sizeof(m));
	m.sm_from = self_id(n);
	m.sm_serial = serial;
	ssend(n, to, CN_H_TNONE, &m);
}

/* A thief asks: our oldest ready closure, lent on the books, or none. */
static void
lend(struct cn_ctx *c, uint32_t from, uint64_t serial)
{
	struct cn_net *n = c->c_net;
	struct cn_closure *cl;
	struct cn_cont bk;
	struct thief *t;
	struct xout *x;
	uint16_t fn;

	if (from == self_id(n) || (t = thief_of(n, from)) == NULL)
		return;
	if (serial < t->th_serial)
		return;			/* old news */
	if (serial == t->th_serial) {
		if (!t->th_gave)
			say_none(n, from, serial);
		return;			/* the closure is on its way */
	}
	t->th_serial = serial;
	t->th_gave = 0;
	if (n->n_s == NULL || c->c_quit || c->c_finished ||
	    (cl = cn_sched_take_oldest(n->n_s, &fn)) == NULL) {
		say_none(n, from, serial);
		return;
	}
	if (cn_books_lend(&n->n_books, from, serial, fn, cl->cl_k,
	    cl->cl_arg, cl->cl_len, &bk) == -1 ||
	    (x = xout_new(n, from, CN_X_CLOSURE, bk, cl->cl_arg,
	    cl->cl_len)) == NULL) {
		if (cn_books_find(&n->n_books, from, serial) != NULL)
			(void)cn_books_lost(&n->n_books, from, NULL, NULL);
		/* Not lent after all: it runs here. */
		if (cn_sched_push(n->n_s, fn, cl->cl_k, cl->cl_arg,
		    cl->cl_len) == -1)
			cn_sched_fail(n->n_s, "keeping a closure", errno);
		cn_closure_free(&n->n_s->s_store, cl);
		say_none(n, from, serial);
		return;
	}
	x->xo_fn = fn;
	x->xo_steal = serial;
	cn_closure_free(&n->n_s->s_store, cl);
	t->th_gave = 1;
	if (n->n_verbose && !c->c_worker && !t->th_said) {
		t->th_said = 1;
		fprintf(stderr, "%s: cilknow: worker %u stole a closure from "
		    "the root\n", c->c_prog->cp_name, from);
	}
	pump(n, x, 0);
}

void
cn_net_on_tsteal(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_smsg m;

	(void)ep;
	m.sm_members = NULL;
	if (c->c_net != NULL && from_member(c->c_net, in, CN_H_TSTEAL, &m))
		lend(c, m.sm_from, m.sm_serial);
}

void
cn_net_on_tnone(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct cn_smsg m;
	double back;

	(void)ep;
	m.sm_members = NULL;
	if (n == NULL || !from_member(n, in, CN_H_TNONE, &m) ||
	    !n->n_asking || m.sm_from != n->n_victim ||
	    m.sm_serial != n->n_serial)
		return;
	n->n_asking = 0;
	n->n_nones++;
	back = n->n_nones <= 1 ? 0 : 0.001 * n->n_nones;
	n->n_next_steal = now_mono() + (back > 0.02 ? 0.02 : back);
}

static void
ack(struct cn_net *n, uint32_t to, uint64_t id, uint32_t acked, int done)
{
	struct cn_smsg m;

	memset(&m, 0, sizeof(m));
	m.sm_from = self_id(n);
	m.sm_serial = id;
	m.sm_acked = acked;
	m.sm_done = (uint8_t)done;
	ssend(n, to, CN_H_XFER_ACK, &m);
}

/* A whole value or closure came: 0 taken (or refused for good). */
static int
take(struct cn_net *n, const struct xin *x)
{
	struct cn_ctx *c = n->n_c;
	struct cn_cont k;

	if (x->xi_kind == CN_X_CLOSURE) {
		if (n->n_s == NULL)
			return -1;	/* not yet: it comes again */
		if (cn_sched_push(n->n_s, x->xi_fn, x->xi_k, x->xi_buf,
		    x->xi_total) == -1) {
			fprintf(stderr, "%s: cilknow: a stolen closure: %s\n",
			    c->c_prog->cp_name, strerror(errno));
			return -1;
		}
		n->n_st[CN_TS_STOLEN]++;
		if (n->n_asking && n->n_victim == x->xi_from &&
		    n->n_serial == x->xi_steal) {
			n->n_asking = 0;
			n->n_nones = 0;
		}
		send_stats(n, now_mono());
		return 0;
	}
	if (n->n_s == NULL)
		return -1;
	k = x->xi_k;
	/* Ours alone: a value is never forwarded on a stranger's word. */
	if (k.k_index == 0 ? !n->n_s->s_root : k.k_owner !=
	    n->n_s->s_store.cs_owner) {
		n->n_st[CN_TS_LATE]++;
		return 0;
	}
	if ((k.k_index & CN_K_BOOK) &&
	    cn_books_take(&n->n_books, x->xi_k, x->xi_from, &k) == -1) {
		n->n_st[CN_TS_LATE]++;	/* struck: re-run, or twice */
		return 0;
	}
	if (cn_send(c, k, x->xi_buf, x->xi_total) == -1) {
		if (errno == ESTALE || errno == EALREADY || errno == ERANGE)
			n->n_st[CN_TS_LATE]++;
		else
			cn_sched_fail(n->n_s, "taking a value", errno);
	}
	return 0;
}

static int
done_before(const struct cn_net *n, uint32_t from, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < NET_DONE_RING; i++)
		if (n->n_done[i].id == id && n->n_done[i].from == from)
			return 1;
	return 0;
}

void
cn_net_on_xfer(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct cn_smsg m;
	struct xin *x = NULL;
	uint32_t i;

	(void)ep;
	m.sm_members = NULL;
	if (n == NULL || !from_member(n, in, CN_H_XFER, &m))
		return;
	if (done_before(n, m.sm_from, m.sm_serial)) {
		ack(n, m.sm_from, m.sm_serial, m.sm_total, 1);
		return;
	}
	for (i = 0; i < n->n_nxi; i++)
		if (n->n_xi[i].xi_from == m.sm_from &&
		    n->n_xi[i].xi_id == m.sm_serial) {
			x = &n->n_xi[i];
			break;
		}
	if (x == NULL) {
		if (m.sm_off != 0 || n->n_nxi == NET_XIN_MAX) {
			ack(n, m.sm_from, m.sm_serial, 0, 0);
			return;
		}
		x = &n->n_xi[n->n_nxi];
		memset(x, 0, sizeof(*x));
		if ((x->xi_buf = malloc(m.sm_total ? m.sm_total : 1)) == NULL)
			return;
		n->n_nxi++;
		x->xi_from = m.sm_from;
		x->xi_id = m.sm_serial;
		x->xi_kind = m.sm_kind;
		x->xi_k = m.sm_k;
		x->xi_fn = m.sm_fn;
		x->xi_steal = m.sm_steal;
		x->xi_total = m.sm_total;
	} else if (x->xi_kind != m.sm_kind || x->xi_total != m.sm_total ||
	    memcmp(&x->xi_k, &m.sm_k, sizeof(m.sm_k)) != 0)
		return;			/* not the same transfer: forged */
	if (m.sm_off == x->xi_got && m.sm_len > 0) {
		memcpy(x->xi_buf + x->xi_got, m.sm_data, m.sm_len);
		x->xi_got += m.sm_len;
	}
	if (x->xi_got < x->xi_total) {
		ack(n, m.sm_from, m.sm_serial, x->xi_got, 0);
		return;
	}
	if (take(n, x) == -1)
		return;
	n->n_done[n->n_donei].from = x->xi_from;
	n->n_done[n->n_donei].id = x->xi_id;
	n->n_donei = (n->n_donei + 1) % NET_DONE_RING;
	ack(n, m.sm_from, m.sm_serial, x->xi_total, 1);
	/* take() may have swept the list: find it again. */
	for (i = 0; i < n->n_nxi; i++)
		if (n->n_xi[i].xi_from == m.sm_from &&
		    n->n_xi[i].xi_id == m.sm_serial) {
			free(n->n_xi[i].xi_buf);
			n->n_xi[i] = n->n_xi[--n->n_nxi];
			break;
		}
}

void
cn_net_on_xfer_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct cn_smsg m;
	struct xout *x;
	uint32_t i;

	(void)ep;
	m.sm_members = NULL;
	if (n == NULL || !from_member(n, in, CN_H_XFER_ACK, &m))
		return;
	for (i = 0; i < n->n_nxo; i++) {
		x = &n->n_xo[i];
		if (x->xo_to != m.sm_from || x->xo_id != m.sm_serial)
			continue;
		if (m.sm_done) {
			xout_free(n, x);
			return;
		}
		if (m.sm_acked > x->xo_total)
			return;
		if (m.sm_acked > x->xo_acked) {
			x->xo_acked = m.sm_acked;
			pump(n, x, 0);
		} else
			/* No progress (a chunk lost, or no room there): from
			 * the last ack again, at the next resend. */
			x->xo_sent = x->xo_acked;
		return;
	}
}

void
cn_net_on_tstats(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	uint64_t (*nw)[CN_TSTATS_N];
	struct cn_smsg m;
	uint32_t i;

	(void)ep;
	m.sm_members = NULL;
	if (n == NULL || c->c_worker || !from_member(n, in, CN_H_TSTATS, &m))
		return;
	if (m.sm_from >= n->n_nwst) {
		if ((nw = reallocarray(n->n_wst, m.sm_from + 1,
		    sizeof(*nw))) == NULL)
			return;
		memset(nw + n->n_nwst, 0, (m.sm_from + 1 - n->n_nwst) *
		    sizeof(*nw));
		n->n_wst = nw;
		n->n_nwst = m.sm_from + 1;
	}
	/* Counts only grow: the larger, whatever order they came in. */
	for (i = 0; i < CN_TSTATS_N; i++)
		if (m.sm_stat[i] > n->n_wst[m.sm_from][i])
			n->n_wst[m.sm_from][i] = m.sm_stat[i];
}

/* The scheduler's hook: a value for another process. */
static int
remote(void *arg, struct cn_cont k, const void *p, size_t len)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct xout *x;
	uint32_t to;

	if (c->c_lost)
		return 0;	/* the identity that would send it is gone */
	to = k.k_index == 0 || k.k_owner == 0 ? root_id(n) : k.k_owner;
	if (to == self_id(n) || (to == 0 && !c->c_worker)) {
		errno = (k.k_index & CN_K_BOOK) ? EPERM : ESTALE;
		return -1;
	}
	if (gone(n, to))
		return 0;	/* its closure is redone by its victim */
	if (to == root_id(n))
		send_stats(n, now_mono());	/* before the value */
	if (to == 0) {
		errno = EAGAIN;	/* no closure can be here before members */
		return -1;
	}
	if ((x = xout_new(n, to, CN_X_VALUE, k, p, len)) == NULL)
		return -1;
	n->n_st[CN_TS_SENDS]++;
	pump(n, x, 0);
	return 0;
}

static void
steal_now(struct cn_net *n, double now)
{
	struct cn_smsg m;
	uint32_t k, i, pick, me = self_id(n);

	if (n->n_nmb < 2)
		return;
	pick = randombytes_uniform(n->n_nmb - 1);
	for (i = 0, k = 0; i < n->n_nmb; i++) {
		if (n->n_mb[i].mb_id == me)
			continue;
		if (k++ == pick)
			break;
	}
	if (i == n->n_nmb)
		return;
	n->n_victim = n->n_mb[i].mb_id;
	n->n_asking = 1;
	n->n_serial++;
	n->n_asked_at = now;
	memset(&m, 0, sizeof(m));
	m.sm_from = me;
	m.sm_serial = n->n_serial;
	ssend(n, n->n_victim, CN_H_TSTEAL, &m);
	n->n_st[CN_TS_ATTEMPTS]++;
}

int
cn_net_idle(void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_net *n = c->c_net;
	struct cn_smsg m;
	double now = now_mono(), wait = CN_TICK;
	int rc;

	if (c->c_failed || c->c_finished || c->c_lost || n == NULL)
		return -1;
	/* Nothing ready here: a thief, for the useful-worker estimate. */
	atomic_store(&c->c_beat_want, CN_BEAT_STARVED);
	if (n->n_asking && now - n->n_asked_at >= CN_RESEND) {
		memset(&m, 0, sizeof(m));
		m.sm_from = self_id(n);
		m.sm_serial = n->n_serial;
		ssend(n, n->n_victim, CN_H_TSTEAL, &m);
		n->n_asked_at = now;
	}
	if (!n->n_asking && !c->c_quit && n->n_s != NULL && c->c_id != 0 &&
	    now >= n->n_next_steal)
		steal_now(n, now);
	if (n->n_asking)
		wait = CN_RESEND - (now - n->n_asked_at);
	else if (n->n_next_steal > now)
		wait = n->n_next_steal - now;
	if (wait > CN_TICK)
		wait = CN_TICK;
	if (wait < 0)
		wait = 0;
	rc = cn_link_look(c, wait);
	if (n->n_s != NULL && n->n_s->s_nready > 0)
		atomic_store(&c->c_beat_want, CN_BEAT_BUSY);
	return rc;
}

void
cn_net_tick(struct cn_ctx *c, double now)
{
	struct cn_net *n = c->c_net;
	uint32_t i;

	if (n == NULL || c->c_lost || c->c_id == 0)
		return;
	/*
	 * The list when the clearinghouse says it changed (or we have
	 * none), bounded by NET_ASK_GAP; every NET_ASK_ANYWAY regardless,
	 * should a reply and the ALIVEs after it be lost.
	 */
	if (((n->n_heard > n->n_version || n->n_nmb == 0) &&
	    now - n->n_last_ask >= NET_ASK_GAP) ||
	    now - n->n_last_ask >= NET_ASK_ANYWAY)
		ask_members(n, now);
	for (i = 0; i < n->n_nxo; i++)
		if (now - n->n_xo[i].xo_last >= CN_RESEND)
			pump(n, &n->n_xo[i], 1);
	if (now - n->n_stats_at >= NET_STATS_GAP)
		send_stats(n, now);
}

void
cn_member_name(uint32_t id, char name[CN_MEMBER_NAME_MAX])
{
	(void)snprintf(name, CN_MEMBER_NAME_MAX, "w%u", (unsigned)id);
}

void
cn_net_members_at(struct cn_ctx *c, uint64_t version)
{
	if (c->c_net != NULL && version > c->c_net->n_heard)
		c->c_net->n_heard = version;
}

int
cn_net_open(struct cn_ctx *c)
{
	const char *v = getenv("CILKNOW_STATS");

	if ((c->c_net = calloc(1, sizeof(*c->c_net))) == NULL)
		return -1;
	c->c_net->n_c = c;
	c->c_net->n_verbose = v != NULL && strcmp(v, "1") == 0;
	cn_books_init(&c->c_net->n_books, 0);
	return 0;
}

void
cn_net_attach(struct cn_ctx *c, struct cn_sched *s, uint32_t owner)
{
	struct cn_net *n = c->c_net;

	if (n == NULL)
		return;
	n->n_s = s;
	s->s_store.cs_owner = owner;
	n->n_books.bk_owner = owner;
	s->s_root = !c->c_worker;
	s->s_remote = remote;
	s->s_net = c;
	if (!c->c_worker)
		s->s_idle = cn_net_idle;
}

void
cn_net_detach(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;

	if (n == NULL || n->n_s == NULL)
		return;
	stats_now(n);
	n->n_s = NULL;
}

/* A worker's scheduler, made when it is welcomed. */
static void
worker_sched(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;
	struct cn_sched *s;

	if (n == NULL || n->n_s != NULL || c->c_id == 0)
		return;
	if ((s = malloc(sizeof(*s))) == NULL)
		return;
	cn_sched_init(s, c, c->c_tprog, CN_BUDGET, CN_LAZY);
	s->s_poll = cn_sched_poll;
	s->s_poll_arg = c;
	n->n_own_sched = 1;
	cn_net_attach(c, s, c->c_id);
}

void
cn_net_welcome(struct cn_ctx *c)
{
	if (c->c_net == NULL)
		return;
	if (c->c_worker)
		worker_sched(c);
	ask_members(c->c_net, now_mono());
}

/* Given up for lost: everything of the old identity goes. */
void
cn_net_reset(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;
	uint32_t i;

	if (n == NULL)
		return;
	if (n->n_own_sched && n->n_s != NULL) {
		cn_sched_fini(n->n_s);
		free(n->n_s);
		n->n_s = NULL;
		n->n_own_sched = 0;
	}
	cn_books_fini(&n->n_books);
	cn_books_init(&n->n_books, 0);
	while (n->n_nxo > 0)
		xout_free(n, &n->n_xo[0]);
	for (i = 0; i < n->n_nxi; i++)
		free(n->n_xi[i].xi_buf);
	n->n_nxi = 0;
	free(n->n_th);
	n->n_th = NULL;
	n->n_nth = 0;
	n->n_asking = 0;
	n->n_nheld = 0;
	memset(n->n_done, 0, sizeof(n->n_done));
	/* A new identity takes the list as it is now, whatever its version. */
	n->n_version = n->n_heard = 0;
}

/*
 * Given up for lost with a thread on the stack: nothing more of the old
 * identity's runs (what is ready is dropped; cn_net_reset frees it).
 */
void
cn_net_abandon(struct cn_ctx *c)
{
	if (c->c_net != NULL && c->c_net->n_s != NULL &&
	    c->c_net->n_own_sched)
		c->c_net->n_s->s_nready = 0;
}

/* A worker's turn: run what is ready, else steal and listen. */
int
cn_net_work(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;

	if (n != NULL && n->n_s != NULL && n->n_s->s_nready > 0 &&
	    !c->c_lost) {
		atomic_store(&c->c_beat_want, CN_BEAT_BUSY);
		c->c_running = 1;
		cn_sched_drain(n->n_s);
		c->c_running = 0;
		if (n->n_s->s_failed) {
			fprintf(stderr, "%s: cilknow: %s\n",
			    c->c_prog->cp_name, n->n_s->s_why);
			n->n_s->s_failed = 0;
		}
		send_stats(n, now_mono());
		return cn_link_look(c, 0);
	}
	if (n == NULL || n->n_s == NULL)
		return cn_link_look(c, CN_TICK);
	(void)cn_net_idle(c);
	return 0;
}

uint32_t
cn_net_members(const struct cn_ctx *c)
{
	return c->c_net != NULL ? c->c_net->n_nmb : 0;
}

uint32_t
cn_net_thieves(const struct cn_ctx *c)
{
	const struct cn_net *n = c->c_net;
	uint32_t i, k = 0;

	for (i = 0; n != NULL && i < n->n_nth; i++)
		if (member(n, n->n_th[i].th_id) != NULL)
			k++;
	return k;
}

void
cn_net_stats(struct cn_ctx *c, struct cn_stats *st)
{
	struct cn_net *n = c->c_net;
	uint64_t t[CN_TSTATS_N];
	uint32_t i, j;

	if (n == NULL)
		return;
	stats_now(n);
	memcpy(t, n->n_st, sizeof(t));
	t[CN_TS_THREADS] = c->c_thread_threads;
	for (i = 0; i < n->n_nwst; i++) {
		for (j = 0; j < CN_TSTATS_N; j++)
			t[j] += n->n_wst[i][j];
		if (n->n_verbose && (n->n_wst[i][CN_TS_THREADS] > 0 ||
		    n->n_wst[i][CN_TS_ATTEMPTS] > 0))
			fprintf(stderr, "%s: cilknow: worker %u: %llu threads "
			    "run, %llu closures stolen, %llu steal attempts, "
			    "%llu non-local sends, %llu bytes moved, %llu "
			    "closures re-run\n", c->c_prog->cp_name, i,
			    (unsigned long long)n->n_wst[i][CN_TS_THREADS],
			    (unsigned long long)n->n_wst[i][CN_TS_STOLEN],
			    (unsigned long long)n->n_wst[i][CN_TS_ATTEMPTS],
			    (unsigned long long)n->n_wst[i][CN_TS_SENDS],
			    (unsigned long long)n->n_wst[i][CN_TS_BYTES],
			    (unsigned long long)n->n_wst[i][CN_TS_RERUN]);
	}
	st->cs_threads_all = t[CN_TS_THREADS];
	st->cs_stolen = t[CN_TS_STOLEN];
	st->cs_attempts = t[CN_TS_ATTEMPTS];
	st->cs_sends = t[CN_TS_SENDS];
	st->cs_bytes = t[CN_TS_BYTES];
	st->cs_lost = n->n_workers_lost;
	st->cs_rerun = t[CN_TS_RERUN];
	st->cs_late = t[CN_TS_LATE];
}

void
cn_net_close(struct cn_ctx *c)
{
	struct cn_net *n = c->c_net;

	if (n == NULL)
		return;
	cn_net_reset(c);
	cn_books_fini(&n->n_books);
	free(n->n_xo);
	free(n->n_mb);
	free(n->n_seen);
	free(n->n_wst);
	free(n);
	c->c_net = NULL;
}
