/* brokerq_ask — one request signed by the user, its answer or why not. */
#include "brokerq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "msg_keyring.h"

struct ask {
	struct evloop		*a_loop;
	struct msg_ep		*a_ep;
	struct msg_addr		 a_broker;
	uint16_t		 a_req, a_ans;
	const void		*a_payload;
	size_t			 a_plen;
	uint8_t			*a_out;
	size_t			 a_outsz, a_outlen;
	double			 a_timeout;
	int			 a_sent;
	int			 a_done;
	int			 a_refused;
	int			 a_malformed;
	char			 a_reason[PROTO_REASON_MAX];
	/* brokerq_ask_proven: the payload again with a cookie. */
	int			 a_proven;
	int			 a_cookies;
	uint8_t			 a_with[MSG_PAYLOAD_MAX];
};

/* Only the broker speaks for the broker: its address, as @cluster. */
static int
from_broker(const struct ask *a, const struct msg_in *in)
{
	return msg_addr_eq(&in->mi_from, &a->a_broker) &&
	    msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL);
}

static void
on_answer(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;

	(void)ep;
	if (a->a_done || !from_broker(a, in) ||
	    in->mi_hdr->mh_handler != a->a_ans)
		return;
	if (in->mi_len > a->a_outsz) {
		a->a_malformed++;
		return;
	}
	memcpy(a->a_out, in->mi_data, in->mi_len);
	a->a_outlen = in->mi_len;
	a->a_done = 1;
	evloop_break(a->a_loop);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_error e;

	(void)ep;
	if (a->a_done || !from_broker(a, in))
		return;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != a->a_req) {
		a->a_malformed++;
		return;
	}
	brokerq_safe(a->a_reason, sizeof(a->a_reason), e.er_reason);
	a->a_done = a->a_refused = 1;
	evloop_break(a->a_loop);
}

static void	on_resend(struct evloop *, void *);

/* The broker wants its cookie echoed: the request again, with it. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct proto_cookie c;

	(void)ep;
	if (a->a_done || !from_broker(a, in) ||
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1 ||
	    a->a_cookies++ >= BROKERQ_TRIES ||
	    a->a_plen + PROTO_COOKIE_LEN > sizeof(a->a_with))
		return;
	/* The payload ends in has_cookie (0): 1 and the cookie instead. */
	memcpy(a->a_with, a->a_payload, a->a_plen);
	a->a_with[a->a_plen - 1] = 1;
	memcpy(a->a_with + a->a_plen, c.co_cookie, PROTO_COOKIE_LEN);
	a->a_payload = a->a_with;
	a->a_plen += PROTO_COOKIE_LEN;
	a->a_sent = 0;
	on_resend(a->a_loop, a);
}

