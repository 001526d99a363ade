/*
 * CilkJobBroker's side of CilkNodes drain, resume and -R: a HEALTH_REQ
 * is carried out as broker_health_set() decides (a drain or resume only
 * for an administrator, signed by the user's own key) and answered with
 * HEALTH (what was done, and the held nodes) or an ERROR (why not).
 */
#ifndef CILKJOBBROKER_BHEALTH_H
#define CILKJOBBROKER_BHEALTH_H

#include "broker_health.h"
#include "bpush.h"
#include "cookie.h"
#include "dctx.h"

struct bhealth {
	struct dctx		*bh_dc;
	struct broker		*bh_br;
	struct bpush		*bh_push;
	const struct cookie_key	*bh_cookie;
	struct broker_health	 bh_mem;
	void			(*bh_changed)(void *);	/* schedule, push */
	void			*bh_arg;
	uint8_t			 bh_buf[MSG_PAYLOAD_MAX];
};

void	bhealth_init(struct bhealth *, struct dctx *, struct broker *,
	    struct bpush *, const struct cookie_key *,
	    void (*changed)(void *), void *arg);
void	bhealth_fini(struct bhealth *);
void	bhealth_on_req(struct bhealth *, struct msg_ep *,
	    const struct msg_in *);
/*
 * NODE_DOWN from a registered node (cluster scheme): it is down by
 * itself, with its reason, until CilkNodes resume (broker_health.h).
 */
void	bhealth_on_node_down(struct bhealth *, struct msg_ep *,
	    const struct msg_in *);
/* broker_expire's news of a node forgotten: it is down. */
void	bhealth_down(struct bhealth *, const struct broker_node *,
	    double silent);
/* Every tick: down_keep as configured now, old down records go. */
void	bhealth_expire(struct bhealth *, double now);

#endif
