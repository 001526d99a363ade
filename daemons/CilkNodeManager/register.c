/*
 * CilkNodeManager: registering with the broker (its answers and its
 * silence), and, while the node is down by itself, why (ndown.c).
 * What the broker pushes is push.c's.
 */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "proto_health.h"

#define BACKOFF_MAX	60.0

static void	on_reg_timer(struct evloop *, void *);

/* Down by itself (ndown.c): NODE_DOWN says why, with each registration. */
void
node_down_report(struct node *n)
{
	struct proto_node_down d;
	uint8_t buf[256];
	size_t len;

	if (!n->n_nd.nd_down)
		return;
	memset(&d, 0, sizeof(d));
	d.nd_boot = n->n_boot;
	d.nd_gen = n->n_nd.nd_gen;
	strlcpy(d.nd_reason, n->n_nd.nd_reason, sizeof(d.nd_reason));
	if ((len = proto_node_down_enc(&d, buf, sizeof(buf))) == 0 ||
	    msg_ep_send(n->n_dc.dc_ep, &n->n_broker, MSG_SCHEME_CLUSTER,
	    PROTO_H_NODE_DOWN, buf, len) == -1)
		log_debug("%s: send to the broker failed", __func__);
}

static void
send_register(struct node *n)
{
	static struct proto_node_reg r;
	const struct slot *s;
	uint16_t i;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.nr_node = n->n_id;
	r.nr_boot = n->n_boot;
	strlcpy(r.nr_host, n->n_name, sizeof(r.nr_host));
	r.nr_state = n->n_state;
	r.nr_total = n->n_total;
	r.nr_lent = n->n_lent;
	r.nr_mem_mb = node_mem_lendable(n, NULL);
	r.nr_unenforced = (uint8_t)contain_unenforced(&n->n_cb);
	r.nr_nslots = n->n_total;
	for (i = 0; i < n->n_total; i++) {
		s = &n->n_slots[i];
		r.nr_slots[i].ps_state = s->s_state;
		if (s->s_held != NULL && s->s_current == NULL)
			s = s->s_held;	/* it says what it is held for */
		r.nr_slots[i].ps_job = s->s_current != NULL ?
		    s->s_current->w_job : s->s_state == PROTO_NS_SWITCHING ?
		    s->s_want_job : 0;
		if (r.nr_job == 0)
			r.nr_job = r.nr_slots[i].ps_job;
	}
	r.nr_load_milli = (uint32_t)(n->n_meas.pm_load[0] * 1000);
	r.nr_idle = n->n_meas.pm_idle > 4e9 ? 4000000000u :
	    (uint32_t)n->n_meas.pm_idle;
	r.nr_users = (uint16_t)n->n_meas.pm_nusers;
	r.nr_pairs = (uint32_t)n->n_pair_sent;
	r.nr_switches = (uint32_t)n->n_pair_switches;
	if ((len = proto_node_reg_enc(&r, n->n_buf, sizeof(n->n_buf))) == 0 ||
	    msg_ep_send(n->n_dc.dc_ep, &n->n_broker, MSG_SCHEME_CLUSTER,
	    PROTO_H_NODE_REGISTER, n->n_buf, len) == -1)
		log_debug("%s: send to the broker failed", __func__);
	node_down_report(n);	/* down by itself: why, again (ndown.c) */
}

static void
arm(struct node *n, double delay)
{
	if (n->n_reg_timer != NULL)
		evloop_timer_cancel(n->n_dc.dc_loop, n->n_reg_timer);
	n->n_reg_timer = evloop_timer_add(n->n_dc.dc_loop,
	    delay > 0 ? delay : 0, on_reg_timer, n);
}

/* How long an answer may take before the broker counts as silent. */
static double
ack_wait(const struct node *n)
{
	return n->n_timeout < n->n_interval / 2 ? n->n_timeout :
	    n->n_interval / 2;
}

/*
 * Registers now.  If the broker answers, the next registration is an
 * interval later; if not, retries back off, doubling up to 60 s.
 */
void
node_register_now(struct node *n)
{
	/* Not before the parent has named the workers it adopted. */
	if (!n->n_hello)
		return;
	/*
	 * Leaving (leave.c): the broker hears that we lend nothing only
	 * once every worker's end has reached its job manager, or it would
	 * hand the processor on before the job manager knows the task is
	 * free, and the next node would be told "no task to run".
	 */
	if (n->n_leaving == 1 && !TAILQ_EMPTY(&n->n_workers))
		return;
	send_register(n);
	n->n_sent_at = now_mono();
	n->n_waiting = 1;
	arm(n, ack_wait(n));
}

