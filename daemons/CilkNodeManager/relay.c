/*
 * CilkNodeManager: the workers' output to their job manager, in order
 * and acknowledged, read from the launch pad's log files, so nothing is
 * lost to a dropped datagram or to a restart of the node manager.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "lpad.h"
#include "mono.h"
#include "node.h"

#define CHUNK	4096

static void
send_output(struct node *n, struct worker *w, uint8_t stream,
    uint64_t offset, const uint8_t *data, uint16_t len)
{
	struct proto_output o;
	size_t mlen;

	memset(&o, 0, sizeof(o));
	o.ou_job = w->w_job;
	o.ou_task = w->w_task;
	o.ou_stream = stream;
	o.ou_offset = offset;
	o.ou_status = w->w_status;
	/* What it used, from a worker that ran (CilkHist(1)). */
	o.ou_cpu_ms = o.ou_maxrss_kb = PROTO_USAGE_NONE;
	o.ou_has_usage = stream == PROTO_STREAM_EXIT;
	if (stream == PROTO_STREAM_EXIT && len == 0) {
		o.ou_cpu_ms = w->w_cpu_ms;
		o.ou_maxrss_kb = w->w_maxrss_kb;
	}
	o.ou_len = len;
	o.ou_data = data;
	strlcpy(o.ou_node, w->w_name, sizeof(o.ou_node));
	if ((mlen = proto_output_enc(&o, n->n_buf, sizeof(n->n_buf))) > 0 &&
	    msg_ep_send(n->n_dc.dc_ep, &w->w_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_OUTPUT, n->n_buf, mlen) == -1)
		log_debug("%s: send failed", __func__);
}

/* 1 while there is output not yet acknowledged (or not yet read). */
static int
relay_stream(struct node *n, struct worker *w, uint8_t stream, double now)
{
	struct relay_stream *rs = &w->w_out[stream];
	uint8_t buf[CHUNK];
	ssize_t got;

	if (rs->rs_sent > rs->rs_acked && now - rs->rs_sent_at < RELAY_WAIT)
		return 1;		/* in flight */
	got = lpad_read_log(n->n_state_dir, w->w_id, stream ==
	    PROTO_STREAM_OUT ? LPAD_STREAM_OUT : stream == PROTO_STREAM_ERR ?
	    LPAD_STREAM_ERR : LPAD_STREAM_STAGE,
	    rs->rs_acked - rs->rs_base, buf, sizeof(buf));
	if (got == -1 && errno == ERANGE) {
		/*
		 * logrotate's copytruncate emptied the log: what the worker
		 * writes now starts at the file's byte 0, and the stream
		 * goes on from where the job manager is.
		 */
		log_info("worker %s: its %s log was truncated (rotated); "
		    "relaying from its new start", w->w_id,
		    stream == PROTO_STREAM_OUT ? "output" : "error");
		rs->rs_base = rs->rs_acked;
		return 1;
	}
	if (got <= 0) {
		rs->rs_sent = rs->rs_acked;
		return 0;
	}
	send_output(n, w, stream, rs->rs_acked, buf, (uint16_t)got);
	rs->rs_sent = rs->rs_acked + (uint64_t)got;
	rs->rs_sent_at = now;
	return 1;
}

void
node_worker_free(struct node *n, struct worker *w)
{
	char path[PATH_MAX + 64];

	node_stagein_free(n, w);
	/* The launch pad may go now, and take the worker's folder along. */
	if (w->w_id[0] != '\0') {
		node_chan_forget(n, w->w_id);
		snprintf(path, sizeof(path), "%s/nm/%s", n->n_engine_dir,
		    w->w_id);
		if (unlink(path) == -1 && errno != ENOENT)
			log_warn("%s: %s", __func__, path);
	}
	if (w->w_slot != NULL && w->w_slot->s_current == w)
		w->w_slot->s_current = NULL;
	TAILQ_REMOVE(&n->n_workers, w, w_entry);
	free(w);
}

