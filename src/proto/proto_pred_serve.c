/* proto_pred_serve — a PRED_REQ, served alike by broker and nodes. */
#include "proto_pred_serve.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mono.h"
#include "msg.h"
#include "pred_auth.h"

int
proto_pred_take(struct proto_pred_asked *k, struct msg_ep *ep,
    const struct msg_in *in, const struct cookie_key *ck)
{
	char why[PROTO_REASON_MAX];

	memset(k, 0, sizeof(*k));
	k->pk_ep = ep;
	k->pk_in = in;
	k->pk_cookie = ck;
	if (proto_pred_req_cmd(in, &k->pk_req, &k->pk_cmd, why,
	    sizeof(why)) == 0)
		return 0;
	if (why[0] == '\0')
		log_debug("%s: malformed, from %s", __func__, in->mi_name);
	else
		proto_reply_error(ep, in, why);
	return -1;
}

void
proto_pred_answer(const struct proto_pred_asked *k, struct proto_pred_ans *a,
    const struct pred_set *set, const struct pred_scope *filter,
    uint8_t *buf, size_t bufsz)
{
	size_t len;

	if ((a->pa_text = proto_pred_set_text(set, filter)) == NULL) {
		proto_reply_error(k->pk_ep, k->pk_in, "out of memory");
		return;
	}
	if ((len = proto_pred_ans_enc(a, buf, bufsz)) == 0)
		proto_reply_error(k->pk_ep, k->pk_in, "too many predicates for "
		    "one answer");
	else if ((len <= PROTO_PRED_ANS_FREE || len <= k->pk_in->mi_len) ||
	    cookie_proved(k->pk_cookie, k->pk_ep, k->pk_in, now_mono(),
	    k->pk_req.pq_has_cookie, k->pk_req.pq_cookie))
		(void)msg_ep_reply(k->pk_ep, k->pk_in, PROTO_H_PRED_ANSWER,
		    buf, len);
	free(a->pa_text);
	a->pa_text = NULL;
}

/* A peer can make this line repeat; see log_rate(). */
static struct log_rate refused_log = LOG_RATE_DEFAULT;

int
proto_pred_change(const struct proto_pred_asked *k, const char *admins,
    const char *owners, int (*apply)(void *, const struct pred_cmd *,
    char *, size_t), void *arg)
{
	const struct msg_in *in = k->pk_in;
	char why[PROTO_REASON_MAX];
	const char *user;

	/* Its answer may be large: applied only for a proven address. */
	if (!cookie_proved(k->pk_cookie, k->pk_ep, in, now_mono(),
	    k->pk_req.pq_has_cookie, k->pk_req.pq_cookie))
		return -1;
	/* Only a user's own signature speaks for a user. */
	user = in->mi_scheme == MSG_SCHEME_USER &&
	    msg_user_name_ok(in->mi_name) ? in->mi_name : "";
	if (pred_auth_check(&k->pk_cmd.cm_pred.pr_scope, user, admins, owners,
	    why, sizeof(why)) == -1 ||
	    apply(arg, &k->pk_cmd, why, sizeof(why)) == -1) {
		if (log_rate(&refused_log, now_mono(),
		    "refused predicate requests"))
			log_info("predicates: %s from %s refused: %s",
			    k->pk_req.pq_cmd, in->mi_name, why);
		proto_reply_error(k->pk_ep, in, why);
		return -1;
	}
	log_info("predicates: %s by %s", k->pk_req.pq_cmd, user);
	return 0;
}
