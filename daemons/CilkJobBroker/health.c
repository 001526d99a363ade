/* CilkJobBroker: drained and down nodes; see bhealth.h. */
#include <string.h>

#include "bhealth.h"
#include "log.h"
#include "mono.h"
#include "pred_auth.h"

/* A peer can make these lines repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;

void
bhealth_init(struct bhealth *bh, struct dctx *dc, struct broker *br,
    struct bpush *bu, const struct cookie_key *ck, void (*changed)(void *),
    void *arg)
{
	memset(bh, 0, sizeof(*bh));
	bh->bh_dc = dc;
	bh->bh_br = br;
	bh->bh_push = bu;
	bh->bh_cookie = ck;
	bh->bh_changed = changed;
	bh->bh_arg = arg;
	broker_health_init(&bh->bh_mem);
}

void
bhealth_fini(struct bhealth *bh)
{
	broker_health_fini(&bh->bh_mem);
}

static void
answer(struct bhealth *bh, struct msg_ep *ep, const struct msg_in *in,
    const char *done)
{
	static struct proto_health a;
	size_t len;

	memset(&a, 0, sizeof(a));
	strlcpy(a.he_done, done, sizeof(a.he_done));
	broker_health_rows(&bh->bh_mem, bh->bh_br, &a);
	if ((len = proto_health_enc(&a, bh->bh_buf, sizeof(bh->bh_buf))) ==
	    0) {
		proto_reply_error(ep, in, "the answer does not fit");
		return;
	}
	(void)msg_ep_reply(ep, in, PROTO_H_HEALTH, bh->bh_buf, len);
}

void
bhealth_on_req(struct bhealth *bh, struct msg_ep *ep, const struct msg_in *in)
{
	struct proto_health_req q;
	struct broker_node *n;
	char msg[PROTO_REASON_MAX];
	uint64_t epoch = bh->bh_br->br_epoch;
	int admin;

	if (proto_health_req_dec(&q, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	/* The answer lists up to 64 nodes: only where a cookie came back. */
	if (bh->bh_cookie == NULL || !cookie_proved(bh->bh_cookie, ep, in,
	    now_mono(), q.hq_has_cookie, q.hq_cookie))
		return;
	if (q.hq_op == PROTO_HO_LIST) {
		answer(bh, ep, in, "");
		return;
	}
	/* Only a user's own signature speaks for a user (not @cluster). */
	admin = in->mi_scheme == MSG_SCHEME_USER &&
	    msg_user_name_ok(in->mi_name) &&
	    pred_auth_listed(conf_get(bh->bh_dc->dc_conf, "admins"),
	    in->mi_name);
	if (broker_health_set(&bh->bh_mem, bh->bh_br, &q, in->mi_name, admin,
	    now_real_ms(), now_mono(), msg, sizeof(msg)) == -1) {
		if (log_rate(&refused_log, now_mono(), "refused drains"))
			log_info("%s of %s by %s refused: %s",
			    q.hq_op == PROTO_HO_DRAIN ? "drain" : "resume",
			    q.hq_node, in->mi_name, msg);
		proto_reply_error(ep, in, msg);
		return;
	}
	if (q.hq_op == PROTO_HO_DRAIN)
		log_info("%s (by %s, reason: %s)", msg, in->mi_name,
		    q.hq_reason);
	else
		log_info("%s (by %s)", msg, in->mi_name);
	/* A node drained now hears at once that it has no peers. */
	TAILQ_FOREACH(n, &bh->bh_br->br_nodes, bn_entry)
		if (n->bn_drain)
			bpush_to(bh->bh_push, n);
	if (bh->bh_br->br_epoch != epoch && bh->bh_changed != NULL)
		bh->bh_changed(bh->bh_arg);
	answer(bh, ep, in, msg);
}

void
bhealth_on_node_down(struct bhealth *bh, struct msg_ep *ep,
    const struct msg_in *in)
{
	struct proto_node_down d;
	struct broker_node *n;
	uint64_t epoch = bh->bh_br->br_epoch;

	(void)ep;
	if (proto_node_down_dec(&d, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	/* Only a node registered from there speaks for itself. */
	if ((n = broker_node_by_addr(bh->bh_br, &in->mi_from)) == NULL)
		return;
	if (broker_health_fault(&bh->bh_mem, bh->bh_br, n, d.nd_boot,
	    d.nd_gen, d.nd_reason, now_real_ms(), now_mono()) == 0)
		return;
	log_warnx("node %u (%s) is down: %s; it takes no work until "
	    "CilkNodes resume %u", n->bn_id, n->bn_host, d.nd_reason,
	    n->bn_id);
	bpush_to(bh->bh_push, n);	/* no peers for it from now on */
	if (bh->bh_br->br_epoch != epoch && bh->bh_changed != NULL)
		bh->bh_changed(bh->bh_arg);
}

void
bhealth_down(struct bhealth *bh, const struct broker_node *n, double silent)
{
	broker_health_down(&bh->bh_mem, n, silent, now_real_ms(), now_mono());
}

void
bhealth_expire(struct bhealth *bh, double now)
{
	bh->bh_mem.bh_down_keep = dctx_seconds(bh->bh_dc, "down_keep",
	    BROKER_DOWN_KEEP);
	broker_health_expire(&bh->bh_mem, now);
}
