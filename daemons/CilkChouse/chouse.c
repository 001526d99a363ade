/*
 * CilkChouse: membership, the pool of work units, thieves and victims,
 * re-issue of lost work, records to the root, the end of the job.
 * The books themselves are cn_tree's (src/runtime/cn_tree.c).
 */
#include "chouse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "log.h"
#include "mono.h"
#include "proto_proc.h"

/* The node managers' answers share our table: they must not collide. */
_Static_assert((int)PROTO_H_PROC >= (int)CN_H_STEAL_END,
    "PROC collides with cn.h or cn_steal.h");

static void	schedule(struct chouse *);
static void	finish(struct chouse *);

static double
ch_now(const struct chouse *h)
{
	return h->h_io ? h->h_io->io_now(h->h_io->io_arg) : now_mono();
}

static uint32_t
ch_uniform(const struct chouse *h, uint32_t n)
{
	return h->h_io ? h->h_io->io_uniform(h->h_io->io_arg, n) :
	    randombytes_uniform(n);
}

static int
ch_send(struct chouse *h, const struct msg_addr *to, uint16_t t,
    size_t len)
{
	if (h->h_io)
		return h->h_io->io_send(h->h_io->io_arg, to, t, h->h_buf, len);
	return msg_ep_send(h->h_dc.dc_ep, to, MSG_SCHEME_USER, t, h->h_buf,
	    len);
}

static void
send_to(struct chouse *h, const struct ch_worker *w, enum cn_handler t,
    const struct cn_msg *m)
{
	size_t len;

	if ((len = cn_msg_enc(t, m, h->h_buf, sizeof(h->h_buf))) == 0 ||
	    ch_send(h, &w->w_addr, t, len) == -1)
		log_debug("%s: to worker %u failed", __func__, w->w_id);
}

static void
reply(struct chouse *h, const struct msg_in *in, enum cn_handler t,
    const struct cn_msg *m)
{
	size_t len;

	/* Every party speaks the user scheme: a reply is a send. */
	if ((len = cn_msg_enc(t, m, h->h_buf, sizeof(h->h_buf))) > 0)
		(void)ch_send(h, &in->mi_from, t, len);
}

static void
msg_zero(struct cn_msg *m)
{
	memset(m, 0, offsetof(struct cn_msg, cm_frames));
}

/*
 * The sender, decoded: the same user as us, a known worker id at the
 * address it joined from.  NULL (and dropped) otherwise.
 */
static struct ch_worker *
sender(struct chouse *h, const struct msg_in *in, enum cn_handler t)
{
	struct ch_worker *w;
	uint32_t id;

	if (!msg_verify_sender(in, MSG_SCHEME_USER, h->h_user, NULL) ||
	    cn_msg_dec(t, &h->h_msg, in->mi_data, in->mi_len) == -1)
		return NULL;
	if (t == CN_H_REGISTER)
		return &h->h_w[0];	/* a placeholder: not yet a worker */
	if (h->h_msg.cm_worker == 0 || h->h_msg.cm_worker >= h->h_nw)
		goto gone;
	w = &h->h_w[h->h_msg.cm_worker];
	if (!msg_addr_eq(&w->w_addr, &in->mi_from))
		return NULL;
	if (w->w_gone)
		goto gone;
	w->w_last = ch_now(h);
	return w;
 gone:
	/*
	 * Given up for lost, or from before a restart: fenced.  The answer
	 * names the identity, so that a worker which has joined again
	 * since is not sent away by news about its old self.
	 */
	id = h->h_msg.cm_worker;
	msg_zero(&h->h_msg);
	h->h_msg.cm_worker = id;
	reply(h, in, CN_H_GONE, &h->h_msg);
	return NULL;
}

static void
send_assign(struct chouse *h, struct ch_worker *w, uint32_t id)
{
	struct cn_unit *u = cn_tree_unit(&h->h_tree, id);
	struct cn_msg *m = &h->h_msg;

	msg_zero(m);
	m->cm_unit = id;
	m->cm_attempt = u->u_attempt;
	m->cm_nframes = 1;
	m->cm_frames[0] = u->u_frame;
	send_to(h, w, CN_H_ASSIGN, m);
}

