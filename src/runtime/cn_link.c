/*
 * cn_link — a worker's (and the root's) side of the clearinghouse
 * protocol: join, ask for work when idle, give the oldest frames away
 * when asked, report each finished unit, hand everything back on
 * SIGQUIT.  Every request is repeated until answered, and every answer
 * is safe to receive twice (cn.h, CilkChouse(8)).
 */
#include "cn_rt.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "cli.h"
#include "cn_steal.h"
#include "mono.h"
#include "msg_keyring.h"

static void
say(const struct cn_ctx *c, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", c->c_prog->cp_name);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
}

static void
send_msg(struct cn_ctx *c, enum cn_handler h, const struct cn_msg *m)
{
	size_t len;

	if (c->c_lost)
		return;		/* the old identity says nothing more */
	if ((len = cn_msg_enc(h, m, c->c_buf, sizeof(c->c_buf))) == 0 ||
	    msg_ep_send(c->c_ep, &c->c_chouse, MSG_SCHEME_USER, h, c->c_buf,
	    len) == -1)
		return;
}

static void
send_register(struct cn_ctx *c)
{
	struct cn_msg *m = &c->c_msg;
	const char *node = getenv("CILKNOW_NODE"), *nm;

	memset(m, 0, offsetof(struct cn_msg, cm_frames));
	m->cm_root = !c->c_worker;
	m->cm_seq = (uint64_t)getpid();
	strlcpy(m->cm_node, node ? node : "root", sizeof(m->cm_node));
	/* Where the clearinghouse may ask whether we still exist. */
	if ((nm = getenv("CILKNOW_NODE_MANAGER")) != NULL &&
	    msg_addr_parse(&m->cm_nodemgr, nm, PROTO_NODE_PORT) == -1)
		memset(&m->cm_nodemgr, 0, sizeof(m->cm_nodemgr));
	if (m->cm_root) {
		m->cm_nframes = 1;
		m->cm_frames[0] = c->c_root_frame;
	}
	memcpy(m->cm_box_pk, c->c_box_pk, sizeof(m->cm_box_pk));
	/* Unreadable: all zeros, which no other process of the job has. */
	if (cn_exe_digest(m->cm_exe) == -1 && !c->c_exe_said) {
		c->c_exe_said = 1;
		say(c, "cilknow: reading /proc/self/exe: %s", strerror(errno));
	}
	send_msg(c, CN_H_REGISTER, m);
	c->c_last_reg = now_mono();
}

static void
send_small(struct cn_ctx *c, enum cn_handler h)
{
	struct cn_msg m;

	memset(&m, 0, offsetof(struct cn_msg, cm_frames));
	m.cm_worker = c->c_id;
	m.cm_stat[0] = c->c_tasks;
	send_msg(c, h, &m);
}

/* The next batch of frames leaves, if none is in flight. */
static void
export_next(struct cn_ctx *c)
{
	struct cn_msg *m = &c->c_msg;
	size_t n, i;

	if (c->c_inflight > 0 || c->c_noutq == 0 || c->c_id == 0 ||
	    c->c_lost)
		return;
	n = c->c_noutq < CN_EXPORT_MAX ? c->c_noutq : CN_EXPORT_MAX;
	memset(m, 0, offsetof(struct cn_msg, cm_frames));
	m->cm_worker = c->c_id;
	m->cm_unit = c->c_unit;
	m->cm_attempt = c->c_attempt;
	m->cm_seq = ++c->c_seq;
	m->cm_nframes = (uint16_t)n;
	for (i = 0; i < n; i++)
		m->cm_frames[i] = c->c_outq[i];
	if ((c->c_outlen = cn_msg_enc(CN_H_EXPORT, m, c->c_out,
	    sizeof(c->c_out))) == 0)
		return;
	c->c_inflight = (uint16_t)n;
	(void)msg_ep_send(c->c_ep, &c->c_chouse, MSG_SCHEME_USER,
	    CN_H_EXPORT, c->c_out, c->c_outlen);
	c->c_last_out = now_mono();
}

static int
outq_add(struct cn_ctx *c, const struct cn_frame *f)
{
	struct cn_frame *nq;
	size_t cap;

	if (c->c_noutq == c->c_capoutq) {
		cap = c->c_capoutq ? c->c_capoutq * 2 : 64;
		if ((nq = reallocarray(c->c_outq, cap, sizeof(*nq))) == NULL)
			return -1;
		c->c_outq = nq;
		c->c_capoutq = cap;
	}
	c->c_outq[c->c_noutq++] = *f;
	return 0;
}

