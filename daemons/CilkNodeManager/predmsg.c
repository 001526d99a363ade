/*
 * CilkNodeManager: its predicates in messages.  The broker's come in
 * PRED_PUSH with the cluster's users; CilkPred asks (PRED_REQ) to
 * check, list, add or delete the node's own (node=H scope).  A change
 * is judged by at once (idle.c); npred.c keeps the sets.  A check is
 * answered as of now: it waits for the parent's next measurement.
 */
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "proto_pred_serve.h"

void
node_on_pred_push(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	static struct proto_pred_push p;
	struct node *n = arg;
	struct pred_set *set;
	char err[256];
	int same;

	(void)ep;
	if (!msg_addr_eq(&in->mi_from, &n->n_broker)) {
		log_debug("%s: not from the broker", __func__);
		return;
	}
	if (proto_pred_push_dec(&p, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed", __func__);
		proto_pred_push_free(&p);
		return;
	}
	memcpy(n->n_cluster, p.pp_cluster, p.pp_ncluster *
	    sizeof(p.pp_cluster[0]));
	n->n_ncluster = p.pp_ncluster;
	n->n_cluster_at = now_mono();
	if ((set = pred_set_new()) == NULL ||
	    proto_pred_set_parse(set, p.pp_text, err, sizeof(err)) == -1) {
		log_warnx("%s: the broker's predicates: %s", __func__,
		    set != NULL ? err : "out of memory");
		goto out;
	}
	same = n->n_pred_have_cluster && pred_set_equal(set, n->n_pred_cluster);
	if (!same) {
		if (pred_set_save(set, n->n_pred_cache) == -1)
			log_warn("%s: %s", __func__, n->n_pred_cache);
		pred_set_free(n->n_pred_cluster);
		n->n_pred_cluster = set;
		set = NULL;
		n->n_pred_have_cluster = 1;
		if (node_pred_rebuild(n) == -1)
			log_warnx("%s: out of memory", __func__);
		log_info("the broker's predicates changed (%zu)",
		    pred_set_count(n->n_pred_cluster));
	}
	node_idle_update(n);
 out:
	pred_set_free(set);
	proto_pred_push_free(&p);
}

/* set (of filter's scope), as of this node (proto_pred_answer). */
static void
answer(struct node *n, const struct proto_pred_asked *k, uint8_t action,
    const struct pred_set *set, const struct pred_scope *filter)
{
	static struct proto_pred_ans a;

	memset(&a, 0, sizeof(a));
	a.pa_action = action;
	strlcpy(a.pa_node, n->n_name, sizeof(a.pa_node));
	if (action == PRED_A_CHECK) {
		a.pa_has_meas = 1;
		a.pa_idle = n->n_owner_away != 0;
		a.pa_meas = n->n_meas;
		a.pa_ncluster = (uint16_t)node_pred_cluster_now(n,
		    a.pa_cluster);
	}
	proto_pred_answer(k, &a, set, filter, n->n_buf, sizeof(n->n_buf));
}

/* Checks waiting for a measurement (msg_keep: not their bytes). */
#define CHECKS_WAITING_MAX	8

struct check_wait {
	struct proto_pred_asked	cw_k;
	struct msg_kept		cw_in;
};

static struct check_wait	waiting[CHECKS_WAITING_MAX];
static size_t			nwaiting;

static int
check_wait(const struct proto_pred_asked *k)
{
	struct check_wait *cw;

	if (nwaiting == CHECKS_WAITING_MAX)
		return -1;
	cw = &waiting[nwaiting++];
	cw->cw_k = *k;
	msg_keep(&cw->cw_in, k->pk_in);
	cw->cw_k.pk_in = &cw->cw_in.mk_in;
	return 0;
}

void
node_pred_checks_answer(struct node *n)
{
	size_t i;

	for (i = 0; i < nwaiting; i++)
		answer(n, &waiting[i].cw_k, PRED_A_CHECK, n->n_pred_all, NULL);
	nwaiting = 0;
}

/* Applies an add or del to the node's own set, then judges by it. */
static int
change(void *arg, const struct pred_cmd *cmd, char *why, size_t whylen)
{
	struct node *n = arg;

	if (proto_pred_set_change(&n->n_pred_node, n->n_pred_path, cmd, why,
	    whylen) == -1)
		return -1;
	return node_pred_rebuild(n);
}

void
node_on_pred_req(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct node *n = arg;
	struct proto_pred_asked k;
	const struct pred_cmd *cmd = &k.pk_cmd;
	const struct pred_scope *sc = &cmd->cm_pred.pr_scope;
	char why[PROTO_REASON_MAX];

	if (proto_pred_take(&k, ep, in, &n->n_cookie) == -1)
		return;
	if (cmd->cm_has_scope && sc->ps_node[0] != '\0' &&
	    !pred_node_match(sc->ps_node, n->n_name)) {
		snprintf(why, sizeof(why), "node=%.64s is not this node "
		    "(%.64s)", sc->ps_node, n->n_name);
		proto_reply_error(ep, in, why);
		return;
	}
	switch (cmd->cm_action) {
	case PRED_A_CHECK:
		/* As of now, not the last poll; too many: the last poll. */
		if (check_wait(&k) == 0)
			node_idle_update(n);
		else
			answer(n, &k, PRED_A_CHECK, n->n_pred_all, NULL);
		return;
	case PRED_A_LIST:
		answer(n, &k, PRED_A_LIST, n->n_pred_node,
		    cmd->cm_has_scope ? sc : NULL);
		return;
	default:
		break;
	}
	if (sc->ps_type != PRED_S_NODE) {
		proto_reply_error(ep, in, "only node=H predicates are kept by "
		    "node managers; the broker keeps the others");
		return;
	}
	if (proto_pred_change(&k, conf_get(n->n_dc.dc_conf, "admins"),
	    conf_get(n->n_dc.dc_conf, "owners"), change, n) == -1)
		return;
	answer(n, &k, cmd->cm_action, n->n_pred_node, sc);
	node_idle_update(n);
}