/*
 * One host: the same network address as we see it (which a worker
 * cannot choose: we answer there, and take nothing from it from
 * elsewhere) and node names that agree up to a '/' (the node manager's
 * name for its slots, "HOST/k").  The name is the worker's own word,
 * but needing both means a false one can only take a worker out of its
 * host, never put it into another's.
 */
static int
same_host(const struct ch_worker *a, const struct ch_worker *b)
{
	size_t n = strcspn(a->w_node, "/");

	return a->w_addr.ma_family == b->w_addr.ma_family &&
	    memcmp(a->w_addr.ma_addr, b->w_addr.ma_addr,
	    sizeof(a->w_addr.ma_addr)) == 0 &&
	    strncmp(a->w_node, b->w_node, n) == 0 &&
	    (b->w_node[n] == '\0' || b->w_node[n] == '/');
}

/* w's host number: that of a worker on the same host, or a new one. */
static uint32_t
host_of(struct chouse *h, const struct ch_worker *w)
{
	uint32_t i;

	for (i = 1; i < h->h_nw; i++)
		if (&h->h_w[i] != w && same_host(&h->h_w[i], w))
			return h->h_w[i].w_host;
	return ++h->h_nhosts;
}

static void	worker_gone(struct chouse *, struct ch_worker *, const char *);

/*
 * The job key sealed to the public key a REGISTER brought: only that
 * process can open it.  A restarted clearinghouse makes a new key, and
 * every process joins it again (GONE) to have it.
 */
static void
seal_job_key(struct chouse *h, struct cn_msg *m,
    const uint8_t pk[CN_BOX_PK])
{
	if (h->h_job_keyid == 0) {
		randombytes_buf(h->h_job_key, sizeof(h->h_job_key));
		while (h->h_job_keyid == 0)
			h->h_job_keyid = randombytes_random();
	}
	m->cm_keyid = h->h_job_keyid;
	if (crypto_box_seal(m->cm_sealed, h->h_job_key, sizeof(h->h_job_key),
	    pk) != 0)
		memset(m->cm_sealed, 0, sizeof(m->cm_sealed));
}

static void
on_register(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct cn_msg *m = &h->h_msg;
	struct ch_worker *w, *nw;
	uint8_t pk[CN_BOX_PK];
	uint32_t i, cap;

	(void)ep;
	if (sender(h, in, CN_H_REGISTER) == NULL)
		return;
	memcpy(pk, m->cm_box_pk, sizeof(pk));
	/*
	 * A repeat (same address, same process): the same answer.  Another
	 * process at a live worker's address (its port, taken again on a
	 * host that runs several workers) means that worker is gone.
	 */
	for (i = 1; i < h->h_nw; i++) {
		w = &h->h_w[i];
		if (w->w_gone || !msg_addr_eq(&w->w_addr, &in->mi_from))
			continue;
		if (w->w_pid == m->cm_seq)
			goto welcome;
		if (!w->w_root)
			worker_gone(h, w, "is replaced at its address by "
			    "another process; its work is redone");
	}
	if (h->h_have_exe && sodium_memcmp(h->h_exe, m->cm_exe,
	    sizeof(h->h_exe)) != 0) {
		if (!msg_addr_eq(&h->h_refused, &in->mi_from))
			log_warning("a %s from %s runs another executable "
			    "than the job's: refused", m->cm_root ? "root" :
			    "worker", m->cm_node);
		h->h_refused = in->mi_from;
		msg_zero(m);
		m->cm_worker = 0;
		reply(h, in, CN_H_WELCOME, m);
		return;
	}
	for (i = 1; i < h->h_nw && m->cm_root; i++)
		if (h->h_w[i].w_root)
			return;		/* one root per job */
	if (m->cm_root && h->h_recover_path == NULL && h->h_tree.t_n > 1)
		return;
	if (!m->cm_root && h->h_tree.t_n == 1)
		return;			/* the root first */
	if (h->h_nw == h->h_capw) {
		cap = h->h_capw * 2;
		if ((nw = reallocarray(h->h_w, cap, sizeof(*nw))) == NULL)
			return;
		memset(nw + h->h_capw, 0, (cap - h->h_capw) * sizeof(*nw));
		h->h_w = nw;
		h->h_capw = cap;
	}
	i = h->h_nw++;
	w = &h->h_w[i];
	memset(w, 0, sizeof(*w));
	w->w_id = i;
	w->w_addr = in->mi_from;
	strlcpy(w->w_node, m->cm_node, sizeof(w->w_node));
	w->w_pid = m->cm_seq;
	w->w_nodemgr = m->cm_nodemgr;
	if (msg_addr_any(&w->w_nodemgr)) {
		/* Listening everywhere: at the address the worker uses. */
		w->w_nodemgr.ma_family = in->mi_from.ma_family;
		memcpy(w->w_nodemgr.ma_addr, in->mi_from.ma_addr,
		    sizeof(w->w_nodemgr.ma_addr));
	}
	w->w_root = m->cm_root;
	if (!h->h_have_exe) {
		memcpy(h->h_exe, m->cm_exe, sizeof(h->h_exe));
		h->h_have_exe = 1;
	}
	w->w_host = host_of(h, w);
	w->w_next_seq = 1;
	w->w_last = ch_now(h);
	/* A recovered job's root comes without work: the books have it. */
	if (w->w_root && h->h_recover_path == NULL &&
	    cn_tree_root(&h->h_tree, i, &m->cm_frames[0]) == -1) {
		h->h_nw--;
		return;
	}
	if (w->w_root && h->h_recover_path == NULL)
		w->w_unit = 1;
	if (++h->h_live > h->h_live_max)
		h->h_live_max = h->h_live;
	h->h_mversion++;
	log_info("worker %u joined from %s (pid %llu)%s; %u workers, "
	    "on host %u", i, w->w_node, (unsigned long long)w->w_pid,
	    w->w_root ? ", the root" : "", h->h_live, w->w_host);
 welcome:
	msg_zero(m);
	m->cm_worker = i;
	seal_job_key(h, m, pk);
	reply(h, in, CN_H_WELCOME, m);
}