/* Every pending frame leaves: a hand-back. */
static void
hand_back(struct cn_ctx *c)
{
	struct cn_frame f;

	while (cn_local_take_oldest(c, &f) == 0)
		if (outq_add(c, &f) == -1) {
			/* Keep it: better run it here than lose it. */
			(void)cn_local_push(c, &f);
			break;
		}
	export_next(c);
}

/* The unit is over here: once every export is taken, say so. */
static void
done_maybe(struct cn_ctx *c)
{
	struct cn_msg *m = &c->c_msg;

	/* Not while a task runs: part of the unit is on the C stack. */
	if (!c->c_have_unit || c->c_running || c->c_done_sent || c->c_lost ||
	    c->c_noutq > 0 ||
	    c->c_inflight > 0 || cn_local_pending(c) > 0 || c->c_id == 0)
		return;
	memset(m, 0, offsetof(struct cn_msg, cm_frames));
	m->cm_worker = c->c_id;
	m->cm_unit = c->c_unit;
	m->cm_attempt = c->c_attempt;
	m->cm_count = c->c_nexports;
	m->cm_sum = c->c_pub.cp_sum;
	m->cm_stat[0] = c->c_tasks;
	m->cm_data = c->c_rec;
	m->cm_len = c->c_nrec;
	if ((c->c_donelen = cn_msg_enc(CN_H_DONE, m, c->c_done,
	    sizeof(c->c_done))) == 0) {
		say(c, "cilknow: %s", "a unit's result does not fit in a "
		    "message");
		return;
	}
	c->c_done_sent = 1;
	(void)msg_ep_send(c->c_ep, &c->c_chouse, MSG_SCHEME_USER, CN_H_DONE,
	    c->c_done, c->c_donelen);
	c->c_last_done = now_mono();
}

static void
unit_clear(struct cn_ctx *c)
{
	c->c_have_unit = 0;
	c->c_done_sent = 0;
	c->c_flush = 0;
	c->c_stop = 0;
	c->c_pub.cp_sum = 0;
	c->c_nrec = 0;
	c->c_nexports = 0;
	c->c_noutq = 0;
	c->c_inflight = 0;
	c->c_lo = c->c_hi = 0;
}

/*
 * We were given up for lost: our unit is redone elsewhere and our old
 * identity is fenced.  Everything of the old worker goes (its unit, its
 * frames, its export numbering), and we join as a new worker.
 */
static void
rejoin(struct cn_ctx *c)
{
	unit_clear(c);
	c->c_lost = 0;
	c->c_id = 0;
	atomic_store(&c->c_beat_id, 0);
	c->c_seq = 0;
	if (c->c_threads)
		cn_net_reset(c);
	send_register(c);
}

static void
steal(struct cn_ctx *c)
{
	/* A program of threads steals worker to worker (cn_steal.c). */
	if (c->c_threads)
		return;
	if (c->c_have_unit || c->c_quit || c->c_id == 0 || c->c_finished)
		return;
	send_small(c, CN_H_STEAL);
	c->c_last_steal = now_mono();
}

static void __attribute__((noreturn))
leave_now(struct cn_ctx *c)
{
	struct rlimit rl = { 0, 0 };
	sigset_t set;

	(void)c;
	/* Die of the SIGQUIT we were sent: "stopped by its node". */
	(void)setrlimit(RLIMIT_CORE, &rl);
	signal(SIGQUIT, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGQUIT);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGQUIT);
	_exit(128 + SIGQUIT);
}

static void
leave_maybe(struct cn_ctx *c)
{
	if (!c->c_quit)
		return;
	if (now_mono() > c->c_quit_by)
		leave_now(c);
	if (c->c_have_unit || c->c_id == 0) {
		if (c->c_id == 0)
			leave_now(c);	/* never joined: nothing to hand */
		return;
	}
	send_small(c, CN_H_LEAVE);
	c->c_leave_sent = 1;
}

static int
from_chouse(struct cn_ctx *c, const struct msg_in *in, enum cn_handler h)
{
	if (c->c_lost || !msg_verify_sender(in, MSG_SCHEME_USER, c->c_user,
	    &c->c_chouse) || cn_msg_dec(h, &c->c_msg, in->mi_data,
	    in->mi_len) == -1)
		return 0;
	c->c_last_heard = now_mono();
	return 1;
}

