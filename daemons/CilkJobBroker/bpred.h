/*
 * CilkJobBroker's predicates: it keeps the `always` and `user` scopes
 * in state_dir/broker/predicates, changes them for CilkPred when the signed
 * request is authorised, pushes them with the cluster's logged-in users
 * to every node manager, and collects who is logged in where.
 */
#ifndef CILKJOBBROKER_BPRED_H
#define CILKJOBBROKER_BPRED_H

#include <sys/queue.h>

#include <limits.h>

#include "broker.h"
#include "cookie.h"
#include "dctx.h"
#include "pred.h"
#include "proto_pred.h"

#define BPRED_DIR		"broker"	/* in state_dir: ours */
#define BPRED_DIR_MODE		0750
#define BPRED_FILE		"predicates"
#define BPRED_USERS_DELAY	1.0	/* seconds: user changes batched */

/* Who is logged in on one node, as it last said. */
struct bpred_host {
	TAILQ_ENTRY(bpred_host)	 bh_entry;
	struct msg_addr		 bh_addr;
	double			 bh_at;		/* now_mono() of the report */
	struct proto_pred_users	 bh_users;
};

TAILQ_HEAD(bpred_host_list, bpred_host);

struct bpred {
	struct dctx		*bp_dc;
	struct broker		*bp_br;
	struct pred_set		*bp_set;
	char			 bp_path[PATH_MAX];
	uint64_t		 bp_epoch;
	const struct cookie_key	*bp_cookie;	/* the broker's */
	struct bpred_host_list	 bp_hosts;
	size_t			 bp_nhosts;
	struct evtimer		*bp_soon;
	/*
	 * The PRED_PUSH as last encoded: every registration is answered
	 * with one, and formatting the predicates and gathering the
	 * cluster's users for each cost more than the send.  Good while
	 * bp_epoch holds, no host reported users, and for a second (the
	 * users' idle times age).
	 */
	size_t			 bp_push_len;	/* 0: none */
	uint64_t		 bp_push_epoch;
	double			 bp_push_at;
	uint8_t			 bp_push_buf[MSG_PAYLOAD_MAX];
	uint8_t			 bp_buf[MSG_PAYLOAD_MAX];
};

/*
 * Before the drop (dctx's ds_prepare), as root: state_dir/broker, the
 * only folder the broker writes, made the service user's (pu), mode
 * 0750, and reachable by it.  state_dir itself stays root's, for a
 * node manager on the same host keeps there what root trusts.  Not
 * root (pu NULL): the folders are only made.  -1 with a message.
 */
int	bpred_prepare(struct dctx *, const struct priv_user *pu, char *err,
	    size_t errlen);
/*
 * Loads state_dir/broker/predicates, else takes over state_dir/
 * predicates of an older version (left in place); a broker with
 * neither starts from the built-in default and writes it, so that
 * adding a user's predicate does not silently drop it.  -1 with the
 * reasons in err.
 */
int	bpred_init(struct bpred *, struct dctx *, struct broker *, char *err,
	    size_t errlen);
void	bpred_fini(struct bpred *);
void	bpred_on_req(struct bpred *, struct msg_ep *, const struct msg_in *);
void	bpred_on_users(struct bpred *, struct msg_ep *, const struct msg_in *);
/* Sends the predicates and the cluster's users to one node manager. */
void	bpred_push_to(struct bpred *, const struct msg_addr *);
/* Forgets user reports older than 3 register intervals. */
void	bpred_expire(struct bpred *, double now);

#endif