/*
 * A worker of a program of threads asks who is in (cn_steal.h): the
 * live workers and their addresses, if the list changed since the
 * version it has.  Steals and values then go worker to worker.
 */
/* The member list's version: 1 before any change, never 0 (none). */
static uint64_t
members_version(struct chouse *h)
{
	if (h->h_mversion == 0)
		h->h_mversion = 1;
	return h->h_mversion;
}

static void
on_members_ask(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct cn_smsg m;
	struct ch_worker *w;
	uint32_t i, n = 0;
	size_t len;

	(void)ep;
	m.sm_members = NULL;
	if (!msg_verify_sender(in, MSG_SCHEME_USER, h->h_user, NULL) ||
	    cn_smsg_dec(CN_H_MEMBERS_ASK, &m, in->mi_data, in->mi_len) == -1)
		return;
	if (m.sm_from == 0 || m.sm_from >= h->h_nw ||
	    !msg_addr_eq(&h->h_w[m.sm_from].w_addr, &in->mi_from))
		return;
	w = &h->h_w[m.sm_from];
	if (w->w_gone) {
		msg_zero(&h->h_msg);
		h->h_msg.cm_worker = w->w_id;
		reply(h, in, CN_H_GONE, &h->h_msg);
		return;
	}
	w->w_last = ch_now(h);
	if (m.sm_version == members_version(h))
		return;
	if (h->h_members == NULL && (h->h_members = calloc(CN_MEMBERS_MAX,
	    sizeof(*h->h_members))) == NULL)
		return;
	for (i = 1; i < h->h_nw && n < CN_MEMBERS_MAX; i++) {
		if (h->h_w[i].w_gone)
			continue;
		h->h_members[n].mb_id = i;
		h->h_members[n].mb_root = (uint8_t)h->h_w[i].w_root;
		h->h_members[n].mb_addr = h->h_w[i].w_addr;
		n++;
	}
	memset(&m, 0, sizeof(m));
	m.sm_version = h->h_mversion;
	m.sm_maxid = h->h_nw - 1;
	m.sm_nmembers = n;
	m.sm_members = h->h_members;
	if ((len = cn_smsg_enc(CN_H_MEMBERS, &m, h->h_buf,
	    sizeof(h->h_buf))) > 0)
		(void)ch_send(h, &in->mi_from, CN_H_MEMBERS, len);
}