/*
 * The job key the WELCOME sealed to us, for speaking to the others
 * (cn.h).  -1 if it does not open: not the clearinghouse we asked.
 */
static int
take_job_key(struct cn_ctx *c, const struct cn_msg *m)
{
	uint8_t key[CN_JOB_KEY];
	char name[CN_MEMBER_NAME_MAX];
	int r;

	_Static_assert(CN_JOB_SEALED == crypto_box_SEALBYTES + CN_JOB_KEY,
	    "the sealed job key");
	cn_member_name(m->cm_worker, name);
	r = crypto_box_seal_open(key, m->cm_sealed, sizeof(m->cm_sealed),
	    c->c_box_pk, c->c_box_sk) == 0 ? msg_keyring_set_job(c->c_keys,
	    m->cm_keyid, key, name) : -1;
	sodium_memzero(key, sizeof(key));
	return r;
}

static void
on_welcome(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_WELCOME) || c->c_id != 0)
		return;
	if (c->c_msg.cm_worker == 0) {
		/* Its closures could not be ours (cn.h, CN_EXE_DIGEST). */
		say(c, "cilknow: %s", "the clearinghouse refused this process: "
		    "it runs another executable than the job's root");
		exit(1);
	}
	if (take_job_key(c, &c->c_msg) == -1) {
		say(c, "cilknow: %s", "the clearinghouse's job key does not "
		    "open with this process's key");
		exit(1);
	}
	c->c_id = c->c_msg.cm_worker;
	atomic_store(&c->c_beat_id, c->c_id);
	if (c->c_threads)
		cn_net_welcome(c);
	if (c->c_have_unit)
		export_next(c);
	else
		steal(c);
}

static void
on_assign(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_msg *m = &c->c_msg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_ASSIGN) || c->c_id == 0)
		return;
	if (c->c_have_unit)
		return;		/* a copy of the one we run */
	if (m->cm_frames[0].fr_fn >= c->c_prog->cp_nfns)
		return;		/* not this program's */
	unit_clear(c);
	if (cn_local_push(c, &m->cm_frames[0]) == -1)
		return;
	c->c_have_unit = 1;
	c->c_unit = m->cm_unit;
	c->c_attempt = m->cm_attempt;
	if (c->c_quit) {
		cn_local_stop(c);
		hand_back(c);	/* arrived as we were leaving */
	}
}

static void
on_give(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_frame f;
	uint32_t n;
	struct cn_msg m;

	(void)ep;
	if (!from_chouse(c, in, CN_H_GIVE) || c->c_id == 0)
		return;
	n = c->c_msg.cm_count;
	/* Keep one to run: a victim that gives its last frame idles. */
	if (c->c_have_unit && !c->c_stop && c->c_inflight == 0)
		while (n-- > 0 && cn_local_pending(c) >= 2 &&
		    cn_local_take_oldest(c, &f) == 0)
			if (outq_add(c, &f) == -1) {
				(void)cn_local_push(c, &f);
				break;
			}
	if (c->c_noutq > 0) {
		export_next(c);
		return;
	}
	/* Nothing to give: say so, unnumbered. */
	memset(&m, 0, offsetof(struct cn_msg, cm_frames));
	m.cm_worker = c->c_id;
	send_msg(c, CN_H_EXPORT, &m);
}

static void
on_export_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_EXPORT_ACK) || c->c_inflight == 0 ||
	    c->c_msg.cm_seq != c->c_seq)
		return;
	c->c_nexports += c->c_inflight;
	c->c_st.cs_migrated += c->c_inflight;
	memmove(c->c_outq, c->c_outq + c->c_inflight,
	    (c->c_noutq - c->c_inflight) * sizeof(*c->c_outq));
	c->c_noutq -= c->c_inflight;
	c->c_inflight = 0;
	export_next(c);
	done_maybe(c);
}

static void
on_done_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_DONE_ACK) || !c->c_done_sent ||
	    c->c_msg.cm_unit != c->c_unit ||
	    c->c_msg.cm_attempt != c->c_attempt)
		return;
	unit_clear(c);
	leave_maybe(c);
	steal(c);
}

