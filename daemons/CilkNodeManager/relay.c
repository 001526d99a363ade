/*
 * CilkNodeManager: the workers' output to their job manager, in order
 * and acknowledged, read from the launch pad's log files, so nothing is
 * lost to a dropped datagram or to a restart of the node manager.
 * The job manager's acknowledgements come in through wevents.c.
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