static void
on_heartbeat(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct ch_worker *w;

	(void)ep;
	if ((w = sender(h, in, CN_H_HEARTBEAT)) == NULL)
		return;
	w->w_tasks = h->h_msg.cm_stat[0];
	/* A program of threads: its steals go worker to worker. */
	if (h->h_msg.cm_stat[1] == CN_BEAT_BUSY)
		w->w_idle = 0;
	else if (h->h_msg.cm_stat[1] == CN_BEAT_STARVED)
		w->w_idle = 1;
	/*
	 * An idle worker would hear nothing else from us for a while.  The
	 * member list's version rides along: a worker asks for the list
	 * only when it has changed, not every heartbeat.
	 */
	msg_zero(&h->h_msg);
	h->h_msg.cm_worker = w->w_id;
	h->h_msg.cm_seq = members_version(h);
	reply(h, in, CN_H_ALIVE, &h->h_msg);
}

static void
on_steal(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct ch_worker *w;
	struct cn_unit *u;

	(void)ep;
	if ((w = sender(h, in, CN_H_STEAL)) == NULL)
		return;
	/* Still running a unit we gave it?  The ASSIGN was lost. */
	u = cn_tree_unit(&h->h_tree, w->w_unit);
	if (u != NULL && u->u_state == CN_U_RUNNING &&
	    u->u_worker == w->w_id) {
		send_assign(h, w, w->w_unit);
		return;
	}
	w->w_idle = 1;
	schedule(h);
}

static void
on_export(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct cn_msg *m = &h->h_msg;
	struct ch_worker *w;
	uint64_t seq;
	int r;

	(void)ep;
	if ((w = sender(h, in, CN_H_EXPORT)) == NULL)
		return;
	w->w_give_sent = 0;
	if (m->cm_seq == 0) {		/* nothing to give */
		w->w_empty_until = ch_now(h) + CH_EMPTY_PAUSE;
		schedule(h);
		return;
	}
	seq = m->cm_seq;
	if (seq > w->w_next_seq)
		return;			/* cannot be: one batch at a time */
	if (seq == w->w_next_seq) {
		r = cn_tree_export(&h->h_tree, w->w_id, m->cm_unit,
		    m->cm_attempt, m->cm_frames, m->cm_nframes);
		if (r == -1) {
			log_warnx("%s: out of memory", __func__);
			return;		/* not acked: it comes again */
		}
		w->w_next_seq++;
		log_debug("worker %u exported %u frames of unit %u%s",
		    w->w_id, m->cm_nframes, m->cm_unit,
		    r == 1 ? " (stale, dropped)" : "");
	}
	msg_zero(m);
	m->cm_seq = seq;
	reply(h, in, CN_H_EXPORT_ACK, m);
	schedule(h);
}

static void
on_done(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct cn_msg *m = &h->h_msg;
	struct ch_worker *w;
	uint32_t unit, attempt;
	int r;

	(void)ep;
	if ((w = sender(h, in, CN_H_DONE)) == NULL)
		return;
	unit = m->cm_unit;
	attempt = m->cm_attempt;
	w->w_tasks = m->cm_stat[0];
	r = cn_tree_done(&h->h_tree, w->w_id, unit, attempt, m->cm_count,
	    m->cm_sum, m->cm_data, m->cm_len);
	if (r == -1 || r == 2)
		return;			/* not acked: it comes again */
	h->h_ckpt_dirty = 1;
	msg_zero(m);
	m->cm_unit = unit;
	m->cm_attempt = attempt;
	reply(h, in, CN_H_DONE_ACK, m);
	if (cn_tree_finished(&h->h_tree) && !h->h_finishing) {
		log_info("every unit is final: %u units, %llu migrated "
		    "(%llu within a host), %llu redone", h->h_tree.t_n - 1,
		    (unsigned long long)h->h_tree.t_migrated,
		    (unsigned long long)h->h_near,
		    (unsigned long long)h->h_tree.t_reissued);
		h->h_finishing = 1;
		if (h->h_nresults == 0)
			finish(h);
	}
}