static void
on_resend(struct evloop *loop, void *arg)
{
	struct ask *a = arg;

	if (a->a_done)
		return;
	/* A fresh nonce each time: the broker takes each one once. */
	if (msg_ep_send(a->a_ep, &a->a_broker, MSG_SCHEME_USER, a->a_req,
	    a->a_payload, a->a_plen) == -1)
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

static int	ask(const struct conf *, uint16_t, const void *, size_t,
		    uint16_t, uint8_t *, size_t, size_t *, char *, size_t, int);

int
brokerq_ask(const struct conf *cf, uint16_t req, const void *payload,
    size_t plen, uint16_t ans, uint8_t *out, size_t outsz, size_t *outlen,
    char *err, size_t errlen)
{
	return ask(cf, req, payload, plen, ans, out, outsz, outlen, err,
	    errlen, 0);
}

int
brokerq_ask_proven(const struct conf *cf, uint16_t req, const void *payload,
    size_t plen, uint16_t ans, uint8_t *out, size_t outsz, size_t *outlen,
    char *err, size_t errlen)
{
	if (plen == 0 || ((const uint8_t *)payload)[plen - 1] != 0) {
		snprintf(err, errlen, "the request has no place for a cookie");
		return CLI_EXIT_FAILURE;
	}
	return ask(cf, req, payload, plen, ans, out, outsz, outlen, err,
	    errlen, 1);
}

static int
ask(const struct conf *cf, uint16_t req, const void *payload,
    size_t plen, uint16_t ans, uint8_t *out, size_t outsz, size_t *outlen,
    char *err, size_t errlen, int proven)
{
	/* Both answers; the table is indexed by handler number. */
	struct msg_handler table[PROTO_H_MAX];
	struct msg_keyring keys;
	struct msg_ep_opts eo;
	struct msg_addr any;
	struct ask a;
	const char *broker = conf_get(cf, "broker");
	char text[64];
	int rc = CLI_EXIT_FAILURE;

	memset(&a, 0, sizeof(a));
	memset(&keys, 0, sizeof(keys));
	*outlen = 0;
	if (ans >= PROTO_H_MAX) {
		snprintf(err, errlen, "no such answer");
		return CLI_EXIT_FAILURE;
	}
	if (msg_addr_parse(&a.a_broker, broker, 7410) == -1) {
		snprintf(err, errlen, "broker %s: bad or unknown address",
		    broker);
		return CLI_EXIT_USAGE;
	}
	msg_addr_text(&a.a_broker, text, sizeof(text));
	a.a_req = req;
	a.a_ans = ans;
	a.a_payload = payload;
	a.a_plen = plen;
	a.a_out = out;
	a.a_outsz = outsz;
	a.a_proven = proven;
	if (conf_get_seconds(cf, "timeout", &a.a_timeout) == -1 ||
	    a.a_timeout <= 0)
		a.a_timeout = 3;
	if (msg_keyring_load(&keys, cf, MSG_KR_USER_OPT, "tool", err,
	    errlen) == -1)
		return CLI_EXIT_FAILURE;
	if (msg_keyring_user_name(&keys)[0] == '\0') {
		msg_keyring_no_user(cf, err, errlen);
		goto out;
	}
	memset(table, 0, sizeof(table));
	table[ans] = (struct msg_handler){ "answer", MSG_SCHEMES_ALL,
	    on_answer };
	table[PROTO_H_ERROR] = (struct msg_handler){ "error", MSG_SCHEMES_ALL,
	    on_error };
	if (proven)
		table[PROTO_H_COOKIE] = (struct msg_handler){ "cookie",
		    MSG_SCHEMES_ALL, on_cookie };
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = a.a_broker.ma_family;
	if ((a.a_loop = evloop_new()) == NULL ||
	    (a.a_ep = msg_ep_new(a.a_loop, &keys, table, PROTO_H_MAX, &a,
	    &eo)) == NULL || msg_ep_bind(a.a_ep, &any) == -1) {
		snprintf(err, errlen, "endpoint: %s", strerror(errno));
		goto out;
	}
	evloop_timer_add(a.a_loop, a.a_timeout, on_deadline, &a);
	on_resend(a.a_loop, &a);
	if (evloop_run(a.a_loop) == -1)
		log_warn("%s: event loop", __func__);
	if (!a.a_done) {
		snprintf(err, errlen, "no answer from the broker at %s within "
		    "%g s (%d request%s, user scheme, key of %s)\ncheck that "
		    "CilkJobBroker runs there (the configuration's broker key, "
		    "or -b HOST[:PORT]), that your public key is in its "
		    "user_keys folder, that cluster_pub (%s) is the cluster's, "
		    "and that both clocks agree; 'CilkPing %s' tells more%s",
		    text, a.a_timeout, a.a_sent, a.a_sent == 1 ? "" : "s",
		    msg_keyring_user_name(&keys), conf_get(cf,
		    "cluster_pub"), text, a.a_malformed > 0 ?
		    "\nsome answers could not be read (another version of "
		    "cilknow?)" : "");
		rc = CLI_EXIT_TIMEOUT;
	} else if (a.a_refused) {
		snprintf(err, errlen, "the broker at %s refused: %s", text,
		    a.a_reason);
		rc = CLI_EXIT_FAILURE;
	} else {
		*outlen = a.a_outlen;
		rc = CLI_EXIT_OK;
	}
 out:
	msg_ep_free(a.a_ep);
	evloop_free(a.a_loop);
	msg_keyring_clear(&keys);
	return rc;
}