/*
 * Why the broker is silent, as far as we can see: what the message
 * layer last refused from the broker's host lately (a key that does not
 * open it, or an authentic message stamped outside the replay window: a
 * clock skew), else plain silence.
 * The broker answers nothing it cannot open or finds stale (no oracle),
 * so from a cold start a key or clock it refuses looks like silence
 * here, and that line names our key id; the cause is named when the
 * broker's host does send to us (a broker that still lists us, a node
 * manager there, CilkPing).  Logged at warning priority when the
 * silence begins and when a cause differs from the last one logged, so
 * a broker that stays away is one line, not one a retry.
 */
static void
silence_warning(struct node *n)
{
	const struct msg_refusal *r = msg_ep_last_refusal(n->n_dc.dc_ep);
	const struct msg_keyset *ks = &n->n_dc.dc_keys->kr_cluster;
	uint32_t ours = ks->ks_n > 0 ? ks->ks_key[0].k_id : 0;
	char broker[64];
	int why = MSG_DROP_NONE;

	msg_addr_text(&n->n_broker, broker, sizeof(broker));
	/* The broker's host, any port: its node manager or tools count. */
	/* (A munge credential refused is a user's, not the broker's.) */
	if (r->mr_at > 0 && r->mr_why != MSG_DROP_BAD_CRED &&
	    r->mr_from.ma_family == n->n_broker.ma_family &&
	    memcmp(r->mr_from.ma_addr, n->n_broker.ma_addr,
	    sizeof(r->mr_from.ma_addr)) == 0 &&
	    r->mr_at >= n->n_sent_at - n->n_interval - BACKOFF_MAX)
		why = r->mr_why == MSG_DROP_STALE ? MSG_DROP_STALE :
		    MSG_DROP_BAD_MAC;
	/* A cause once named is not taken back for plain silence. */
	if (n->n_silent && (why == n->n_silent_why || why == MSG_DROP_NONE))
		return;
	n->n_silent_why = why;
	if (why == MSG_DROP_STALE)
		log_warning("the broker %s is out of reach: its messages carry "
		    "our cluster key but are stamped %+.1f s from our clock "
		    "(replay_window: at most %.0f s); set both clocks right "
		    "(NTP); retrying with backoff", broker,
		    (double)r->mr_skew_ms / 1000,
		    dctx_seconds(&n->n_dc, "replay_window", 30));
	else if (why == MSG_DROP_BAD_MAC)
		log_warning("the broker %s is out of reach: its messages do not "
		    "open with our cluster key (ours is key id %08x, its "
		    "messages name %08x): install the broker's cluster key "
		    "(cilknow(7)); retrying with backoff", broker, ours,
		    r->mr_keyid);
	else
		log_warning("the broker %s does not answer: it is down or "
		    "unreachable, or it refuses our cluster key (key id %08x) "
		    "or our clock (it logs neither); retrying with backoff",
		    broker, ours);
}

static void
on_reg_timer(struct evloop *loop, void *arg)
{
	struct node *n = arg;

	(void)loop;
	n->n_reg_timer = NULL;
	if (!n->n_waiting) {
		node_register_now(n);
		return;
	}
	n->n_waiting = 0;
	if (n->n_acked_at >= n->n_sent_at) {
		n->n_backoff = 1;
		n->n_silent = 0;
		arm(n, n->n_interval - ack_wait(n));
		return;
	}
	silence_warning(n);
	n->n_silent = 1;
	arm(n, n->n_backoff);
	n->n_backoff = n->n_backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX :
	    n->n_backoff * 2;
}

void
node_register_start(struct node *n)
{
	n->n_backoff = 1;
	node_register_now(n);
}

void
node_on_ack(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_ack a;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker) ||
	    proto_ack_dec(&a, in->mi_data, in->mi_len) == -1 || a.ak_id == 0)
		return;
	if (n->n_id != a.ak_id)
		log_info("registered with the broker as node %u", a.ak_id);
	n->n_id = a.ak_id;
	n->n_acked_at = now_mono();
	if (n->n_silent) {
		log_warning("the broker answers again");
		n->n_silent = 0;
		n->n_backoff = 1;
		n->n_waiting = 1;	/* the timer sees the answer */
		arm(n, 0);
	}
}