void
node_relay(struct node *n, struct worker *w)
{
	struct relay_stream *ex = &w->w_out[PROTO_STREAM_EXIT];
	double now = now_mono();
	int busy;

	/*
	 * A job manager that is gone (JOB_GONE, or silent too long) is
	 * dropped by nodeworker (nw_job_ended, nw_tick), not here.
	 */
	busy = relay_stream(n, w, PROTO_STREAM_OUT, now);
	busy |= relay_stream(n, w, PROTO_STREAM_ERR, now);
	/* Stage-out records (stage.h): written once the worker exited. */
	if (w->w_nw.nw_state == NW_EXITED)
		busy |= relay_stream(n, w, PROTO_STREAM_STAGE, now);
	if (w->w_nw.nw_state != NW_EXITED || busy)
		return;
	if (w->w_nw.nw_exit_acked) {
		node_worker_free(n, w);
		return;
	}
	if (now - ex->rs_sent_at >= RELAY_WAIT) {
		/* A worker that never ran says why, as the exit's data. */
		send_output(n, w, PROTO_STREAM_EXIT, 0,
		    (const uint8_t *)w->w_why, (uint16_t)strlen(w->w_why));
		ex->rs_sent_at = now;
	}
}

/*
 * No bytes of output: tells the job manager the worker lives, so it
 * does not take the task back (CilkJobManager(8)); acknowledged too.
 */
void
node_relay_alive(struct node *n, struct worker *w)
{
	if (nw_up(w->w_nw.nw_state) || w->w_nw.nw_state == NW_STOPPING)
		send_output(n, w, PROTO_STREAM_OUT,
		    w->w_out[PROTO_STREAM_OUT].rs_acked, NULL, 0);
}

/*
 * The worker an acknowledgement is for.  Two of them can have the same
 * job and task here: an attempt still relaying its last bytes or exit
 * on one processor while the next runs on another.  The one whose
 * unacknowledged bytes the offset falls in is meant; else the first
 * (a node manager restarted: the job manager may be ahead of us).
 */
static struct worker *
ack_owner(struct node *n, const struct msg_in *in,
    const struct proto_output_ack *a)
{
	struct worker *w, *first = NULL;
	const struct relay_stream *rs;

	TAILQ_FOREACH(w, &n->n_workers, w_entry) {
		if (w->w_job != a->oa_job || w->w_task != a->oa_task ||
		    !msg_addr_eq(&in->mi_from, &w->w_jobmgr))
			continue;
		if (first == NULL)
			first = w;
		if (a->oa_stream == PROTO_STREAM_EXIT) {
			if (w->w_nw.nw_state == NW_EXITED)
				return w;
			continue;
		}
		rs = &w->w_out[a->oa_stream];
		if (a->oa_offset >= rs->rs_acked &&
		    a->oa_offset <= rs->rs_sent)
			return w;
	}
	return first;
}

void
node_on_output_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_output_ack a;
	struct worker *w;

	(void)ep;
	if (proto_output_ack_dec(&a, in->mi_data, in->mi_len) == -1)
		return;
	/* Job ids start again after a broker restart: its manager too. */
	w = ack_owner(n, in, &a);
	if (w == NULL || !msg_addr_eq(&in->mi_from, &w->w_jobmgr) ||
	    !msg_verify_sender(in, MSG_SCHEME_USER, w->w_user, NULL))
		return;
	w->w_seen = now_mono();
	if (a.oa_stream == PROTO_STREAM_EXIT) {
		struct slot *s = w->w_slot;
		uint32_t job = w->w_job;
		struct msg_addr jobmgr = w->w_jobmgr;
		uint16_t cpus = w->w_cpus;
		uint32_t mem_mb = w->w_mem_mb;
		char user[sizeof(w->w_user)];

		strlcpy(user, w->w_user, sizeof(user));
		/* Relayed, then freed (a running one's is no exit: kept). */
		node_worker_act(n, w, nw_exit_acked(&w->w_nw, now_mono()),
		    "its exit was acknowledged");
		if (a.oa_offset == PROTO_EXIT_ACK_MORE)
			node_next_task(n, s, job, &jobmgr, user, cpus,
			    mem_mb);
		return;
	}
	/* The job manager says where it is: it may be ahead of us. */
	if (a.oa_offset > w->w_out[a.oa_stream].rs_acked) {
		w->w_out[a.oa_stream].rs_acked = a.oa_offset;
		node_relay(n, w);
	}
}