static void
on_result_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct ch_worker *w;
	struct cn_unit *u;
	uint32_t i;

	(void)ep;
	if ((w = sender(h, in, CN_H_RESULT_ACK)) == NULL || !w->w_root)
		return;
	for (i = 0; i < h->h_nresults; i++)
		if (h->h_results[i] == h->h_msg.cm_unit) {
			h->h_results[i] = h->h_results[--h->h_nresults];
			if ((u = cn_tree_unit(&h->h_tree,
			    h->h_msg.cm_unit)) != NULL) {
				free(u->u_records);
				u->u_records = NULL;
				u->u_nrecords = 0;
			}
			if (h->h_finishing && h->h_nresults == 0)
				finish(h);
			return;
		}
}

static void
on_finish_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct ch_worker *w;

	(void)ep;
	if ((w = sender(h, in, CN_H_FINISH_ACK)) != NULL && w->w_root &&
	    h->h_finishing && !h->h_root_acked) {
		h->h_root_acked = 1;
		finish(h);	/* a second copy to the others, and go */
	}
}

static void
worker_gone(struct chouse *h, struct ch_worker *w, const char *why)
{
	if (w->w_gone)
		return;
	w->w_gone = 1;
	w->w_idle = 0;
	h->h_live--;
	h->h_mversion++;
	if (cn_tree_lost(&h->h_tree, w->w_id) == -1)
		log_warnx("%s: out of memory", __func__);
	log_info("worker %u on %s %s; %u workers", w->w_id, w->w_node, why,
	    h->h_live);
}

/*
 * A worker silent past the timeout: before its work is redone, its
 * node manager is asked whether the process is still there.  1 while
 * we wait (for the answer, or because the process runs); 0 to give it
 * up now: no node manager to ask, none answered, or the process has
 * been silent for CH_SILENT_MAX however much it runs.
 */
static int
suspect(struct chouse *h, struct ch_worker *w, double now)
{
	uint8_t buf[16];
	size_t len;

	if (w->w_suspect == 0)
		w->w_suspect = now;
	if (w->w_nodemgr.ma_family == 0 ||
	    now - w->w_suspect > CH_SILENT_MAX)
		return 0;
	if (now < w->w_runs_until)
		return 1;
	if (w->w_asked == 0)
		w->w_asked = now;
	else if (now - w->w_asked > CH_ASK_WAIT)
		return 0;
	if (now - w->w_last_ask >= CH_ASK_AGAIN &&
	    (len = proto_proc_ask_enc((uint32_t)w->w_pid, buf,
	    sizeof(buf))) > 0) {
		memcpy(h->h_buf, buf, len);
		(void)ch_send(h, &w->w_nodemgr, PROTO_H_PROC_ASK, len);
		w->w_last_ask = now;
	}
	return 1;
}

/* A node manager's answer about a worker we asked about. */
static void
on_proc(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct proto_proc a;
	struct ch_worker *w;
	uint32_t i;

	(void)ep;
	if (!msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL) ||
	    proto_proc_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	for (i = 1; i < h->h_nw; i++) {
		w = &h->h_w[i];
		if (w->w_gone || w->w_asked == 0 || w->w_pid != a.pp_pid ||
		    !msg_addr_eq(&w->w_nodemgr, &in->mi_from))
			continue;
		w->w_asked = 0;
		if (a.pp_state == PROTO_PROC_RUNNING) {
			if (w->w_runs_until == 0)
				log_info("worker %u on %s is silent, but its "
				    "node says it runs: waiting", w->w_id,
				    w->w_node);
			w->w_runs_until = ch_now(h) + h->h_timeout;
		} else
			worker_gone(h, w, a.pp_state == PROTO_PROC_STOPPED ?
			    "is stopped, its node says; its work is redone" :
			    "is gone, its node says; its work is redone");
	}
}

static void
on_leave(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct chouse *h = arg;
	struct ch_worker *w;

	(void)ep;
	if ((w = sender(h, in, CN_H_LEAVE)) == NULL)
		return;
	worker_gone(h, w, "handed its work back and left");
	msg_zero(&h->h_msg);
	h->h_msg.cm_worker = w->w_id;
	reply(h, in, CN_H_GONE, &h->h_msg);
	schedule(h);
}

