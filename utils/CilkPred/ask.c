/* CilkPred: one request to the broker or a node manager, its answer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerq.h"
#include "cilkpred.h"
#include "log.h"
#include "msg_keyring.h"

struct ask {
	struct evloop		*a_loop;
	struct msg_ep		*a_ep;
	const struct msg_addr	*a_to;
	enum msg_scheme		 a_scheme;
	struct proto_pred_req	 a_req;		/* with the cookie, once sent */
	int			 a_cookies;	/* cookies taken */
	uint8_t			 a_buf[PROTO_PRED_CMD_MAX + 64];
	size_t			 a_len;
	double			 a_timeout;
	int			 a_sent;
	int			 a_done;
	int			 a_refused;
	char			 a_reason[PROTO_REASON_MAX];
	struct proto_pred_ans	*a_ans;
};

/* Only the daemon asked answers, and under the user scheme as @cluster. */
static int
from_target(const struct ask *a, const struct msg_in *in)
{
	if (!msg_addr_eq(&in->mi_from, a->a_to))
		return 0;
	if (in->mi_scheme == MSG_SCHEME_USER &&
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL))
		return 0;
	return 1;
}

static void
on_answer(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;

	(void)ep;
	if (a->a_done || !from_target(a, in))
		return;
	if (proto_pred_ans_dec(a->a_ans, in->mi_data, in->mi_len) == -1) {
		proto_pred_ans_free(a->a_ans);
		log_debug("%s: malformed answer", __func__);
		return;
	}
	a->a_done = 1;
	evloop_break(a->a_loop);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_error e;

	(void)ep;
	if (a->a_done || !from_target(a, in))
		return;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != PROTO_H_PRED_REQ)
		return;
	brokerq_safe(a->a_reason, sizeof(a->a_reason), e.er_reason);
	a->a_done = a->a_refused = 1;
	evloop_break(a->a_loop);
}

/* The daemon wants to see that we receive here: ask again, with this. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_cookie c;
	size_t len;

	(void)ep;
	if (a->a_done || !from_target(a, in) ||
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1)
		return;
	/* Once per try: a daemon cannot keep us asking. */
	if (a->a_cookies++ >= BROKERQ_TRIES)
		return;
	a->a_req.pq_has_cookie = 1;
	memcpy(a->a_req.pq_cookie, c.co_cookie, sizeof(c.co_cookie));
	if ((len = proto_pred_req_enc(&a->a_req, a->a_buf,
	    sizeof(a->a_buf))) == 0)
		return;
	a->a_len = len;
	if (msg_ep_send(a->a_ep, a->a_to, a->a_scheme, PROTO_H_PRED_REQ,
	    a->a_buf, a->a_len) == -1)
		log_debug("%s: send: %s", __func__, strerror(errno));
}

static const struct msg_handler ask_table[PROTO_H_MAX] = {
	[PROTO_H_COOKIE] = { "cookie", MSG_SCHEMES_ALL, on_cookie },
	[PROTO_H_PRED_ANSWER] = { "pred-answer", MSG_SCHEMES_ALL, on_answer },
	[PROTO_H_ERROR] = { "error", MSG_SCHEMES_ALL, on_error },
};

static void
on_resend(struct evloop *loop, void *arg)
{
	struct ask *a = arg;

	if (a->a_done)
		return;
	if (msg_ep_send(a->a_ep, a->a_to, a->a_scheme, PROTO_H_PRED_REQ,
	    a->a_buf, a->a_len) == -1)
		log_debug("%s: send: %s", __func__, strerror(errno));
	if (++a->a_sent < BROKERQ_TRIES)
		evloop_timer_add(loop, a->a_timeout / BROKERQ_TRIES, on_resend,
		    a);
}

static void
on_deadline(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

int
cilkpred_ask(const struct conf *cf, const struct msg_addr *to,
    const char *what, const struct proto_pred_req *req, int need_user,
    struct proto_pred_ans *ans, char *err, size_t errlen)
{
	struct msg_keyring keys;
	struct msg_ep_opts eo;
	struct msg_addr any;
	struct ask a;
	char text[64];
	int rc = CLI_EXIT_FAILURE;

	memset(&a, 0, sizeof(a));
	memset(ans, 0, sizeof(*ans));
	a.a_to = to;
	a.a_ans = ans;
	msg_addr_text(to, text, sizeof(text));
	if (conf_get_seconds(cf, "timeout", &a.a_timeout) == -1 ||
	    a.a_timeout <= 0)
		a.a_timeout = 3;
	if (msg_keyring_load(&keys, cf, MSG_KR_CLUSTER_OPT | MSG_KR_USER_OPT,
	    "tool", err, errlen) == -1)
		return CLI_EXIT_FAILURE;
	/* A change speaks for a user: only that user's key may sign it. */
	if (msg_keyring_user_name(&keys)[0] != '\0')
		a.a_scheme = MSG_SCHEME_USER;
	else if (!need_user && keys.kr_cluster.ks_n > 0)
		a.a_scheme = MSG_SCHEME_CLUSTER;
	else {
		char why[768];

		msg_keyring_no_user(cf, why, sizeof(why));
		snprintf(err, errlen, "%s (changing predicates speaks for a "
		    "user): %s", need_user ? "cannot authorise the change" :
		    "no key to ask with", why);
		goto out;
	}
	a.a_req = *req;
	if ((a.a_len = proto_pred_req_enc(&a.a_req, a.a_buf,
	    sizeof(a.a_buf))) == 0) {
		snprintf(err, errlen, "the command is too long");
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = to->ma_family;
	if ((a.a_loop = evloop_new()) == NULL ||
	    (a.a_ep = msg_ep_new(a.a_loop, &keys, ask_table, PROTO_H_MAX, &a,
	    &eo)) == NULL || msg_ep_bind(a.a_ep, &any) == -1) {
		snprintf(err, errlen, "endpoint: %s", strerror(errno));
		goto out;
	}
	evloop_timer_add(a.a_loop, a.a_timeout, on_deadline, &a);
	on_resend(a.a_loop, &a);
	if (evloop_run(a.a_loop) == -1)
		log_warn("%s: event loop", __func__);
	if (!a.a_done) {
		snprintf(err, errlen, "no answer from %s at %s within %g s "
		    "(%d request%s, %s scheme)\ncheck that it runs and that "
		    "%s; 'CilkPing %s' tells more", what, text, a.a_timeout,
		    a.a_sent, a.a_sent == 1 ? "" : "s",
		    msg_scheme_name(a.a_scheme),
		    a.a_scheme != MSG_SCHEME_USER ? "it holds the same "
		    "cluster key" : keys.kr_munge ? "its user_auth allows "
		    "munge and its munged has the same munge key as yours" :
		    "your public key is in its user_keys folder",
		    text);
		rc = CLI_EXIT_TIMEOUT;
	} else if (a.a_refused) {
		snprintf(err, errlen, "%s at %s refused: %s", what, text,
		    a.a_reason);
		rc = CLI_EXIT_FAILURE;
	} else
		rc = CLI_EXIT_OK;
 out:
	msg_ep_free(a.a_ep);
	evloop_free(a.a_loop);
	msg_keyring_clear(&keys);
	return rc;
}
