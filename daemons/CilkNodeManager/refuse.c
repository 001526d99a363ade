/*
 * CilkNodeManager: a processor that cannot start the task it fetched,
 * for a reason the engine sees itself, tells the job manager at once
 * (DESC_REFUSED, proto_refuse.h) so that the task runs elsewhere now,
 * not after the job manager's reclaim: a description that does not
 * open (its user's key here, or its age: a clock), signed by another
 * user than the broker assigned, or answers of the job manager that do
 * not open here at all (no key for the user; a munge credential of a
 * uid unknown here: the user unknown here).  The job manager takes it
 * as a node-side failure (status PROTO_EXIT_NODE_FAULT, nodefault.h),
 * and so does our count (ndown.c).  A processor taken back by its owner
 * while it fetched, or whose job manager did not answer, is no fault:
 * it withdraws the fetch (PROTO_REFUSED_WITHDRAWN) and the task the job
 * manager may have handed it runs elsewhere at once too.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "node.h"
#include "priv.h"
#include "proto_refuse.h"

static void
send_refused(struct node *n, const struct slot *s, uint8_t kind,
    const char *head, const char *why)
{
	struct proto_desc_refused m;
	size_t len, i;

	memset(&m, 0, sizeof(m));
	m.rf_job = s->s_want_job;
	m.rf_kind = kind;
	m.rf_fetch = s->s_fetch_id;
	strlcpy(m.rf_node, s->s_name, sizeof(m.rf_node));
	snprintf(m.rf_reason, sizeof(m.rf_reason), "%s: %s", head,
	    why[0] != '\0' ? why : "no reason given");
	for (i = 0; m.rf_reason[i] != '\0'; i++)
		if ((unsigned char)m.rf_reason[i] < 0x20 ||
		    m.rf_reason[i] == 0x7f)
			m.rf_reason[i] = '?';
	if ((len = proto_desc_refused_enc(&m, n->n_buf,
	    sizeof(n->n_buf))) == 0 ||
	    msg_ep_send(n->n_dc.dc_ep, &s->s_want_jobmgr, MSG_SCHEME_USER,
	    PROTO_H_DESC_REFUSED, n->n_buf, len) == -1)
		log_debug("%s: send failed", __func__);
}

void
node_desc_refused(struct node *n, struct slot *s, const char *why)
{
	if (s->s_want_job == 0)
		return;
	send_refused(n, s, PROTO_REFUSED_FAULT, "not started", why);
	node_fault_counted(n, why);
}

void
node_fetch_withdraw(struct node *n, struct slot *s, const char *why)
{
	/* Only a fetch under way: a DESC_REQ went, a task may be ours. */
	if (s->s_want_job == 0 || s->s_current != NULL ||
	    s->s_fetch_tries == 0)
		return;
	log_info("job %u: processor %u withdraws its fetch: %s",
	    s->s_want_job, s->s_index, why);
	send_refused(n, s, PROTO_REFUSED_WITHDRAWN, "withdrawn", why);
}

/*
 * The job manager's answers did not come: if what came from its address
 * lately was refused by the message layer, say why (a key the node does
 * not have, a clock), into why; 0 then, -1 if it was plain silence.
 */
int
node_fetch_refusal(const struct node *n, const struct slot *s, double since,
    char *why, size_t whysz)
{
	const struct msg_refusal *r = msg_ep_last_refusal(n->n_dc.dc_ep);
	uid_t uid;

	if (r->mr_at < since || !msg_addr_eq(&r->mr_from, &s->s_want_jobmgr))
		return -1;
	switch (r->mr_why) {
	case MSG_DROP_STALE:
		snprintf(why, whysz, "the job manager's answers are stamped "
		    "%+.1f s from this node's clock (replay_window)",
		    (double)r->mr_skew_ms / 1000);
		return 0;
	case MSG_DROP_UNKNOWN_KEY:
	case MSG_DROP_BAD_MAC:
	case MSG_DROP_BAD_SIG:
		snprintf(why, whysz, "the job manager's answers do not open "
		    "here: no key for user %s in user_keys opens them",
		    s->s_want_user);
		return 0;
	case MSG_DROP_BAD_CRED:
		/*
		 * Its munge credential names a uid: one this node does not
		 * know is the user unknown here (as pcheck.c says it).
		 */
		if (priv_uid_of_name(s->s_want_user, &uid) == -1 &&
		    errno == ENOENT)
			snprintf(why, whysz, "user %s unknown",
			    s->s_want_user);
		else
			snprintf(why, whysz, "the job manager's answers carry "
			    "a munge credential that does not open here: "
			    "another munge key, or user %s has another uid "
			    "here", s->s_want_user);
		return 0;
	default:
		return -1;
	}
}
