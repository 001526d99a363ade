/*
 * CilkNodeManager: its predicates.  The node's own (node=H scope) live
 * in state_dir/engine/predicates and are changed for CilkPred; the
 * broker's (always and user scopes) come in PRED_PUSH (both messages:
 * predmsg.c) and are cached in state_dir/engine/predicates.broker so
 * that a restarted node manager judges by them before the broker
 * speaks.  Until it has any copy of the broker's predicates the node
 * uses the built-in default in their place.  A broker on this host
 * keeps its own in state_dir/broker: no file here is shared.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "proto_pred_serve.h"

#define NPRED_FILE		"predicates"
#define NPRED_CACHE		"predicates.broker"
#define NPRED_USERS_MIN		5.0	/* s between unchanged reports */
#define NPRED_USERS_SLACK	2.0	/* s of idle-time drift ignored */

/* The set the node judges by: the broker's (or the default) and its own. */
int
node_pred_rebuild(struct node *n)
{
	struct pred_set *all, *dflt = NULL;
	const struct pred_set *cl = n->n_pred_cluster;
	const struct pred *p;
	char err[256];

	if ((all = pred_set_new()) == NULL)
		return -1;
	if (!n->n_pred_have_cluster) {
		if ((dflt = pred_set_new()) == NULL ||
		    pred_set_default(dflt) == -1)
			goto fail;
		cl = dflt;
	}
	for (p = pred_set_first(cl); p != NULL; p = pred_set_next(p))
		if (pred_set_add(all, p, err, sizeof(err)) == -1)
			goto fail;
	for (p = pred_set_first(n->n_pred_node); p != NULL;
	    p = pred_set_next(p))
		if (pred_set_add(all, p, err, sizeof(err)) == -1)
			goto fail;
	pred_set_free(dflt);
	pred_set_free(n->n_pred_all);
	n->n_pred_all = all;
	return 0;
 fail:
	log_warnx("%s: %s", __func__, err);
	pred_set_free(dflt);
	pred_set_free(all);
	return -1;
}

