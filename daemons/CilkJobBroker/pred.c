/* CilkJobBroker: the always and user predicates, and who is logged in. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpred.h"
#include "log.h"
#include "mono.h"
#include "priv.h"
#include "proto_pred_serve.h"

/*
 * state_dir, and the broker's own folder in it.  -1 with a message.
 */
static int
state_dirs(struct dctx *dc, char *sdir, char *bdir, size_t sz, char *err,
    size_t errlen)
{
	if (conf_get_path(dc->dc_conf, "state_dir", sdir, sz) == -1 ||
	    snprintf(bdir, sz, "%s/%s", sdir, BPRED_DIR) >= (int)sz) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	return 0;
}

int
bpred_prepare(struct dctx *dc, const struct priv_user *pu, char *err,
    size_t errlen)
{
	char sdir[PATH_MAX], bdir[PATH_MAX];
	struct stat st;
	int fd;

	if (state_dirs(dc, sdir, bdir, sizeof(sdir), err, errlen) == -1)
		return -1;
	/* state_dir stays root's: a node manager here keeps state in it. */
	if (mkdir(sdir, 0755) == 0)
		(void)chmod(sdir, 0755);	/* whatever the umask */
	else if (errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", sdir, strerror(errno));
		return -1;
	}
	if (mkdir(bdir, BPRED_DIR_MODE) == -1 && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", bdir, strerror(errno));
		return -1;
	}
	if (pu == NULL)
		return 0;
	/*
	 * Never follow a link put in its place.  O_PATH: root without
	 * CAP_DAC_OVERRIDE (the systemd unit) may not read the folder once
	 * it is the service user's, mode 0750.  Only root can replace the
	 * entry in state_dir, so the path names what fstat saw.
	 */
	if ((fd = open(bdir, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", bdir, errno == ENOTDIR ||
		    errno == ELOOP ? "not a folder" : strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	/* The mode while still root's: no CAP_FOWNER needed. */
	if (((st.st_mode & 07777) != BPRED_DIR_MODE &&
	    chmod(bdir, BPRED_DIR_MODE) == -1) ||
	    ((st.st_uid != pu->pu_uid || st.st_gid != pu->pu_gid) &&
	    fchownat(fd, "", pu->pu_uid, pu->pu_gid, AT_EMPTY_PATH) == -1)) {
		snprintf(err, errlen, "%s: %s", bdir, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return priv_reach(pu, bdir, err, errlen);
}

/*
 * pred_set_load with the first error in err: 0 loaded, -1 with errno
 * when path cannot be read (err set too), -2 when it has errors.
 */
static int
load(struct pred_set *set, const char *path, char *err, size_t errlen)
{
	char *msgs = NULL;
	size_t msglen = 0;
	FILE *errs;
	int rc, saved;

	/* The file's errors go into err: stderr may be gone already. */
	if ((errs = open_memstream(&msgs, &msglen)) == NULL) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return -1;
	}
	rc = pred_set_load(set, path, 0, errs);
	saved = errno;
	fclose(errs);
	if (rc > 0) {
		msgs[strcspn(msgs, "\n")] = '\0';
		snprintf(err, errlen, "%s (%d error%s)", msgs, rc,
		    rc == 1 ? "" : "s");
		rc = -2;
	} else if (rc == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
	free(msgs);
	errno = saved;
	return rc;
}

int
bpred_init(struct bpred *bp, struct dctx *dc, struct broker *br, char *err,
    size_t errlen)
{
	char sdir[PATH_MAX], bdir[PATH_MAX], old[PATH_MAX + 16];
	int rc;

	memset(bp, 0, sizeof(*bp));
	bp->bp_dc = dc;
	bp->bp_br = br;
	TAILQ_INIT(&bp->bp_hosts);
	if ((bp->bp_set = pred_set_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (state_dirs(dc, sdir, bdir, sizeof(sdir), err, errlen) == -1 ||
	    snprintf(bp->bp_path, sizeof(bp->bp_path), "%s/%s", bdir,
	    BPRED_FILE) >= (int)sizeof(bp->bp_path)) {
		snprintf(err, errlen, "state_dir: bad path");
		return -1;
	}
	if ((rc = load(bp->bp_set, bp->bp_path, err, errlen)) == 0) {
		log_info("%s: %zu predicate%s", bp->bp_path,
		    pred_set_count(bp->bp_set),
		    pred_set_count(bp->bp_set) == 1 ? "" : "s");
		return 0;
	}
	if (rc == -2 || errno != ENOENT)
		return -1;
	/*
	 * Versions before privilege separation kept the file in state_dir
	 * itself, which stays root's: take it over, leave it in place.  A
	 * node manager on this host wrote the same file then: its node=H
	 * predicates are its own (it takes them over), and a file left
	 * with none of ours is one it saved last: the default instead.
	 */
	snprintf(old, sizeof(old), "%s/%s", sdir, BPRED_FILE);
	if ((rc = load(bp->bp_set, old, err, errlen)) == -2 ||
	    (rc == -1 && errno != ENOENT))
		return -1;
	pred_set_keep_node(bp->bp_set, 0);
	if (rc == 0 && pred_set_count(bp->bp_set) == 0)
		rc = -1;
	/* First start: the default, stored so that it stays. */
	if (rc == -1 && pred_set_default(bp->bp_set) == -1) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (dc->dc_args.da_check)
		return 0;	/* -n writes nothing */
	if ((mkdir(bdir, BPRED_DIR_MODE) == -1 && errno != EEXIST) ||
	    pred_set_save(bp->bp_set, bp->bp_path) == -1) {
		snprintf(err, errlen, "%s: %s", bp->bp_path, strerror(errno));
		return -1;
	}
	if (rc == 0)
		log_info("%s: %zu predicate%s taken over from %s", bp->bp_path,
		    pred_set_count(bp->bp_set),
		    pred_set_count(bp->bp_set) == 1 ? "" : "s", old);
	else
		log_info("%s: new, with the built-in default predicate",
		    bp->bp_path);
	return 0;
}

void
bpred_fini(struct bpred *bp)
{
	struct bpred_host *h;

	while ((h = TAILQ_FIRST(&bp->bp_hosts)) != NULL) {
		TAILQ_REMOVE(&bp->bp_hosts, h, bh_entry);
		free(h);
	}
	pred_set_free(bp->bp_set);
	bp->bp_set = NULL;
}

/*
 * Everyone logged in anywhere, each with the least idle time reported
 * for them, aged to now.  An unknown idle time stays unknown unless
 * another node knows it.
 */
static uint16_t
cluster_users(const struct bpred *bp, double now, struct pred_user *out)
{
	const struct bpred_host *h;
	uint16_t n = 0, i, k;
	double idle;

	TAILQ_FOREACH(h, &bp->bp_hosts, bh_entry)
		for (i = 0; i < h->bh_users.pu_n; i++) {
			const struct pred_user *u = &h->bh_users.pu_user[i];

			idle = u->pu_idle >= 0 ? u->pu_idle + (now - h->bh_at) :
			    -1;
			for (k = 0; k < n; k++)
				if (strcmp(out[k].pu_name, u->pu_name) == 0)
					break;
			if (k == n) {
				if (n == PRED_MEAS_USERS_MAX)
					continue;	/* rare: logged */
				out[n] = *u;
				out[n++].pu_idle = idle;
			} else if (idle >= 0 && (out[k].pu_idle < 0 ||
			    idle < out[k].pu_idle))
				out[k].pu_idle = idle;
		}
	return n;
}

void
bpred_push_to(struct bpred *bp, const struct msg_addr *to)
{
	struct proto_pred_push p;
	double now = now_mono();

	if (bp->bp_push_len == 0 || bp->bp_push_epoch != bp->bp_epoch ||
	    now - bp->bp_push_at >= 1.0 || now < bp->bp_push_at) {
		memset(&p, 0, sizeof(p));
		p.pp_epoch = bp->bp_epoch;
		if ((p.pp_text = proto_pred_set_text(bp->bp_set, NULL)) ==
		    NULL) {
			log_warn("%s: predicates", __func__);
			return;
		}
		p.pp_ncluster = cluster_users(bp, now, p.pp_cluster);
		bp->bp_push_len = proto_pred_push_enc(&p, bp->bp_push_buf,
		    sizeof(bp->bp_push_buf));
		free(p.pp_text);
		if (bp->bp_push_len == 0) {
			log_warnx("%s: predicates too large to send",
			    __func__);
			return;
		}
		bp->bp_push_epoch = bp->bp_epoch;
		bp->bp_push_at = now;
	}
	if (msg_ep_send(bp->bp_dc->dc_ep, to, MSG_SCHEME_CLUSTER,
	    PROTO_H_PRED_PUSH, bp->bp_push_buf, bp->bp_push_len) == -1)
		log_debug("%s: send: %s", __func__, strerror(errno));
}

static void
push_all(struct bpred *bp)
{
	struct broker_node *n;

	TAILQ_FOREACH(n, &bp->bp_br->br_nodes, bn_entry)
		bpred_push_to(bp, &n->bn_addr);
}

static void
push_now(struct evloop *loop, void *arg)
{
	struct bpred *bp = arg;

	(void)loop;
	bp->bp_soon = NULL;
	push_all(bp);
}

/* The predicates of filter's scope (proto_pred_answer). */
static void
answer(struct bpred *bp, const struct proto_pred_asked *k, uint8_t action,
    const struct pred_scope *filter)
{
	struct proto_pred_ans a;

	memset(&a, 0, sizeof(a));
	a.pa_action = action;
	proto_pred_answer(k, &a, bp->bp_set, filter, bp->bp_buf,
	    sizeof(bp->bp_buf));
}

static int
change(void *arg, const struct pred_cmd *cmd, char *why, size_t whysz)
{
	struct bpred *bp = arg;

	return proto_pred_set_change(&bp->bp_set, bp->bp_path, cmd, why,
	    whysz);
}

void
bpred_on_req(struct bpred *bp, struct msg_ep *ep, const struct msg_in *in)
{
	struct proto_pred_asked k;
	const struct pred_cmd *cmd = &k.pk_cmd;

	if (proto_pred_take(&k, ep, in, bp->bp_cookie) == -1)
		return;
	switch (cmd->cm_action) {
	case PRED_A_LIST:
		answer(bp, &k, PRED_A_LIST, cmd->cm_has_scope ?
		    &cmd->cm_pred.pr_scope : NULL);
		return;
	case PRED_A_ADD:
	case PRED_A_DEL:
		break;
	default:
		proto_reply_error(ep, in, "check is answered by the node's "
		    "node manager");
		return;
	}
	if (proto_pred_change(&k, conf_get(bp->bp_dc->dc_conf, "admins"),
	    NULL, change, bp) == -1)
		return;
	bp->bp_epoch++;
	answer(bp, &k, cmd->cm_action, &cmd->cm_pred.pr_scope);
	push_all(bp);
}

static struct bpred_host *
host_find(struct bpred *bp, const struct msg_addr *a)
{
	struct bpred_host *h;

	TAILQ_FOREACH(h, &bp->bp_hosts, bh_entry)
		if (msg_addr_eq(&h->bh_addr, a))
			return h;
	return NULL;
}

void
bpred_on_users(struct bpred *bp, struct msg_ep *ep, const struct msg_in *in)
{
	struct proto_pred_users u;
	struct bpred_host *h;

	(void)ep;
	if (proto_pred_users_dec(&u, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
		return;
	}
	/* Only registered nodes: bounded by the node table. */
	if ((h = host_find(bp, &in->mi_from)) == NULL) {
		if (broker_node_by_addr(bp->bp_br, &in->mi_from) == NULL) {
			log_debug("%s: from an unregistered node", __func__);
			return;
		}
		if ((h = calloc(1, sizeof(*h))) == NULL) {
			log_warn("%s", __func__);
			return;
		}
		h->bh_addr = in->mi_from;
		TAILQ_INSERT_TAIL(&bp->bp_hosts, h, bh_entry);
		bp->bp_nhosts++;
	}
	h->bh_at = now_mono();
	h->bh_users = u;
	bp->bp_push_len = 0;	/* the cluster's users changed */
	/* Node managers report only real changes; tell everyone, batched. */
	if (bp->bp_soon == NULL)
		bp->bp_soon = evloop_timer_add(bp->bp_dc->dc_loop,
		    BPRED_USERS_DELAY, push_now, bp);
}

void
bpred_expire(struct bpred *bp, double now)
{
	struct bpred_host *h, *next;
	int gone = 0;

	for (h = TAILQ_FIRST(&bp->bp_hosts); h != NULL; h = next) {
		next = TAILQ_NEXT(h, bh_entry);
		if (now - h->bh_at > 3 * bp->bp_br->br_interval) {
			TAILQ_REMOVE(&bp->bp_hosts, h, bh_entry);
			free(h);
			bp->bp_nhosts--;
			bp->bp_push_len = 0;
			gone++;
		}
	}
	if (gone > 0 && bp->bp_soon == NULL)
		bp->bp_soon = evloop_timer_add(bp->bp_dc->dc_loop,
		    BPRED_USERS_DELAY, push_now, bp);
}