static void
on_final(struct cn_tree *t, uint32_t id, void *arg)
{
	struct chouse *h = arg;
	uint32_t *nr, cap;

	(void)t;
	h->h_ckpt_dirty = 1;
	if (h->h_ckpt_path != NULL) {
		struct cn_unit *u = cn_tree_unit(&h->h_tree, id);
		uint8_t *nb;
		size_t need = h->h_ckpt_nrec + u->u_nrecords;

		if (need > h->h_ckpt_caprec) {
			if ((nb = realloc(h->h_ckpt_rec, need * 2)) == NULL) {
				log_warnx("%s: out of memory: checkpoints "
				    "stop", __func__);
				h->h_ckpt_path = NULL;
			} else {
				h->h_ckpt_rec = nb;
				h->h_ckpt_caprec = need * 2;
			}
		}
		if (h->h_ckpt_path != NULL) {
			memcpy(h->h_ckpt_rec + h->h_ckpt_nrec, u->u_records,
			    u->u_nrecords);
			h->h_ckpt_nrec = need;
		}
	}
	if (h->h_nresults == h->h_capresults) {
		cap = h->h_capresults ? h->h_capresults * 2 : 64;
		if ((nr = reallocarray(h->h_results, cap,
		    sizeof(*nr))) == NULL) {
			log_warnx("%s: out of memory: unit %u's records "
			    "are lost", __func__, id);
			return;
		}
		h->h_results = nr;
		h->h_capresults = cap;
	}
	h->h_results[h->h_nresults++] = id;
}

struct near_arg {
	struct chouse	*na_h;
	uint32_t	 na_host;
};

static int
near(uint32_t creator, void *arg)
{
	struct near_arg *na = arg;

	return creator != 0 && creator < na->na_h->h_nw &&
	    na->na_h->h_w[creator].w_host == na->na_host;
}

static void
assign(struct chouse *h, struct ch_worker *w, uint32_t id)
{
	uint32_t c = cn_tree_unit(&h->h_tree, id)->u_creator;

	if (c != w->w_id && c != 0 && c < h->h_nw &&
	    h->h_w[c].w_host == w->w_host)
		h->h_near++;
	w->w_idle = 0;
	w->w_unit = id;
	send_assign(h, w, id);
}

/*
 * Idle workers get pooled units, one exported on their own host first;
 * those left ask a busy worker each, one on their own host if any may
 * be asked (random among them), else any (random): a host's workers
 * share its memory and its network, and a thief whose host has nothing
 * goes to other hosts at once.
 */
static void
schedule(struct chouse *h)
{
	struct ch_worker *w, *v;
	struct near_arg na;
	struct cn_msg *m = &h->h_msg;
	uint32_t i, j, k, id, idle = 0, nv = 0, mine, *nvs;
	double now = ch_now(h);
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 1; i < h->h_nw; i++) {
			w = &h->h_w[i];
			if (w->w_gone || !w->w_idle)
				continue;
			na.na_h = h;
			na.na_host = w->w_host;
			id = pass == 0 ? cn_tree_assign_near(&h->h_tree,
			    w->w_id, near, &na) :
			    cn_tree_assign(&h->h_tree, w->w_id);
			if (id != 0)
				assign(h, w, id);
			else if (pass == 1)
				idle++;
		}
	if (idle == 0 || h->h_nw <= 1)
		return;
	if (h->h_capvictims < h->h_nw) {
		if ((nvs = reallocarray(h->h_victims, h->h_capw,
		    sizeof(*nvs))) == NULL) {
			log_warnx("%s: out of memory", __func__);
			return;
		}
		h->h_victims = nvs;
		h->h_capvictims = h->h_capw;
	}
	for (i = 1; i < h->h_nw; i++) {
		v = &h->h_w[i];
		if (v->w_gone || v->w_idle || now < v->w_empty_until ||
		    (v->w_give_sent > 0 && now - v->w_give_sent <
		    CH_GIVE_WAIT))
			continue;
		h->h_victims[nv++] = i;
	}
	/* One GIVE for each idle worker, while there are victims. */
	for (i = 1; i < h->h_nw && nv > 0; i++) {
		w = &h->h_w[i];
		if (w->w_gone || !w->w_idle)
			continue;
		for (j = 0, mine = 0; j < nv; j++)
			mine += h->h_w[h->h_victims[j]].w_host == w->w_host;
		if (mine > 0) {
			k = ch_uniform(h, mine);
			for (j = 0; ; j++)
				if (h->h_w[h->h_victims[j]].w_host ==
				    w->w_host && k-- == 0)
					break;
		} else
			j = ch_uniform(h, nv);
		v = &h->h_w[h->h_victims[j]];
		h->h_victims[j] = h->h_victims[--nv];
		msg_zero(m);
		m->cm_count = 1;
		send_to(h, v, CN_H_GIVE, m);
		v->w_give_sent = now;
	}
}