/* Root only: a final unit's records, exactly once. */
static void
on_result(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_msg *m = &c->c_msg;
	uint8_t *ns;
	size_t need;

	if (c->c_worker || !from_chouse(c, in, CN_H_RESULT))
		return;
	need = m->cm_unit / 8 + 1;
	if (need > c->c_nseen) {
		if ((ns = realloc(c->c_seen, need * 2)) == NULL)
			return;	/* not acked: it comes again */
		memset(ns + c->c_nseen, 0, need * 2 - c->c_nseen);
		c->c_seen = ns;
		c->c_nseen = need * 2;
	}
	if (!(c->c_seen[m->cm_unit / 8] & (1u << (m->cm_unit % 8)))) {
		c->c_seen[m->cm_unit / 8] |= (uint8_t)(1u << (m->cm_unit % 8));
		if (c->c_prog->cp_record != NULL)
			(void)cn_records_walk(m->cm_data, m->cm_len,
			    c->c_prog->cp_record, c->c_prog->cp_arg);
	}
	m->cm_len = 0;
	m->cm_data = NULL;
	m->cm_worker = c->c_id;
	need = cn_msg_enc(CN_H_RESULT_ACK, m, c->c_buf, sizeof(c->c_buf));
	if (need > 0)
		(void)msg_ep_reply(ep, in, CN_H_RESULT_ACK, c->c_buf, need);
}

static void
on_finish(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;
	struct cn_msg *m = &c->c_msg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_FINISH))
		return;
	if (c->c_worker) {
		/* The job is over. */
#ifdef __SANITIZE_ADDRESS__
		/*
		 * Its node stops this worker at the same time (SIGCONT,
		 * SIGQUIT).  A SIGCONT that comes while LeakSanitizer's exit
		 * check stops every thread cancels the SIGSTOP of its
		 * ptrace attach, and the check waits for ever (seen in
		 * 0847-steal): a sanitized worker leaves without it.
		 */
		(void)fflush(NULL);
		_exit(0);
#else
		exit(0);
#endif
	}
	if (!c->c_finished) {
		c->c_finished = 1;
		c->c_st.cs_sum = m->cm_sum;
		c->c_st.cs_global = m->cm_stat[0];
		c->c_st.cs_migrated = m->cm_stat[1];
		c->c_st.cs_reissued = m->cm_stat[2];
		c->c_st.cs_workers = (uint32_t)m->cm_stat[3];
	}
	send_small(c, CN_H_FINISH_ACK);
}

static void
on_gone(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;

	(void)ep;
	if (!from_chouse(c, in, CN_H_GONE))
		return;
	/* About an identity of ours that is already gone: old news. */
	if (c->c_id == 0 || c->c_msg.cm_worker != c->c_id)
		return;
	if (c->c_quit)
		leave_now(c);	/* our LEAVE was taken */
	/*
	 * Given up for lost (we were silent too long): our unit is being
	 * redone elsewhere.  Drop it and join again as a new worker.
	 */
	if (!c->c_worker) {
		say(c, "cilknow: %s", "the clearinghouse gave the root up "
		    "for lost");
		exit(1);
	}
	atomic_store(&c->c_beat_id, 0);
	if (c->c_running) {
		/* The task on the stack must not spill into a new unit. */
		c->c_lost = 1;
		cn_local_stop(c);
		if (c->c_threads)
			cn_net_abandon(c);
		return;
	}
	rejoin(c);
}

static void
on_alive(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct cn_ctx *c = arg;

	(void)ep;
	if (from_chouse(c, in, CN_H_ALIVE))
		cn_net_members_at(c, c->c_msg.cm_seq);
}

