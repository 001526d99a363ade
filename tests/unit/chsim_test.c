/*
 * chsim — a deterministic simulation of the clearinghouse protocol.
 * CilkChouse's own handlers and books (chouse.c, cn_tree.c, cn_wire.c)
 * run against simulated workers that follow the runtime's rules
 * (cn_link.c, step for step) over a network that loses, duplicates,
 * reorders and delays messages, while workers join, crash, are stopped
 * and continued, and are told to leave, at any step — in the middle of
 * a task too.  Each seed must end with the exact answer, and the books'
 * invariant (cn.h, cn_tree_check) must hold after every event.  Broken
 * variants of the worker's rules (the bugs of issue 11) must be caught.
 *
 * cpu: thousands of simulated seeds, 20 s under AddressSanitizer
 *
 *   chsim_test                 5000 seeds and the broken variants
 *   chsim_test -n N            N seeds
 *   chsim_test -s SEED [-v]    one seed, with a trace (-v: and logs)
 *   chsim_test -b VARIANT ...  a broken variant: midtask, seq
 *
 * Workers share hosts as a node's slots do (one address, a port each,
 * one node manager, names "hostH" and "hostH/k"); the last tests drive
 * the handlers by hand: a thief prefers work from its own host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cn.h"
#include "log.h"
#include "proto_proc.h"
#include "tap.h"
#include "../../daemons/CilkChouse/chouse.h"
#include "../../src/runtime/cn_rt.h"	/* the runtime's timings */

#define W_MAX		12		/* worker processes, the root too */
#define DQ_MAX		4096
#define T_LIMIT		3000.0		/* simulated seconds */
#define EV_LIMIT	3000000
#define NM		100		/* party NM + i: worker i's node manager */

enum variant { V_NONE, V_MIDTASK, V_SEQ };

/* A task: depth and a value; leaves add leafval(x). */
struct task {
	uint32_t	t_depth;
	uint32_t	t_x;
};

struct pkt {
	double		 p_at;
	int		 p_to;		/* 0 the clearinghouse, else a worker */
	int		 p_from;	/* or NM + i: worker i's node manager */
	uint16_t	 p_type;
	size_t		 p_len;
	uint8_t		*p_data;
};

struct wk {
	int		 alive, started;
	int		 root;
	struct msg_addr	 addr;
	char		 node[64];
	struct msg_addr	 nodemgr;	/* family 0: none to ask; a host's */
	int		 machine_down;	/* its node manager is gone too */
	double		 mute_from, mute_until;	/* what it says is lost */
	double		 speed;		/* seconds a half-task takes */
	double		 stopped_until;
	double		 next_step, next_tick, next_beat;
	/* cn_link's state, by the same names. */
	uint32_t	 id, beat_id;
	int		 have_unit, lost, stop, quit, leave_sent, finished;
	uint32_t	 unit, attempt, nexports;
	struct cn_frame	 dq[DQ_MAX];
	size_t		 lo, hi;
	int64_t		 sum;
	struct cn_frame	 outq[DQ_MAX];
	size_t		 noutq;
	uint16_t	 inflight;
	uint64_t	 seq;
	uint8_t		 out[MSG_PAYLOAD_MAX];	/* the batch in flight */
	size_t		 outlen;
	int		 done_sent;
	int		 intask;	/* a task is on the stack */
	struct task	 cur;
	double		 last_reg, last_steal, last_out, last_done;
	double		 last_heard;
	/* Faults planned for it. */
	double		 crash_at, stop_at, stop_for, quit_at;
};

struct sim {
	uint64_t	 rng;
	double		 now;
	enum variant	 variant;
	int		 verbose;
	/* The network. */
	struct pkt	*net;
	size_t		 nnet, capnet;
	double		 p_loss, p_dup, p_slow;
	/* The parties. */
	struct chouse	*h;
	struct msg_addr	 h_addr;
	double		 h_next_tick, h_deaf_until;
	int		 over;
	struct wk	 w[W_MAX];
	int		 nw;
	/* The job. */
	uint32_t	 branch, depth;
	int64_t		 want;
	int		 answered;
	int64_t		 answer;
	const char	*broken;	/* the books' invariant */
	uint64_t	 events, lost, redone, stopped, crashed, quits;
	uint64_t	 near;		/* units that moved within a host */
};

static struct sim S;