/*
 * The job is over: FINISH to everyone, the root with the answer.  We
 * go once the root has it (workers that miss theirs are stopped by
 * their node managers when the job manager unregisters), or after
 * CH_FINISH_TRIES rounds without an answer.
 */
static void
finish(struct chouse *h)
{
	struct cn_msg *m = &h->h_msg;
	uint32_t i;

	msg_zero(m);
	m->cm_sum = h->h_tree.t_sum;
	m->cm_stat[0] = h->h_tree.t_n - 1;
	m->cm_stat[1] = h->h_tree.t_migrated;
	m->cm_stat[2] = h->h_tree.t_reissued;
	m->cm_stat[3] = h->h_live_max;
	for (i = 1; i < h->h_nw; i++)
		if (!h->h_w[i].w_gone && (i > 1 || !h->h_root_acked))
			send_to(h, &h->h_w[i], CN_H_FINISH, m);
	if (h->h_root_acked || ++h->h_finish_tries >= CH_FINISH_TRIES) {
		/* The root has the answer: nothing left to recover. */
		if (h->h_root_acked && h->h_ckpt_path != NULL &&
		    unlink(h->h_ckpt_path) == -1)
			log_warn("unlink %s", h->h_ckpt_path);
		if (h->h_io)
			h->h_io->io_over(h->h_io->io_arg);
		else
			evloop_break(h->h_dc.dc_loop);
	}
	log_debug("%s: FINISH sent (round %d)", __func__,
	    h->h_finish_tries);
}

/*
 * The job's useful parallelism changed: tell the job manager, whose
 * registrations carry it to the broker as the most useful workers.
 */
static void
useful(struct chouse *h)
{
	uint32_t i, busy = 0, idle = 0;
	char line[32];
	int n;

	for (i = 1; i < h->h_nw; i++) {
		if (h->h_w[i].w_gone)
			continue;
		if (h->h_w[i].w_idle)
			idle++;
		else
			busy++;
	}
	if (!cn_useful_tick(&h->h_useful, busy, idle,
	    h->h_tree.t_pool_head != 0) || h->h_jm_fd == -1)
		return;
	if (h->h_useful.uw_cap > 0)
		log_info("workers starve: the job can use about %u",
		    h->h_useful.uw_cap);
	else
		log_info("workers are busy: the job can use more");
	n = snprintf(line, sizeof(line), "max %u\n", h->h_useful.uw_cap);
	if (write(h->h_jm_fd, line, (size_t)n) != n)
		log_debug("%s: to the job manager: %s", __func__,
		    strerror(errno));
}

void
ch_tick(struct chouse *h)
{
	struct cn_msg *m = &h->h_msg;
	struct cn_unit *u;
	struct ch_worker *w;
	double now = ch_now(h);
	uint32_t i;

	/*
	 * A late tick means we were not listening (stopped, starved): the
	 * workers' heartbeats of that time wait in the socket, unread, so
	 * that time is not their silence.
	 */
	if (h->h_last_tick > 0 && now - h->h_last_tick > CH_DEAF)
		for (i = 1; i < h->h_nw; i++)
			h->h_w[i].w_last += now - h->h_last_tick - CH_TICK;
	h->h_last_tick = now;
	for (i = 1; i < h->h_nw; i++) {
		w = &h->h_w[i];
		/*
		 * The root may run a long task without a word: its death
		 * reaches us as SIGTERM (PR_SET_PDEATHSIG), not silence.
		 */
		if (w->w_gone || w->w_root)
			continue;
		if (now - w->w_last <= h->h_timeout) {
			w->w_suspect = w->w_asked = w->w_runs_until = 0;
			continue;
		}
		if (suspect(h, w, now))
			continue;
		worker_gone(h, w, w->w_runs_until > 0 ? "is silent too long; "
		    "its work is redone" : "is lost; its work is redone");
	}
	if (!h->h_finishing) {
		useful(h);
		ch_checkpoint(h, 0);
	}
	/* Records of final units to the root, until acknowledged. */
	for (i = 0; i < h->h_nresults && i < 32; i++) {
		if ((u = cn_tree_unit(&h->h_tree, h->h_results[i])) == NULL)
			continue;
		msg_zero(m);
		m->cm_unit = h->h_results[i];
		m->cm_data = u->u_records;
		m->cm_len = u->u_nrecords;
		send_to(h, &h->h_w[1], CN_H_RESULT, m);
	}
	if (h->h_finishing && h->h_nresults == 0)
		finish(h);
	else
		schedule(h);
}

