/* CilkPred: one request to the broker or a node manager, its answer. */
#include <stdio.h>
#include <string.h>

#include "brokerq.h"
#include "cilkpred.h"
#include "msg_keyring.h"

/* The answer, decoded (proto_pred_ans_free() it); -1: wait on. */
static int
take(void *arg, const uint8_t *data, size_t len)
{
	struct proto_pred_ans *ans = arg;

	if (proto_pred_ans_dec(ans, data, len) == -1) {
		proto_pred_ans_free(ans);
		return -1;
	}
	return 0;
}

int
cilkpred_ask(const struct conf *cf, const struct msg_addr *to,
    const char *what, const struct proto_pred_req *req, int need_user,
    struct proto_pred_ans *ans, char *err, size_t errlen)
{
	struct msg_keyring keys;
	struct brokerq_call c;
	uint8_t buf[PROTO_PRED_CMD_MAX + 64];
	char text[64];
	int rc = CLI_EXIT_FAILURE;

	memset(&c, 0, sizeof(c));
	memset(ans, 0, sizeof(*ans));
	c.bc_to = to;
	msg_addr_text(to, text, sizeof(text));
	if (msg_keyring_load(&keys, cf, MSG_KR_CLUSTER_OPT | MSG_KR_USER_OPT,
	    "tool", err, errlen) == -1)
		return CLI_EXIT_FAILURE;
	/* A change speaks for a user: only that user's key may sign it. */
	if (msg_keyring_user_name(&keys)[0] != '\0')
		c.bc_scheme = MSG_SCHEME_USER;
	else if (!need_user && keys.kr_cluster.ks_n > 0)
		c.bc_scheme = MSG_SCHEME_CLUSTER;
	else {
		char why[768];

		msg_keyring_no_user(cf, why, sizeof(why));
		snprintf(err, errlen, "%s (changing predicates speaks for a "
		    "user): %s", need_user ? "cannot authorise the change" :
		    "no key to ask with", why);
		goto out;
	}
	/* Sent without a cookie: the daemon may ask for one (bc_proven). */
	if (req->pq_has_cookie || (c.bc_plen = proto_pred_req_enc(req, buf,
	    sizeof(buf))) == 0) {
		snprintf(err, errlen, "the command is too long");
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	c.bc_req = PROTO_H_PRED_REQ;
	c.bc_ans = PROTO_H_PRED_ANSWER;
	c.bc_payload = buf;
	c.bc_proven = 1;
	c.bc_take = take;
	c.bc_arg = ans;
	rc = brokerq_call(cf, &keys, &c, err, errlen);
	if (rc == CLI_EXIT_TIMEOUT)
		snprintf(err, errlen, "no answer from %s at %s within %g s "
		    "(%d request%s, %s scheme)\ncheck that it runs and that "
		    "%s; 'CilkPing %s' tells more", what, text, c.bc_timeout,
		    c.bc_sent, c.bc_sent == 1 ? "" : "s",
		    msg_scheme_name(c.bc_scheme),
		    c.bc_scheme != MSG_SCHEME_USER ? "it holds the same "
		    "cluster key" : keys.kr_munge ? "its user_auth allows "
		    "munge and its munged has the same munge key as yours" :
		    "your public key is in its user_keys folder",
		    text);
	else if (rc == CLI_EXIT_FAILURE && c.bc_refused)
		snprintf(err, errlen, "%s at %s refused: %s", what, text,
		    c.bc_reason);
 out:
	msg_keyring_clear(&keys);
	return rc;
}
