/*
 * CilkNodeManager: the last hour of this node, for xCilkNodeInfo(1).
 * A sample every PROTO_HIST_PERIOD seconds and one at every change of
 * state go into a bounded ring (proto_hist.h); HIST_REQ pages it out to
 * whoever may ask the broker for its node list (either scheme; a user
 * proves its address with the node's cookie first, since the answer is
 * large).
 */
#include <math.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"

/* Thousandths, clamped: loads are unknown (NaN) or small. */
static uint32_t
milli(double v)
{
	if (!(v > 0))
		return 0;
	return v >= UINT32_MAX / 1000.0 ? UINT32_MAX : (uint32_t)lround(v * 1e3);
}

void
node_hist_sample(struct node *n)
{
	struct proto_hist_sample s;
	const char *names[PRED_MEAS_USERS_MAX];
	double guest[3];
	size_t i;

	memset(&s, 0, sizeof(s));
	s.hs_time_ms = now_real_ms();
	s.hs_state = n->n_state == PROTO_NS_UNDEF ? PROTO_NS_BUSY : n->n_state;
	s.hs_owner_milli = milli(n->n_meas.pm_load[0]);
	loadmodel_predict(&n->n_loadmodel, guest);
	s.hs_guest_milli = milli(guest[0]);
	s.hs_idle = !(n->n_meas.pm_idle > 0) ? 0 :
	    n->n_meas.pm_idle >= UINT32_MAX ? UINT32_MAX :
	    (uint32_t)n->n_meas.pm_idle;
	s.hs_users = n->n_meas.pm_nusers < 0 ? 0 :
	    n->n_meas.pm_nusers > UINT16_MAX ? UINT16_MAX :
	    (uint16_t)n->n_meas.pm_nusers;
	for (i = 0; i < n->n_meas.pm_nuser && i < PRED_MEAS_USERS_MAX; i++)
		names[i] = n->n_meas.pm_user[i].pu_name;
	proto_hist_names(s.hs_names, sizeof(s.hs_names), names, i);
	for (i = 0; i < n->n_total && n->n_slots[i].s_current == NULL; i++)
		;
	if (i < n->n_total) {
		s.hs_job = n->n_slots[i].s_current->w_job;
		strlcpy(s.hs_job_user, n->n_slots[i].s_current->w_user,
		    sizeof(s.hs_job_user));
	}
	s.hs_total = n->n_total;
	s.hs_lent = n->n_lent;
	s.hs_running = (uint16_t)node_slots_running(n);
	proto_hist_ring_push(&n->n_hist, &s);
}

static void
on_hist_timer(struct evloop *loop, void *arg)
{
	struct node *n = arg;

	node_hist_sample(n);
	(void)evloop_timer_add(loop, PROTO_HIST_PERIOD, on_hist_timer, n);
}

void
node_hist_start(struct node *n)
{
	proto_hist_ring_init(&n->n_hist);
	node_hist_sample(n);
	(void)evloop_timer_add(n->n_dc.dc_loop, PROTO_HIST_PERIOD,
	    on_hist_timer, n);
}

void
node_on_hist_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	static struct proto_hist h;
	struct node *n = arg;
	struct proto_hist_req q;
	size_t len;

	if (proto_hist_req_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	if (!cookie_proved(&n->n_cookie, ep, in, now_mono(), q.hq_has_cookie,
	    q.hq_cookie))
		return;
	memset(&h, 0, sizeof(h));
	strlcpy(h.hi_node, n->n_name, sizeof(h.hi_node));
	h.hi_boot = n->n_boot;
	h.hi_now_ms = now_real_ms();
	proto_hist_ring_page(&n->n_hist, q.hq_since, &h);
	if ((len = proto_hist_enc(&h, n->n_buf, sizeof(n->n_buf))) == 0) {
		log_warnx("%s: a page of history does not fit", __func__);
		return;
	}
	(void)msg_ep_reply(ep, in, PROTO_H_HIST, n->n_buf, len);
}