static void
on_tick(struct evloop *loop, void *arg)
{
	struct chouse *h = arg;

	evloop_timer_add(loop, CH_TICK, on_tick, h);
	ch_jobmgr_reap(h, 0);
	ch_tick(h);
}

static const struct msg_handler ch_handlers[CH_HANDLERS] = {
	[CN_H_REGISTER] = { "register", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_register },
	[CN_H_HEARTBEAT] = { "heartbeat", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_heartbeat },
	[CN_H_STEAL] = { "steal", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_steal },
	[CN_H_EXPORT] = { "export", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_export },
	[CN_H_DONE] = { "done", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_done },
	[CN_H_RESULT_ACK] = { "result-ack", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_result_ack },
	[CN_H_FINISH_ACK] = { "finish-ack", MSG_SCHEME_BIT(MSG_SCHEME_USER),
	    on_finish_ack },
	[CN_H_LEAVE] = { "leave", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_leave },
	[CN_H_MEMBERS_ASK] = { "members-ask",
	    MSG_SCHEME_BIT(MSG_SCHEME_USER), on_members_ask },
	[PROTO_H_PROC] = { "proc", MSG_SCHEME_BIT(MSG_SCHEME_USER), on_proc },
};

const struct msg_handler *
ch_table(void)
{
	return ch_handlers;
}

void
ch_attach(struct chouse *h)
{
	h->h_tree.t_on_final = on_final;
	h->h_tree.t_arg = h;
}

void
ch_start(struct chouse *h)
{
	ch_attach(h);
	evloop_timer_add(h->h_dc.dc_loop, CH_TICK, on_tick, h);
}

void
ch_checkpoint(struct chouse *h, int force)
{
	uint8_t *img;
	size_t len;
	double now = ch_now(h);

	if (h->h_ckpt_path == NULL || (!force && (!h->h_ckpt_dirty ||
	    now - h->h_ckpt_last < CH_CKPT_EVERY)))
		return;
	if ((img = cn_ckpt_enc(&h->h_tree, h->h_ckpt_rec, h->h_ckpt_nrec,
	    &len)) == NULL || cn_ckpt_write(h->h_ckpt_path, img, len) == -1)
		log_warn("checkpoint %s", h->h_ckpt_path);
	else
		log_debug("checkpoint: sum %lld, %zu bytes",
		    (long long)h->h_tree.t_sum, len);
	free(img);
	h->h_ckpt_dirty = 0;
	h->h_ckpt_last = now;
}

/* -R: the books as the checkpoint left them. */
int
ch_recover(struct chouse *h)
{
	struct cn_frame *frames;
	const uint8_t *rec;
	uint8_t *img;
	int64_t sum;
	uint32_t n;
	size_t len, nrec;

	if ((img = cn_ckpt_read(h->h_recover_path, &len)) == NULL)
		return -1;
	if (cn_ckpt_dec(img, len, &sum, &frames, &n, &rec, &nrec) == -1 ||
	    cn_tree_recover(&h->h_tree, sum, frames, n) == -1) {
		free(img);
		free(frames);
		return -1;
	}
	if (nrec > 0 && (h->h_ckpt_rec = malloc(nrec)) != NULL) {
		memcpy(h->h_ckpt_rec, rec, nrec);
		h->h_ckpt_nrec = h->h_ckpt_caprec = nrec;
	}
	log_info("recovered from %s: sum %lld so far, %u pieces left",
	    h->h_recover_path, (long long)sum, n);
	free(img);
	free(frames);
	h->h_ckpt_dirty = 1;
	return 0;
}