/* Loads one file; its errors go into err (stderr may be gone). */
static int
load(struct pred_set *set, const char *path, int *found, char *err,
    size_t errlen)
{
	char *msgs = NULL;
	size_t len = 0;
	FILE *fp;
	int rc;

	if ((fp = open_memstream(&msgs, &len)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = pred_set_load(set, path, 0, fp);
	fclose(fp);
	*found = rc != -1 || errno != ENOENT;
	if (rc == -1 && errno == ENOENT)
		rc = 0;
	else if (rc == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else if (rc > 0) {
		msgs[strcspn(msgs, "\n")] = '\0';
		snprintf(err, errlen, "%s (%d error%s)", msgs, rc,
		    rc == 1 ? "" : "s");
		rc = -1;
	}
	free(msgs);
	return rc;
}

/*
 * Versions before privilege separation kept the node's predicates in
 * state_dir/predicates, which a broker on this host wrote too: ours are
 * its node=H ones.  Read until we store our own; left in place.
 */
static int
takeover(struct node *n, char *err, size_t errlen)
{
	char old[PATH_MAX];
	int found;

	if (snprintf(old, sizeof(old), "%s/%s", n->n_state_dir,
	    NPRED_FILE) >= (int)sizeof(old)) {
		snprintf(err, errlen, "state_dir: path too long");
		return -1;
	}
	if (load(n->n_pred_node, old, &found, err, errlen) == -1)
		return -1;
	pred_set_keep_node(n->n_pred_node, 1);
	if (pred_set_count(n->n_pred_node) > 0)
		log_info("%s: %zu node predicate%s taken over", old,
		    pred_set_count(n->n_pred_node),
		    pred_set_count(n->n_pred_node) == 1 ? "" : "s");
	return 0;
}

int
node_pred_init(struct node *n, char *err, size_t errlen)
{
	int found;

	if (snprintf(n->n_pred_path, sizeof(n->n_pred_path), "%s/%s",
	    n->n_engine_dir, NPRED_FILE) >= (int)sizeof(n->n_pred_path) ||
	    snprintf(n->n_pred_cache, sizeof(n->n_pred_cache), "%s/%s",
	    n->n_engine_dir, NPRED_CACHE) >= (int)sizeof(n->n_pred_cache)) {
		snprintf(err, errlen, "state_dir: path too long");
		return -1;
	}
	if ((n->n_pred_node = pred_set_new()) == NULL ||
	    (n->n_pred_cluster = pred_set_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (load(n->n_pred_node, n->n_pred_path, &found, err, errlen) == -1)
		return -1;
	if (!found && takeover(n, err, errlen) == -1)
		return -1;
	/* A broken cache is only a cache: the broker sends it again. */
	if (load(n->n_pred_cluster, n->n_pred_cache, &found, err,
	    errlen) == -1) {
		log_warning("%s; waiting for the broker's predicates", err);
		pred_set_clear(n->n_pred_cluster);
		found = 0;
	}
	n->n_pred_have_cluster = found;
	if (node_pred_rebuild(n) == -1) {
		snprintf(err, errlen, "predicates: out of memory");
		return -1;
	}
	return 0;
}

void
node_pred_fini(struct node *n)
{
	pred_set_free(n->n_pred_node);
	pred_set_free(n->n_pred_cluster);
	pred_set_free(n->n_pred_all);
	n->n_pred_node = n->n_pred_cluster = n->n_pred_all = NULL;
}

/* The cluster's users with their idle times aged to now. */
size_t
node_pred_cluster_now(const struct node *n, struct pred_user *out)
{
	double age = now_mono() - n->n_cluster_at;
	size_t i;

	for (i = 0; i < n->n_ncluster; i++) {
		out[i] = n->n_cluster[i];
		if (out[i].pu_idle >= 0)
			out[i].pu_idle += age;
	}
	return n->n_ncluster;
}

int
node_pred_eval(struct node *n, struct pred_eval *ev, int stay)
{
	static struct pred_user cl[PRED_MEAS_USERS_MAX];
	struct pred_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.px_node = n->n_name;
	ctx.px_meas = &n->n_meas;
	ctx.px_cluster = cl;
	ctx.px_ncluster = node_pred_cluster_now(n, cl);
	ctx.px_idle = stay;
	return pred_eval(n->n_pred_all, &ctx, ev);
}

/*
 * Tells the broker who is logged in here when that changed: a user
 * arrived or left, or became active (idle time below what aging the
 * last report predicts); otherwise at most every NPRED_USERS_MIN s
 * while anyone is logged in, never while nobody is and nobody was.
 */
void
node_pred_report_users(struct node *n)
{
	struct proto_pred_users u;
	const struct proto_pred_users *s = &n->n_users_sent;
	double now = now_mono(), age = now - n->n_users_sent_at;
	size_t i, len;
	int changed;

	memset(&u, 0, sizeof(u));
	for (i = 0; i < n->n_meas.pm_nuser && i < PRED_MEAS_USERS_MAX; i++)
		u.pu_user[u.pu_n++] = n->n_meas.pm_user[i];
	changed = u.pu_n != s->pu_n || n->n_users_sent_at == 0;
	for (i = 0; !changed && i < u.pu_n; i++)
		changed = strcmp(u.pu_user[i].pu_name,
		    s->pu_user[i].pu_name) != 0 ||
		    (u.pu_user[i].pu_idle >= 0) != (s->pu_user[i].pu_idle >= 0) ||
		    (u.pu_user[i].pu_idle >= 0 && u.pu_user[i].pu_idle +
		    NPRED_USERS_SLACK < s->pu_user[i].pu_idle + age);
	if (!changed && (u.pu_n == 0 || age < NPRED_USERS_MIN))
		return;
	if ((len = proto_pred_users_enc(&u, n->n_buf, sizeof(n->n_buf))) ==
	    0 || msg_ep_send(n->n_dc.dc_ep, &n->n_broker, MSG_SCHEME_CLUSTER,
	    PROTO_H_PRED_USERS, n->n_buf, len) == -1) {
		log_debug("%s: not sent", __func__);
		return;
	}
	n->n_users_sent = u;
	n->n_users_sent_at = now;
}