static void
on_quit(struct evloop *loop, int signo, void *arg)
{
	struct cn_ctx *c = arg;

	(void)loop;
	(void)signo;
	if (c->c_quit)
		return;
	c->c_quit = 1;
	c->c_quit_by = now_mono() + CN_QUIT_GRACE;
	cn_local_stop(c);	/* tasks on the stack finish by spawning */
	if (c->c_have_unit)
		hand_back(c);
	leave_maybe(c);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct cn_ctx *c = arg;
	double now = now_mono();

	evloop_timer_add(loop, CN_TICK, on_tick, c);
	if (!c->c_worker && c->c_chouse_pid > 0 &&
	    waitpid(c->c_chouse_pid, NULL, WNOHANG) == c->c_chouse_pid) {
		/* Part of the work may be lost with its books. */
		c->c_chouse_pid = 0;
		say(c, "cilknow: %s", "the clearinghouse died; the job "
		    "cannot finish");
		c->c_failed = 1;
		cn_local_stop(c);
		return;
	}
	if (!c->c_worker)
		cn_home_tick(c, now);
	if (c->c_lost)
		return;
	if (c->c_worker && now - c->c_last_heard > CN_SILENCE) {
		say(c, "cilknow: %s", "no word from the clearinghouse; "
		    "giving up");
		exit(1);
	}
	if (c->c_id == 0) {
		if (now - c->c_last_reg >= CN_RESEND)
			send_register(c);
		return;
	}
	if (c->c_threads)
		cn_net_tick(c, now);
	if (c->c_inflight > 0 && now - c->c_last_out >= CN_RESEND) {
		(void)msg_ep_send(c->c_ep, &c->c_chouse, MSG_SCHEME_USER,
		    CN_H_EXPORT, c->c_out, c->c_outlen);
		c->c_last_out = now;
	}
	if (c->c_done_sent && now - c->c_last_done >= CN_RESEND) {
		(void)msg_ep_send(c->c_ep, &c->c_chouse, MSG_SCHEME_USER,
		    CN_H_DONE, c->c_done, c->c_donelen);
		c->c_last_done = now;
	}
	if (c->c_quit) {
		leave_maybe(c);
		return;
	}
	if (!c->c_have_unit && now - c->c_last_steal >= CN_RESEND)
		steal(c);
	/* A worker's thread says it (cn_beat.c); the root is never lost. */
	if (!c->c_beat_on && now - c->c_last_sent_hb >= CN_HEARTBEAT) {
		send_small(c, CN_H_HEARTBEAT);
		c->c_last_sent_hb = now;
	}
}

/* Between the job's processes: under the job key alone (cn.h). */
#define JOB	MSG_SCHEME_BIT(MSG_SCHEME_JOB)

static const struct msg_handler cn_handlers[CN_H_STEAL_END] = {
	[CN_H_WELCOME] = { "welcome", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_welcome },
	[CN_H_ASSIGN] = { "assign", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_assign },
	[CN_H_GIVE] = { "give", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_give },
	[CN_H_EXPORT_ACK] = { "export-ack", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_export_ack },
	[CN_H_DONE_ACK] = { "done-ack", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_done_ack },
	[CN_H_RESULT] = { "result", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_result },
	[CN_H_FINISH] = { "finish", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_finish },
	[CN_H_GONE] = { "gone", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_gone },
	[CN_H_ALIVE] = { "alive", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_alive },
	[CN_H_MEMBERS] = { "members", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    cn_net_on_members },
	[CN_H_TSTEAL] = { "tsteal", JOB,
	    cn_net_on_tsteal },
	[CN_H_TNONE] = { "tnone", JOB,
	    cn_net_on_tnone },
	[CN_H_XFER] = { "xfer", JOB,
	    cn_net_on_xfer },
	[CN_H_XFER_ACK] = { "xfer-ack", JOB,
	    cn_net_on_xfer_ack },
	[CN_H_TSTATS] = { "tstats", JOB,
	    cn_net_on_tstats },
};

/*
 * The event loop, once.  Time spent away from it (a long task, a
 * stopped or starved process) is time we could not hear the
 * clearinghouse: it does not count as its silence.
 */
int
cn_link_look(struct cn_ctx *c, double wait)
{
	double now = now_mono();

	if (now - c->c_last_listen > 1.0)
		c->c_last_heard += now - c->c_last_listen;
	c->c_last_listen = now;
	atomic_store_explicit(&c->c_beat_tasks, c->c_tasks,
	    memory_order_relaxed);
	return evloop_run_once(c->c_loop, wait);
}

/* Called from between and within tasks: a look at the network. */
static void
poll_net(struct cn_ctx *c)
{
	double now = now_mono();

	if (now < c->c_next_poll)
		return;
	c->c_next_poll = now + CN_POLL_GAP;
	/*
	 * Checkpointing root: hand the pending work back now and then, so
	 * that its unit ends and what it computed counts in a checkpoint.
	 */
	if (c->c_ckpt && c->c_have_unit && !c->c_stop &&
	    now - c->c_last_flush >= CN_CKPT_FLUSH) {
		c->c_last_flush = now;
		cn_local_stop(c);
	}
	(void)cn_link_look(c, 0);
}

int
cn_sched_poll(void *arg)
{
	struct cn_ctx *c = arg;
	double due;

	if (c->c_poll == NULL)
		return 0;
	due = c->c_next_poll;
	c->c_poll(c);
	return c->c_next_poll != due;
}