static uint64_t
rnd(void)
{
	uint64_t z = (S.rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double
unif(void)
{
	return (double)(rnd() >> 11) / (double)(1ULL << 53);
}

static void
trace(const char *fmt, ...)
{
	va_list ap;

	if (!S.verbose)
		return;
	printf("# %9.4f ", S.now);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int64_t
leafval(uint32_t x)
{
	return (int64_t)(x * 2654435761u % 1000) + 1;
}

static int64_t
expected(uint32_t depth, uint32_t x)
{
	int64_t s = 0;
	uint32_t i;

	if (depth == 0)
		return leafval(x);
	for (i = 1; i <= S.branch; i++)
		s += expected(depth - 1, x * S.branch + i);
	return s;
}

static uint64_t
leaves(uint32_t branch, uint32_t depth)
{
	uint64_t n = 1;

	while (depth-- > 0)
		n *= branch;
	return n;
}

static struct cn_frame
frame_of(struct task t)
{
	struct cn_frame f;

	memset(&f, 0, sizeof(f));
	f.fr_len = sizeof(t);
	memcpy(f.fr_arg, &t, sizeof(t));
	return f;
}

static struct task
task_of(const struct cn_frame *f)
{
	struct task t;

	memcpy(&t, f->fr_arg, sizeof(t));
	return t;
}

/* ---- the network ---- */

static void
net_put(int from, int to, uint16_t type, const uint8_t *p, size_t len)
{
	struct pkt *np;
	int copies = 1, i;

	if (unif() < S.p_loss)
		return;
	if (from > 0 && from < NM && S.now >= S.w[from].mute_from &&
	    S.now < S.w[from].mute_until)
		return;
	if (unif() < S.p_dup)
		copies = 2;
	for (i = 0; i < copies; i++) {
		if (S.nnet == S.capnet) {
			S.capnet = S.capnet ? S.capnet * 2 : 256;
			if ((np = reallocarray(S.net, S.capnet,
			    sizeof(*np))) == NULL)
				abort();
			S.net = np;
		}
		np = &S.net[S.nnet++];
		np->p_at = S.now + 0.0001 + unif() * 0.005 +
		    (unif() < S.p_slow ? unif() * 2.0 : 0);
		np->p_from = from;
		np->p_to = to;
		np->p_type = type;
		np->p_len = len;
		if ((np->p_data = malloc(len ? len : 1)) == NULL)
			abort();
		memcpy(np->p_data, p, len);
	}
}

static int
addr_party(const struct msg_addr *a)
{
	int i;

	if (msg_addr_eq(a, &S.h_addr))
		return 0;
	for (i = 1; i < S.nw; i++) {
		if (msg_addr_eq(a, &S.w[i].addr))
			return i;
		if (S.w[i].nodemgr.ma_family != 0 &&
		    msg_addr_eq(a, &S.w[i].nodemgr))
			return NM + i;
	}
	return -1;
}

/* The clearinghouse's io. */
static int
io_send(void *arg, const struct msg_addr *to, uint16_t t,
    const uint8_t *p, size_t len)
{
	int party = addr_party(to);

	(void)arg;
	if (party <= 0)
		return -1;
	net_put(0, party, t, p, len);
	return 0;
}

static double
io_now(void *arg)
{
	(void)arg;
	return S.now;
}

static uint32_t
io_uniform(void *arg, uint32_t n)
{
	(void)arg;
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void
io_over(void *arg)
{
	(void)arg;
	S.over = 1;
}

static const struct ch_io sim_io = { NULL, io_send, io_now, io_uniform,
    io_over };

/* ---- a worker, by cn_link.c's rules ---- */

static void
w_send(struct wk *w, enum cn_handler t, const struct cn_msg *m)
{
	uint8_t buf[MSG_PAYLOAD_MAX];
	size_t len;

	if (w->lost)
		return;
	if ((len = cn_msg_enc(t, m, buf, sizeof(buf))) == 0)
		abort();
	net_put((int)(w - S.w), 0, t, buf, len);
}

static void
m_zero(struct cn_msg *m)
{
	memset(m, 0, offsetof(struct cn_msg, cm_frames));
}

static void
w_small(struct wk *w, enum cn_handler t, uint32_t id)
{
	struct cn_msg m;

	m_zero(&m);
	m.cm_worker = id;
	w_send(w, t, &m);
}

static void
w_register(struct wk *w)
{
	struct cn_msg m;

	m_zero(&m);
	m.cm_root = (uint8_t)w->root;
	m.cm_seq = (uint64_t)(w - S.w) + 1000;
	strlcpy(m.cm_node, w->node, sizeof(m.cm_node));
	m.cm_nodemgr = w->nodemgr;
	if (w->root) {
		m.cm_nframes = 1;
		m.cm_frames[0] = frame_of((struct task){ S.depth, 0 });
	}
	w_send(w, CN_H_REGISTER, &m);
	w->last_reg = S.now;
}

static size_t
pending(const struct wk *w)
{
	return w->hi - w->lo;
}

static void
push(struct wk *w, struct task t)
{
	if (w->hi == DQ_MAX) {
		memmove(w->dq, w->dq + w->lo, pending(w) * sizeof(w->dq[0]));
		w->hi -= w->lo;
		w->lo = 0;
		if (w->hi == DQ_MAX)
			abort();
	}
	w->dq[w->hi++] = frame_of(t);
}

static void
export_next(struct wk *w)
{
	struct cn_msg m;
	size_t n, i;

	if (w->inflight > 0 || w->noutq == 0 || w->id == 0 || w->lost)
		return;
	n = w->noutq < CN_EXPORT_MAX ? w->noutq : CN_EXPORT_MAX;
	m_zero(&m);
	m.cm_worker = w->id;
	m.cm_unit = w->unit;
	m.cm_attempt = w->attempt;
	m.cm_seq = ++w->seq;
	m.cm_nframes = (uint16_t)n;
	for (i = 0; i < n; i++)
		m.cm_frames[i] = w->outq[i];
	w->inflight = (uint16_t)n;
	if ((w->outlen = cn_msg_enc(CN_H_EXPORT, &m, w->out,
	    sizeof(w->out))) == 0)
		abort();
	net_put((int)(w - S.w), 0, CN_H_EXPORT, w->out, w->outlen);
	w->last_out = S.now;
}

/* The same batch under the same number, as cn_link resends it. */
static void
resend_export(struct wk *w)
{
	if (!w->lost)
		net_put((int)(w - S.w), 0, CN_H_EXPORT, w->out, w->outlen);
	w->last_out = S.now;
}

static void
hand_back(struct wk *w)
{
	while (pending(w) > 0)
		w->outq[w->noutq++] = w->dq[w->lo++];
	w->lo = w->hi = 0;
	export_next(w);
}

static void
send_done(struct wk *w)
{
	struct cn_msg m;

	m_zero(&m);
	m.cm_worker = w->id;
	m.cm_unit = w->unit;
	m.cm_attempt = w->attempt;
	m.cm_count = w->nexports;
	m.cm_sum = w->sum;
	w_send(w, CN_H_DONE, &m);
	w->last_done = S.now;
}

static void
done_maybe(struct wk *w)
{
	if (!w->have_unit || w->intask || w->done_sent || w->lost ||
	    w->noutq > 0 || w->inflight > 0 || pending(w) > 0 || w->id == 0)
		return;
	w->done_sent = 1;
	send_done(w);
}

static void
unit_clear(struct wk *w)
{
	w->have_unit = w->done_sent = w->stop = 0;
	w->sum = 0;
	w->nexports = 0;
	w->noutq = 0;
	w->inflight = 0;
	w->lo = w->hi = 0;
}

static void
rejoin(struct wk *w)
{
	unit_clear(w);
	w->lost = 0;
	w->id = w->beat_id = 0;
	if (S.variant != V_SEQ)
		w->seq = 0;
	w_register(w);
}

static void
steal(struct wk *w)
{
	if (w->have_unit || w->quit || w->id == 0 || w->finished)
		return;
	w_small(w, CN_H_STEAL, w->id);
	w->last_steal = S.now;
}

static void
w_die(struct wk *w, const char *why)
{
	trace("worker %d (id %u) %s", (int)(w - S.w), w->id, why);
	w->alive = 0;
}

static void
leave_maybe(struct wk *w)
{
	if (!w->quit)
		return;
	if (w->have_unit || w->id == 0) {
		if (w->id == 0)
			w_die(w, "leaves: never joined");
		return;
	}
	w_small(w, CN_H_LEAVE, w->id);
	w->leave_sent = 1;
}

static void
w_receive(struct wk *w, const struct pkt *p)
{
	struct cn_msg *m = &S.h->h_msg;	/* big: borrow the chouse's */
	struct cn_msg mine;
	uint32_t n;

	if (w->lost || cn_msg_dec(p->p_type, m, p->p_data, p->p_len) == -1)
		return;
	w->last_heard = S.now;
	switch (p->p_type) {
	case CN_H_WELCOME:
		if (w->id != 0 || m->cm_worker == 0)
			return;
		w->id = w->beat_id = m->cm_worker;
		if (w->have_unit)
			export_next(w);
		else
			steal(w);
		return;
	case CN_H_ASSIGN:
		if (w->id == 0 || w->have_unit)
			return;
		unit_clear(w);
		w->dq[w->hi++] = m->cm_frames[0];
		w->have_unit = 1;
		w->unit = m->cm_unit;
		w->attempt = m->cm_attempt;
		if (w->quit) {
			w->stop = 1;
			hand_back(w);
		}
		return;
	case CN_H_GIVE:
		if (w->id == 0)
			return;
		n = m->cm_count;
		if (w->have_unit && !w->stop && w->inflight == 0)
			while (n-- > 0 && pending(w) >= 2)
				w->outq[w->noutq++] = w->dq[w->lo++];
		if (w->noutq > 0) {
			export_next(w);
			return;
		}
		m_zero(&mine);
		mine.cm_worker = w->id;
		w_send(w, CN_H_EXPORT, &mine);
		return;
	case CN_H_EXPORT_ACK:
		if (w->inflight == 0 || m->cm_seq != w->seq)
			return;
		w->nexports += w->inflight;
		memmove(w->outq, w->outq + w->inflight,
		    (w->noutq - w->inflight) * sizeof(w->outq[0]));
		w->noutq -= w->inflight;
		w->inflight = 0;
		export_next(w);
		done_maybe(w);
		return;
	case CN_H_DONE_ACK:
		if (!w->done_sent || m->cm_unit != w->unit ||
		    m->cm_attempt != w->attempt)
			return;
		unit_clear(w);
		leave_maybe(w);
		steal(w);
		return;
	case CN_H_FINISH:
		if (!w->root) {
			w_die(w, "is told the job is over");
			return;
		}
		if (!w->finished) {
			w->finished = 1;
			S.answered = 1;
			S.answer = m->cm_sum;
			trace("the root has the answer %lld",
			    (long long)m->cm_sum);
		}
		w_small(w, CN_H_FINISH_ACK, w->id);
		return;
	case CN_H_GONE:
		if (w->id == 0 || m->cm_worker != w->id)
			return;
		if (w->quit) {
			w_die(w, "left");
			return;
		}
		if (w->root)
			abort();	/* the root is never given up */
		trace("worker %d (id %u) hears it was given up%s",
		    (int)(w - S.w), w->id, w->intask ? " mid-task" : "");
		w->beat_id = 0;
		if (w->intask && S.variant != V_MIDTASK) {
			w->lost = 1;
			w->stop = 1;
			return;
		}
		rejoin(w);
		return;
	case CN_H_RESULT:	/* no records in this job */
	default:
		return;
	}
}

/* One half of a task: what happens between two looks at the network. */
static void
w_step(struct wk *w)
{
	struct task t, k;
	uint32_t i, half;

	if (w->intask) {
		t = w->cur;
		w->intask = 0;
		if (t.t_depth == 0)
			w->sum += leafval(t.t_x);
		else {
			half = S.branch / 2;
			for (i = half + 1; i <= S.branch; i++) {
				k.t_depth = t.t_depth - 1;
				k.t_x = t.t_x * S.branch + i;
				push(w, k);
			}
		}
		if (w->lost) {
			rejoin(w);	/* the stack is unwound */
			return;
		}
		if (w->stop) {
			hand_back(w);
			return;
		}
		return;
	}
	if (w->have_unit && !w->stop && pending(w) > 0) {
		t = task_of(&w->dq[--w->hi]);
		if (w->hi == w->lo)
			w->lo = w->hi = 0;
		w->cur = t;
		w->intask = 1;
		if (t.t_depth > 0) {
			half = S.branch / 2;
			for (i = 1; i <= half; i++) {
				k.t_depth = t.t_depth - 1;
				k.t_x = t.t_x * S.branch + i;
				push(w, k);
			}
		}
		return;
	}
	if (w->stop && pending(w) > 0)
		hand_back(w);
	done_maybe(w);
}

static void
w_tick(struct wk *w)
{
	if (w->lost)
		return;
	if (!w->root && S.now - w->last_heard > CN_SILENCE) {
		w_die(w, "hears nothing: gives up");
		return;
	}
	if (w->id == 0) {
		if (S.now - w->last_reg >= CN_RESEND)
			w_register(w);
		return;
	}
	if (w->inflight > 0 && S.now - w->last_out >= CN_RESEND)
		resend_export(w);
	if (w->done_sent && S.now - w->last_done >= CN_RESEND)
		send_done(w);
	if (w->quit) {
		leave_maybe(w);
		return;
	}
	if (!w->have_unit && S.now - w->last_steal >= CN_RESEND)
		steal(w);
	/* The root's heartbeat comes from its event loop (cn_link.c). */
	if (w->root && S.now - w->next_beat >= CN_HEARTBEAT) {
		w_small(w, CN_H_HEARTBEAT, w->id);
		w->next_beat = S.now;
	}
}

static void
w_quit(struct wk *w)
{
	trace("worker %d (id %u) is told to leave", (int)(w - S.w), w->id);
	w->quit = 1;
	S.quits++;
	w->stop = 1;
	if (w->have_unit)
		hand_back(w);
	leave_maybe(w);
}

/* ---- a node manager: what its kernel says of the worker ---- */

static void
nm_receive(int i, const struct pkt *p)
{
	struct wk *w = NULL;
	struct proto_proc a;
	uint8_t buf[16];
	size_t len;
	uint32_t pid;
	int j;

	if (p->p_type != PROTO_H_PROC_ASK ||
	    proto_proc_ask_dec(&pid, p->p_data, p->p_len) == -1)
		return;
	/* The host's node manager knows each of the host's workers. */
	for (j = 1; j < S.nw; j++)
		if (pid == (uint32_t)(j + 1000) &&
		    msg_addr_eq(&S.w[j].nodemgr, &S.w[i].nodemgr))
			w = &S.w[j];
	if (w != NULL && w->machine_down)
		return;
	a.pp_pid = pid;
	a.pp_state = w == NULL || !w->alive ?
	    PROTO_PROC_NONE : S.now < w->stopped_until ? PROTO_PROC_STOPPED :
	    PROTO_PROC_RUNNING;
	if ((len = proto_proc_enc(&a, buf, sizeof(buf))) == 0)
		abort();
	net_put(NM + i, 0, PROTO_H_PROC, buf, len);
}

/* ---- the clearinghouse ---- */

static void
h_receive(const struct pkt *p)
{
	const struct msg_handler *tab = ch_table();
	struct msg_in in;

	memset(&in, 0, sizeof(in));
	in.mi_scheme = MSG_SCHEME_USER;
	if (p->p_from >= NM) {
		in.mi_name = MSG_CLUSTER_NAME;	/* a daemon signs so */
		in.mi_from = S.w[p->p_from - NM].nodemgr;
	} else {
		in.mi_name = "sim";
		in.mi_from = S.w[p->p_from].addr;
	}
	in.mi_data = p->p_data;
	in.mi_len = p->p_len;
	if (p->p_type < CH_HANDLERS && tab[p->p_type].mh_fn != NULL)
		tab[p->p_type].mh_fn(NULL, &in, S.h);
}

static void
check_books(void)
{
	const char *why;

	if (S.broken == NULL && (why = cn_tree_check(&S.h->h_tree)) != NULL)
		S.broken = why;
}

/* ---- one run ---- */

static void
setup(uint64_t seed, enum variant v)
{
	struct chouse *h;
	int i, nhosts, nm[W_MAX], slots[W_MAX] = { 0 };

	for (i = 0; i < (int)S.nnet; i++)
		free(S.net[i].p_data);
	free(S.net);
	if (S.h != NULL) {
		cn_tree_fini(&S.h->h_tree);
		free(S.h->h_w);
		free(S.h->h_results);
		free(S.h->h_victims);
		free(S.h);
	}
	memset(&S, 0, sizeof(S));
	S.rng = seed * 0x2545f4914f6cdd1dULL + 1;
	S.variant = v;
	S.p_loss = unif() < 0.2 ? 0 : unif() * 0.3;
	S.p_dup = unif() * 0.1;
	S.p_slow = unif() * 0.05;
	S.branch = 2 + (uint32_t)(rnd() % 3);
	S.depth = 4 + (uint32_t)(rnd() % 3);
	while (S.depth > 3 && leaves(S.branch, S.depth) > 2048)
		S.depth--;	/* a few thousand tasks at most */
	S.want = expected(S.depth, 0);
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    cn_tree_init(&h->h_tree) == -1 ||
	    (h->h_w = calloc(16, sizeof(*h->h_w))) == NULL)
		abort();
	h->h_capw = 16;
	h->h_nw = 1;
	h->h_timeout = 3;
	h->h_jm_fd = -1;
	h->h_report_fd = -1;
	h->h_user = "sim";
	h->h_io = &sim_io;
	ch_attach(h);
	S.h = h;
	S.h_addr.ma_family = 4;
	S.h_addr.ma_addr[0] = 10;
	S.h_addr.ma_port = 1;
	S.nw = 2 + (int)(rnd() % (W_MAX - 1));
	nhosts = 1 + (int)(rnd() % (uint64_t)(S.nw - 1));
	for (i = 0; i < nhosts; i++)
		nm[i] = unif() < 0.8;
	for (i = 1; i < S.nw; i++) {
		struct wk *w = &S.w[i];
		int host = (int)(rnd() % (uint64_t)nhosts);

		w->root = i == 1;
		/* A host's slots: one address, a port each. */
		w->addr.ma_family = 4;
		w->addr.ma_addr[0] = 10;
		w->addr.ma_addr[3] = (uint8_t)(host + 1);
		w->addr.ma_port = (uint16_t)(100 + i);
		if (slots[host]++ == 0)
			snprintf(w->node, sizeof(w->node), "host%d", host + 1);
		else
			snprintf(w->node, sizeof(w->node), "host%d/%d",
			    host + 1, slots[host] - 1);
		/* Most hosts have a node manager to ask about them. */
		if (nm[host]) {
			w->nodemgr = w->addr;
			w->nodemgr.ma_addr[2] = 1;
			w->nodemgr.ma_port = PROTO_NODE_PORT;
		}
		w->mute_from = w->mute_until = -1;
		/* Seconds per half-task: most fast, some slow as a loaded
		 * machine or a long task makes them. */
		w->speed = 0.002 + unif() * (unif() < 0.2 ? 0.5 : 0.02);
		/* The root computes from the start; others come later. */
		w->next_step = w->root ? 0 : unif() * 3;
		w->next_tick = w->next_step;
		w->next_beat = w->next_step;
		w->last_heard = w->next_step;
		w->crash_at = w->stop_at = w->quit_at = -1;
		if (!w->root) {
			double r = unif();

			if (r < 0.25) {
				w->crash_at = w->next_step + unif() * 8;
				w->machine_down = unif() < 0.5;
			} else if (r < 0.35) {
				/* Alive, but its words are lost a while. */
				w->mute_from = w->next_step + unif() * 8;
				w->mute_until = w->mute_from + unif() * 40;
			}
			else if (r < 0.6) {
				w->stop_at = w->next_step + unif() * 8;
				w->stop_for = 0.5 + unif() * 8;
			} else if (r < 0.75)
				w->quit_at = w->next_step + unif() * 8;
		}
		if (w->root) {
			w->alive = w->started = 1;
			w->have_unit = 1;
			w->unit = w->attempt = 1;
			push(w, (struct task){ S.depth, 0 });
			w_register(w);
		}
	}
	S.h_next_tick = CH_TICK;
}

/* The next thing to happen, and when. */
enum ev { E_NONE, E_PKT, E_HTICK, E_WSTEP, E_WTICK, E_WBEAT, E_WSTART,
	E_FAULT };

static double
next_event(enum ev *e, int *who, size_t *pkt)
{
	double best = 1e300, t;
	size_t i;
	int k;

	*e = E_NONE;
	for (i = 0; i < S.nnet; i++)
		if (S.net[i].p_at < best) {
			best = S.net[i].p_at;
			*e = E_PKT;
			*pkt = i;
		}
	t = S.h_next_tick > S.h_deaf_until ? S.h_next_tick : S.h_deaf_until;
	if (t < best) {
		best = t;
		*e = E_HTICK;
	}
	for (k = 1; k < S.nw; k++) {
		struct wk *w = &S.w[k];
		double go = w->stopped_until;

		if (!w->alive) {
			if (!w->root && !w->started && w->next_step < best) {
				best = w->next_step;
				*e = E_WSTART;
				*who = k;
			}
			continue;
		}
		if ((t = w->crash_at) >= 0 && t < best) {
			best = t; *e = E_FAULT; *who = k;
		}
		if ((t = w->stop_at) >= 0 && t < best) {
			best = t; *e = E_FAULT; *who = k;
		}
		if ((t = w->quit_at) >= 0 && t < best) {
			best = t; *e = E_FAULT; *who = k;
		}
		if ((t = w->next_step > go ? w->next_step : go) < best) {
			best = t; *e = E_WSTEP; *who = k;
		}
		if ((t = w->next_tick > go ? w->next_tick : go) < best) {
			best = t; *e = E_WTICK; *who = k;
		}
		if (!w->root &&
		    (t = w->next_beat > go ? w->next_beat : go) < best) {
			best = t; *e = E_WBEAT; *who = k;
		}
	}
	return best;
}

static void
fault(struct wk *w)
{
	if (w->crash_at >= 0 && w->crash_at <= S.now) {
		w->crash_at = -1;
		S.crashed++;
		w_die(w, "crashes");
	} else if (w->stop_at >= 0 && w->stop_at <= S.now) {
		w->stop_at = -1;
		S.stopped++;
		w->stopped_until = S.now + w->stop_for;
		/* Deaf while stopped: that time is not the chouse's silence. */
		w->last_heard += w->stop_for;
		trace("worker %d (id %u) stopped for %.2f s", (int)(w - S.w),
		    w->id, w->stop_for);
	} else if (w->quit_at >= 0 && w->quit_at <= S.now) {
		w->quit_at = -1;
		w_quit(w);
	}
}

/* 0 the answer is right, 1 wrong, 2 did not finish, 3 broken books. */
static int
run(uint64_t seed, enum variant v)
{
	enum ev e;
	int who = 0;
	size_t pi = 0;
	struct pkt p;
	struct wk *w;

	setup(seed, v);
	while (!S.over && S.events < EV_LIMIT && S.broken == NULL) {
		S.now = next_event(&e, &who, &pi);
		if (S.now > T_LIMIT || e == E_NONE)
			break;
		S.events++;
		switch (e) {
		case E_PKT:
			p = S.net[pi];
			S.net[pi] = S.net[--S.nnet];
			if (p.p_to == 0) {
				if (S.now < S.h_deaf_until) {
					p.p_at = S.h_deaf_until;  /* queued */
					S.net[S.nnet++] = p;
					continue;
				}
				h_receive(&p);
				check_books();
			} else if (p.p_to >= NM) {
				nm_receive(p.p_to - NM, &p);
			} else {
				w = &S.w[p.p_to];
				if (!w->alive)
					;
				else if (S.now < w->stopped_until) {
					p.p_at = w->stopped_until;
					S.net[S.nnet++] = p;
					continue;
				} else
					w_receive(w, &p);
			}
			free(p.p_data);
			break;
		case E_HTICK:
			S.h_next_tick = S.now + CH_TICK;
			/* Now and then the clearinghouse is not scheduled. */
			if (unif() < 0.002)
				S.h_deaf_until = S.now + unif() * 4;
			ch_tick(S.h);
			check_books();
			break;
		case E_WSTART:
			w = &S.w[who];
			w->alive = w->started = 1;
			w->next_tick = w->next_beat = S.now;
			w->last_heard = S.now;
			w_register(w);
			break;
		case E_FAULT:
			fault(&S.w[who]);
			break;
		case E_WSTEP:
			w = &S.w[who];
			w->next_step = S.now + w->speed * (0.5 + unif());
			w_step(w);
			break;
		case E_WTICK:
			w = &S.w[who];
			w->next_tick = S.now + CN_TICK;
			w_tick(w);
			break;
		case E_WBEAT:
			w = &S.w[who];
			w->next_beat = S.now + CN_HEARTBEAT;
			if (w->beat_id != 0)
				w_small(w, CN_H_HEARTBEAT, w->beat_id);
			break;
		case E_NONE:
			break;
		}
	}
	S.lost += S.h->h_tree.t_reissued;
	S.redone = S.h->h_tree.t_reissued;
	S.near = S.h->h_near;
	if (S.broken != NULL)
		return 3;
	if (!S.answered)
		return 2;
	return S.answer == S.want ? 0 : 1;
}

static const char *const outcome[] = { "right", "WRONG ANSWER",
	"did not finish", "books broken" };

static enum variant
variant_of(const char *s)
{
	if (strcmp(s, "midtask") == 0)
		return V_MIDTASK;
	if (strcmp(s, "seq") == 0)
		return V_SEQ;
	fprintf(stderr, "chsim: no variant %s (midtask, seq)\n", s);
	exit(2);
}

static void
quiet(int on)
{
	static int saved = -1;
	int fd;

	if (on && saved == -1 && (fd = open("/dev/null", O_WRONLY)) != -1) {
		fflush(stderr);
		saved = dup(2);
		(void)dup2(fd, 2);
		close(fd);
	} else if (!on && saved != -1) {
		fflush(stderr);
		(void)dup2(saved, 2);
		close(saved);
		saved = -1;
	}
}

/* Seeds first..first+n-1: counts of each outcome; the first failure. */
static void
sweep(uint64_t first, uint64_t n, enum variant v, uint64_t count[4],
    uint64_t *bad_seed, uint64_t *redone, uint64_t *stopped, uint64_t *near,
    int stop_at_bad)
{
	uint64_t s;
	int r;

	memset(count, 0, 4 * sizeof(count[0]));
	*bad_seed = 0;
	quiet(1);
	for (s = first; s < first + n; s++) {
		r = run(s, v);
		count[r]++;
		*redone += S.redone > 0;
		*stopped += S.stopped;
		*near += S.near;
		if (r != 0 && *bad_seed == 0) {
			*bad_seed = s;
			if (stop_at_bad)
				break;
		}
	}
	quiet(0);
}

/* ---- by hand: the handlers, one message at a time ---- */

/* Worker i says t to the clearinghouse, at once. */
static void
say(int i, enum cn_handler t, const struct cn_msg *m)
{
	uint8_t buf[MSG_PAYLOAD_MAX];
	struct pkt p;

	memset(&p, 0, sizeof(p));
	p.p_from = i;
	p.p_type = t;
	p.p_data = buf;
	if ((p.p_len = cn_msg_enc(t, m, buf, sizeof(buf))) == 0)
		abort();
	h_receive(&p);
}

static void
say_small(int i, enum cn_handler t)
{
	struct cn_msg m;

	m_zero(&m);
	m.cm_worker = S.w[i].id;
	say(i, t, &m);
}

/* What the clearinghouse sent since the last look: to whom, of type t. */
static int
sent(uint16_t t, int to[], int max)
{
	size_t i;
	int n = 0;

	for (i = 0; i < S.nnet; i++) {
		if (S.net[i].p_type == t && n < max)
			to[n++] = S.net[i].p_to;
		free(S.net[i].p_data);
	}
	S.nnet = 0;
	return n;
}

/*
 * The last message of type t sent to worker i since the last look,
 * decoded into the clearinghouse's h_msg: 1, or 0 if there is none.
 */
static int
last_to(int i, enum cn_handler t)
{
	int found = 0;
	size_t k;

	for (k = 0; k < S.nnet; k++)
		if (S.net[k].p_type == t && S.net[k].p_to == i &&
		    cn_msg_dec(t, &S.h->h_msg, S.net[k].p_data,
		    S.net[k].p_len) == 0)
			found = 1;
	return found;
}

/* The id the last WELCOME gave worker i (0: none). */
static uint32_t
welcomed(int i)
{
	return last_to(i, CN_H_WELCOME) ? S.h->h_msg.cm_worker : 0;
}

/*
 * A clearinghouse with nw - 1 workers, none on the network: worker i
 * on host hosts[i] (its node "hostH", or "hostH/k" for its host's k-th
 * further worker), the root first; each joins, none has asked for work.
 */
static void
by_hand(int nw, const int hosts[])
{
	int i, slots[W_MAX] = { 0 };
	struct wk *w;

	setup(1, V_NONE);
	(void)sent(0, NULL, 0);
	S.p_loss = S.p_dup = S.p_slow = 0;
	S.nw = nw;
	for (i = 1; i < nw; i++) {
		w = &S.w[i];
		w->addr.ma_addr[3] = (uint8_t)hosts[i];
		w->addr.ma_port = (uint16_t)(100 + i);
		memset(&w->nodemgr, 0, sizeof(w->nodemgr));
		if (slots[hosts[i]]++ == 0)
			snprintf(w->node, sizeof(w->node), "host%d", hosts[i]);
		else
			snprintf(w->node, sizeof(w->node), "host%d/%d",
			    hosts[i], slots[hosts[i]] - 1);
	}
}

/* Worker i's REGISTER, as by_hand's workers send it. */
static void
register_msg(int i, struct cn_msg *m)
{
	m_zero(m);
	m->cm_root = (uint8_t)S.w[i].root;
	m->cm_seq = (uint64_t)i + 1000;
	strlcpy(m->cm_node, S.w[i].node, sizeof(m->cm_node));
	if (S.w[i].root) {
		m->cm_nframes = 1;
		m->cm_frames[0] = frame_of((struct task){ 3, 0 });
	}
}

static void
join_all(int nw)
{
	struct cn_msg m;
	int i;

	for (i = 1; i < nw; i++) {
		register_msg(i, &m);
		say(i, CN_H_REGISTER, &m);
		S.w[i].id = welcomed(i);
		(void)sent(0, NULL, 0);
	}
}

/* Every victim may be asked again: no GIVE outstanding. */
static void
forget_gives(void)
{
	uint32_t i;

	for (i = 1; i < S.h->h_nw; i++)
		S.h->h_w[i].w_give_sent = 0;
}

/* Worker i exports one frame of the unit it runs (seq: its batch). */
static void
export_one(int i, uint32_t unit, uint64_t seq)
{
	struct cn_msg m;

	m_zero(&m);
	m.cm_worker = S.w[i].id;
	m.cm_unit = unit;
	m.cm_attempt = 1;
	m.cm_seq = seq;
	m.cm_nframes = 1;
	m.cm_frames[0] = frame_of((struct task){ 1, (uint32_t)(7 + seq) });
	say(i, CN_H_EXPORT, &m);
}

/*
 * Two workers on one host (3 and 4, host 1) beside a remote one (2,
 * host 2) and the root (host 3).  The thief 4 asks its host's worker
 * when it may; goes elsewhere at once when that one has nothing or is
 * idle itself; and a unit exported on its host goes to it before an
 * idle thief elsewhere.
 */
static void
test_near(void)
{
	static const int hosts[] = { 0, 3, 2, 1, 1 };
	int to[W_MAX], n, i, draws = 1000, local = 0, remote = 0, k;
	struct ch_worker *hw;

	by_hand(5, hosts);
	join_all(5);
	hw = S.h->h_w;
	ok(S.h->h_live == 4 && hw[3].w_host == hw[4].w_host &&
	    hw[2].w_host != hw[3].w_host && hw[1].w_host != hw[3].w_host &&
	    hw[1].w_host != hw[2].w_host,
	    "four workers on three hosts: 3 and 4 share one (%u %u %u %u)",
	    hw[1].w_host, hw[2].w_host, hw[3].w_host, hw[4].w_host);
	for (i = 0; i < draws; i++) {
		forget_gives();
		say_small(4, CN_H_STEAL);
		if (sent(CN_H_GIVE, to, W_MAX) == 1)
			local += to[0] == 3;
		S.now += 0.01;
	}
	ok(local * 100 > draws * 95, "a thief asks the worker on its own "
	    "host when it may: %d of %d draws (>95%%)", local, draws);
	/* The local worker has nothing to give: elsewhere, at once. */
	for (i = 0; i < draws; i++) {
		forget_gives();
		S.h->h_w[3].w_empty_until = 0;
		say_small(4, CN_H_STEAL);
		(void)sent(CN_H_GIVE, to, W_MAX);
		say_small(3, CN_H_EXPORT);	/* unnumbered: nothing */
		n = sent(CN_H_GIVE, to, W_MAX);
		remote += n == 1 && (to[0] == 1 || to[0] == 2);
		S.now += 0.1;
	}
	ok(remote == draws, "when it has nothing, the thief asks a remote "
	    "worker at once: %d of %d", remote, draws);
	/* The local worker is idle itself: elsewhere, both of them. */
	forget_gives();
	say_small(3, CN_H_STEAL);
	n = sent(CN_H_GIVE, to, W_MAX);
	forget_gives();
	say_small(4, CN_H_STEAL);
	n += sent(CN_H_GIVE, to + n, W_MAX - n);
	for (i = 0, k = 0; i < n; i++)
		k += to[i] == 3 || to[i] == 4;
	ok(n >= 2 && k == 0, "two idle workers of one host ask remote "
	    "workers (%d GIVEs, %d to an idle one)", n, k);

	/* The pool: a unit exported on host 1 goes to host 1's thief. */
	by_hand(5, (const int[]){ 0, 3, 2, 1, 1 });
	join_all(5);
	export_one(1, 1, 1);		/* the root's frame: unit 2 */
	say_small(3, CN_H_STEAL);	/* ... runs on 3 */
	(void)sent(0, NULL, 0);
	ok(S.h->h_w[3].w_unit == 2, "worker 3 runs unit 2 (%u)",
	    S.h->h_w[3].w_unit);
	say_small(2, CN_H_STEAL);	/* idle: host 2 */
	say_small(4, CN_H_STEAL);	/* idle: host 1 */
	(void)sent(0, NULL, 0);
	export_one(3, 2, 1);		/* unit 3, from host 1 */
	n = sent(CN_H_ASSIGN, to, W_MAX);
	ok(n == 1 && to[0] == 4 && S.h->h_w[4].w_unit == 3 &&
	    S.h->h_w[2].w_idle, "a unit exported on a host goes to that "
	    "host's idle worker first (to %d)", n == 1 ? to[0] : -1);
	export_one(1, 1, 2);		/* the root's: unit 4, host 3 */
	n = sent(CN_H_ASSIGN, to, W_MAX);
	ok(n == 1 && to[0] == 2 && S.h->h_w[2].w_unit == 4, "a unit with "
	    "no idle worker on its host goes to one elsewhere at once "
	    "(to %d)", n == 1 ? to[0] : -1);
	ok(S.h->h_near == 1 && S.h->h_tree.t_migrated == 3 &&
	    cn_tree_check(&S.h->h_tree) == NULL,
	    "the books count 3 migrations, 1 within a host (%llu, %llu)",
	    (unsigned long long)S.h->h_tree.t_migrated,
	    (unsigned long long)S.h->h_near);
}

/* The member list's version in the last ALIVE sent to worker i (0: none). */
static uint64_t
alive_version(int i)
{
	uint64_t v = last_to(i, CN_H_ALIVE) ? S.h->h_msg.cm_seq : 0;

	(void)sent(0, NULL, 0);
	return v;
}

/*
 * A heartbeat's ALIVE says the member list's version, so that a worker
 * asks for the list only when it has changed: the same while nobody
 * comes or goes, higher once one joins.
 */
static void
test_alive_version(void)
{
	static const int hosts[] = { 0, 1, 2, 3 };
	struct cn_msg m;
	uint64_t v1, v2, v3;

	by_hand(4, hosts);
	join_all(3);
	say_small(1, CN_H_HEARTBEAT);
	v1 = alive_version(1);
	say_small(2, CN_H_HEARTBEAT);
	v2 = alive_version(2);
	ok(v1 != 0 && v1 == v2, "ALIVE carries the member list's version, "
	    "the same to every worker (%llu, %llu)", (unsigned long long)v1,
	    (unsigned long long)v2);
	register_msg(3, &m);
	say(3, CN_H_REGISTER, &m);
	S.w[3].id = welcomed(3);
	(void)sent(0, NULL, 0);
	say_small(1, CN_H_HEARTBEAT);
	v3 = alive_version(1);
	ok(v3 > v1, "a member joins: the next ALIVE says a higher version "
	    "(%llu > %llu)", (unsigned long long)v3, (unsigned long long)v1);
	say_small(1, CN_H_HEARTBEAT);
	ok(alive_version(1) == v3, "nobody comes or goes: the same version");
}

/*
 * Membership: two workers of one host are two members, and a new
 * process at a worker's address (its port taken again) is a new
 * member while the old one's work is redone.
 */
static void
test_members(void)
{
	static const int hosts[] = { 0, 2, 1, 1 };
	struct cn_msg m;
	uint32_t old;

	by_hand(4, hosts);
	join_all(4);
	ok(S.h->h_live == 3 && S.w[2].id != S.w[3].id && S.w[2].id != 0 &&
	    S.w[3].id != 0, "two workers from one address, each its own "
	    "port, are two members (ids %u, %u; %u workers)", S.w[2].id,
	    S.w[3].id, S.h->h_live);
	/* A repeat from the same process: the same answer. */
	m_zero(&m);
	m.cm_seq = 3 + 1000;
	strlcpy(m.cm_node, S.w[3].node, sizeof(m.cm_node));
	say(3, CN_H_REGISTER, &m);
	ok(welcomed(3) == S.w[3].id && S.h->h_live == 3,
	    "a repeated REGISTER gets the same id (%u)", welcomed(3));
	(void)sent(0, NULL, 0);
	/* Worker 3 runs a unit, dies; another process gets its port. */
	export_one(1, 1, 1);
	say_small(3, CN_H_STEAL);
	(void)sent(0, NULL, 0);
	old = S.w[3].id;
	m.cm_seq = 3 + 5000;
	say(3, CN_H_REGISTER, &m);
	S.w[3].id = welcomed(3);
	(void)sent(0, NULL, 0);
	ok(S.w[3].id != 0 && S.w[3].id != old && S.h->h_w[old].w_gone &&
	    S.h->h_live == 3 && S.h->h_tree.t_reissued == 1,
	    "another process at a worker's address is a new member (%u, "
	    "was %u), and the old one's unit is redone (%llu)", S.w[3].id,
	    old, (unsigned long long)S.h->h_tree.t_reissued);
	ok(S.h->h_w[S.w[3].id].w_host == S.h->h_w[S.w[2].id].w_host,
	    "on the same host as before");
}

/*
 * The job's executable: a worker whose digest is not the root's is
 * answered WELCOME 0 and is no member; one with the root's joins.
 */
static void
test_exe(void)
{
	static const int hosts[] = { 0, 1, 2, 3 };
	struct cn_msg m;
	uint32_t id;
	int to[4], n;

	by_hand(4, hosts);
	join_all(3);
	(void)sent(0, NULL, 0);
	m_zero(&m);
	m.cm_seq = 3 + 1000;
	strlcpy(m.cm_node, S.w[3].node, sizeof(m.cm_node));
	m.cm_exe[5] = 1;
	say(3, CN_H_REGISTER, &m);
	id = welcomed(3);
	n = sent(CN_H_WELCOME, to, 4);
	ok(n == 1 && to[0] == 3 && id == 0, "a worker running another "
	    "executable is answered worker 0 (%d answers, id %u)", n, id);
	ok(S.h->h_live == 2, "and is no member (%u workers)", S.h->h_live);
	(void)sent(0, NULL, 0);
	m.cm_exe[5] = 0;
	say(3, CN_H_REGISTER, &m);
	ok(welcomed(3) != 0 && S.h->h_live == 3,
	    "the same worker with the job's executable joins (id %u)",
	    welcomed(3));
}

/* The last WELCOME to worker i, decoded into m; 0 if none. */
static int
welcome_of(int i, struct cn_msg *m)
{
	size_t k;
	int got = 0;

	for (k = 0; k < S.nnet; k++)
		if (S.net[k].p_type == CN_H_WELCOME && S.net[k].p_to == i &&
		    cn_msg_dec(CN_H_WELCOME, m, S.net[k].p_data,
		    S.net[k].p_len) == 0)
			got = 1;
	return got;
}

/*
 * The job key (cn.h): each process admitted has it in its WELCOME,
 * sealed to the public key its REGISTER brought, and only that
 * process's secret key opens it; every process gets the same key; a
 * process refused gets none.
 */
static void
test_job_key(void)
{
	static const int hosts[] = { 0, 1, 2, 3 };
	uint8_t pk[4][CN_BOX_PK], sk[4][CN_BOX_PK];
	uint8_t key[4][CN_JOB_KEY];
	struct cn_msg m, w;
	uint32_t keyid[4];
	int i, opened[4], wrong = 1;

	by_hand(4, hosts);
	join_all(1);
	for (i = 1; i < 4; i++) {
		crypto_box_keypair(pk[i], sk[i]);
		register_msg(i, &m);
		memcpy(m.cm_box_pk, pk[i], sizeof(pk[i]));
		if (i == 3)
			m.cm_exe[0] = 1;	/* refused: another executable */
		say(i, CN_H_REGISTER, &m);
		keyid[i] = 0;
		opened[i] = 0;
		if (welcome_of(i, &w)) {
			keyid[i] = w.cm_keyid;
			opened[i] = crypto_box_seal_open(key[i], w.cm_sealed,
			    sizeof(w.cm_sealed), pk[i], sk[i]) == 0;
			if (i == 2)
				wrong = crypto_box_seal_open(key[0],
				    w.cm_sealed, sizeof(w.cm_sealed), pk[1],
				    sk[1]) == 0;
		}
		(void)sent(0, NULL, 0);
	}
	ok(opened[1] && opened[2] && keyid[1] != 0 && keyid[1] == keyid[2],
	    "the root and a worker each open the job key sealed to them "
	    "(key id %u)", keyid[1]);
	ok(memcmp(key[1], key[2], CN_JOB_KEY) == 0, "the same key");
	ok(!wrong, "another process's secret key does not open it");
	ok(!opened[3] && keyid[3] == 0, "a process refused is given no key");
}

/* beats(want, n): n rounds: workers 2 and 3 beat saying want, a tick. */
static void
beats(uint64_t want, int n)
{
	struct cn_msg m;
	int i, k;

	for (i = 0; i < n; i++) {
		for (k = 2; k <= 3; k++) {
			m_zero(&m);
			m.cm_worker = S.w[k].id;
			m.cm_stat[1] = want;
			say(k, CN_H_HEARTBEAT, &m);
		}
		S.now += CH_TICK;
		ch_tick(S.h);
		(void)sent(0, NULL, 0);
	}
}

/*
 * A program of threads: its workers' heartbeats say whether they have
 * work, and thieves with nothing for a whole window cap the job at the
 * busy ones (the root, rounded up); busy again, the cap is lifted.
 */
static void
test_beat_useful(void)
{
	static const int hosts[] = { 0, 1, 2, 3 };

	by_hand(4, hosts);
	join_all(4);
	(void)sent(0, NULL, 0);
	beats(CN_BEAT_STARVED, CN_USEFUL_WINDOW + 1);
	is_int(S.h->h_useful.uw_cap, 1, "two starving thieves and a busy "
	    "root: the job can use 1 worker");
	beats(CN_BEAT_QUIET, CN_USEFUL_WINDOW + 1);
	is_int(S.h->h_useful.uw_cap, 1, "a quiet heartbeat (a program of "
	    "tasks, whose STEALs speak) changes nothing");
	beats(CN_BEAT_BUSY, CN_USEFUL_WINDOW + 1);
	is_int(S.h->h_useful.uw_cap, 0, "all busy: no cap");
}

int
main(int argc, char *argv[])
{
	uint64_t n = 5000, seed = 0, count[4], bad, redone = 0, stopped = 0;
	uint64_t near = 0;
	enum variant v = V_NONE;
	const char *env;
	int ch, r;

	log_init(1, "chsim", 0);
	if ((env = getenv("CHSIM_SEEDS")) != NULL)
		n = strtoull(env, NULL, 10);
	while ((ch = getopt(argc, argv, "b:n:s:v")) != -1)
		switch (ch) {
		case 'b':
			v = variant_of(optarg);
			break;
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'v':
			log_setverbose(1);
			break;
		default:
			fprintf(stderr, "usage: chsim_test [-b variant] "
			    "[-n seeds | -s seed [-v]]\n");
			return 2;
		}
	if (seed != 0) {
		S.verbose = 1;
		r = run(seed, v);
		printf("seed %llu: %s (answer %lld, want %lld%s%s); %llu "
		    "events, %.1f s simulated, %d workers, branch %u depth "
		    "%u, loss %.2f dup %.2f, %llu redone\n",
		    (unsigned long long)seed, outcome[r],
		    (long long)S.answer, (long long)S.want,
		    S.broken ? "; " : "", S.broken ? S.broken : "",
		    (unsigned long long)S.events, S.now, S.nw - 1, S.branch,
		    S.depth, S.p_loss, S.p_dup,
		    (unsigned long long)S.redone);
		return r == 0 ? 0 : 1;
	}
	sweep(1, n, v, count, &bad, &redone, &stopped, &near, 0);
	ok(count[0] == n, "%llu seeds: %llu right, %llu wrong answers, %llu "
	    "did not finish, %llu broke the books' invariant",
	    (unsigned long long)n, (unsigned long long)count[0],
	    (unsigned long long)count[1], (unsigned long long)count[2],
	    (unsigned long long)count[3]);
	if (bad != 0)
		printf("#   first failing seed %llu: replay with "
		    "chsim_test -s %llu\n", (unsigned long long)bad,
		    (unsigned long long)bad);
	ok(redone > n / 10 && stopped > n / 10, "the faults happened: in %llu "
	    "seeds work was redone, %llu workers were stopped",
	    (unsigned long long)redone, (unsigned long long)stopped);
	ok(near > 0, "units moved between workers of one host (%llu)",
	    (unsigned long long)near);
	if (v != V_NONE)
		return tap_failed ? 1 : 0;
	/* Each broken variant of the worker's rules must be caught. */
	sweep(1, n, V_MIDTASK, count, &bad, &redone, &stopped, &near, 1);
	ok(bad != 0, "a worker that drops its unit mid-task is caught "
	    "(seed %llu: %s)", (unsigned long long)bad,
	    count[1] ? outcome[1] : count[2] ? outcome[2] : outcome[3]);
	sweep(1, n, V_SEQ, count, &bad, &redone, &stopped, &near, 1);
	ok(bad != 0, "a worker that keeps its export numbering when it "
	    "joins again is caught (seed %llu: %s)",
	    (unsigned long long)bad,
	    count[1] ? outcome[1] : count[2] ? outcome[2] : outcome[3]);
	quiet(1);
	test_near();
	test_members();
	test_alive_version();
	test_exe();
	test_job_key();
	test_beat_useful();
	quiet(0);
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