int
cn_link_open(struct cn_ctx *c, const char *conf, char *why, size_t whylen)
{
	struct cli_common cc;
	struct msg_addr any;
	struct msg_ep_opts eo;
	double v;

	memset(&cc, 0, sizeof(cc));
	cc.cc_conf_path = conf;
	if ((c->c_conf = cli_conf_load(&cc, c->c_prog->cp_name)) == NULL) {
		snprintf(why, whylen, "the configuration has errors");
		return -1;
	}
	if (c->c_threads && cn_net_open(c) == -1) {
		snprintf(why, whylen, "no memory");
		return -1;
	}
	if (crypto_box_keypair(c->c_box_pk, c->c_box_sk) != 0) {
		snprintf(why, whylen, "no key pair for the job key");
		return -1;
	}
	if ((c->c_keys = calloc(1, sizeof(*c->c_keys))) == NULL ||
	    msg_keyring_load(c->c_keys, c->c_conf, MSG_KR_USER, NULL, why,
	    whylen) == -1)
		return -1;
	strlcpy(c->c_user, msg_keyring_user_name(c->c_keys),
	    sizeof(c->c_user));
	memset(&eo, 0, sizeof(eo));
	eo.eo_replay_window = conf_get_seconds(c->c_conf, "replay_window",
	    &v) == 0 ? v : 30;
	memset(&any, 0, sizeof(any));
	any.ma_family = 4;
	if ((c->c_loop = evloop_new()) == NULL ||
	    (c->c_ep = msg_ep_new(c->c_loop, c->c_keys, cn_handlers,
	    CN_H_STEAL_END, c, &eo)) == NULL || msg_ep_bind(c->c_ep, &any) == -1 ||
	    (c->c_worker && evloop_signal(c->c_loop, SIGQUIT, on_quit,
	    c) == -1)) {
		snprintf(why, whylen, "network endpoint: %s", strerror(errno));
		return -1;
	}
	if (c->c_worker && cn_beat_start(c) == -1) {
		snprintf(why, whylen, "heartbeat thread: %s", strerror(errno));
		return -1;
	}
	c->c_poll = poll_net;
	c->c_last_heard = c->c_last_listen = now_mono();
	evloop_timer_add(c->c_loop, CN_TICK, on_tick, c);
	send_register(c);
	return 0;
}

int
cn_link_run(struct cn_ctx *c)
{
	int r;

	while (!c->c_finished && !c->c_failed) {
		if (c->c_worker && c->c_threads) {
			/* Closures, stolen or ours, in place of units. */
			if (cn_net_work(c) == -1)
				return -1;
			if (c->c_lost && !c->c_running)
				rejoin(c);	/* the stack is unwound */
			continue;
		}
		if (c->c_have_unit && !c->c_stop &&
		    cn_local_pending(c) > 0) {
			c->c_running = 1;
			r = cn_local_run(c);
			c->c_running = 0;
			if (c->c_lost) {
				rejoin(c);	/* the stack is unwound */
				continue;
			}
			if (r == 2) {
				/* Records piled up, or SIGQUIT: the
				 * stack is unwound, hand back the rest. */
				if (!c->c_quit)
					c->c_flush = 1;
				hand_back(c);
			}
			c->c_next_poll = now_mono() + CN_POLL_GAP;
			if (cn_link_look(c, 0) == -1)
				return -1;
			continue;
		}
		if (c->c_stop && cn_local_pending(c) > 0)
			hand_back(c);	/* spawned while unwinding */
		done_maybe(c);
		if (cn_link_look(c, CN_TICK) == -1)
			return -1;
	}
	if (c->c_failed) {
		errno = EPIPE;
		return -1;
	}
	return 0;
}

void
cn_link_close(struct cn_ctx *c)
{
	if (c->c_ep != NULL)
		msg_ep_free(c->c_ep);
	if (c->c_loop != NULL)
		evloop_free(c->c_loop);
	if (c->c_keys != NULL) {
		msg_keyring_clear(c->c_keys);
		free(c->c_keys);
	}
	if (c->c_conf != NULL)
		conf_free(c->c_conf);
	c->c_ep = NULL;
	c->c_loop = NULL;
	c->c_keys = NULL;
	c->c_conf = NULL;
	sodium_memzero(c->c_box_sk, sizeof(c->c_box_sk));
	cn_net_close(c);
	free(c->c_outq);
	free(c->c_seen);
	free(c->c_home_msg);
	c->c_home_msg = NULL;
}
