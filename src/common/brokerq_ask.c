/* brokerq_ask — one request signed by the user, its answer or why not. */
#include "brokerq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "errbuf.h"
#include "log.h"
#include "msg_keyring.h"

struct ask {
	struct evloop		*a_loop;
	struct msg_ep		*a_ep;
	struct brokerq_call	*a_call;
	const void		*a_payload;	/* sent: with the cookie, once */
	size_t			 a_plen;
	double			 a_timeout;
	int			 a_done;
	int			 a_cookies;
	uint8_t			 a_with[MSG_PAYLOAD_MAX];
};

/* Only the daemon asked answers, and under the user scheme as @cluster. */
static int
from_target(const struct ask *a, const struct msg_in *in)
{
	if (!msg_addr_eq(&in->mi_from, a->a_call->bc_to))
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
	struct brokerq_call *c = a->a_call;

	(void)ep;
	if (a->a_done || !from_target(a, in) ||
	    in->mi_hdr->mh_handler != c->bc_ans)
		return;
	if (c->bc_take(c->bc_arg, in->mi_data, in->mi_len) == -1) {
		c->bc_malformed++;
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
	struct brokerq_call *c = a->a_call;
	struct proto_error e;

	(void)ep;
	if (a->a_done || !from_target(a, in))
		return;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != c->bc_req) {
		c->bc_malformed++;
		return;
	}
	brokerq_safe(c->bc_reason, sizeof(c->bc_reason), e.er_reason);
	a->a_done = c->bc_refused = 1;
	evloop_break(a->a_loop);
}

static void
send_req(struct ask *a)
{
	struct brokerq_call *c = a->a_call;

	/* A fresh nonce each time: the daemon takes each one once. */
	if (msg_ep_send(a->a_ep, c->bc_to, c->bc_scheme, c->bc_req,
	    a->a_payload, a->a_plen) == -1)
		log_debug("%s: send: %s", __func__, strerror(errno));
	c->bc_sent++;
}

/* The daemon wants its cookie echoed: the request again, with it. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct ask *a = arg;
	struct brokerq_call *c = a->a_call;
	struct proto_cookie co;

	(void)ep;
	/* Once per try: a daemon cannot keep us asking. */
	if (a->a_done || !from_target(a, in) ||
	    proto_cookie_dec(&co, in->mi_data, in->mi_len) == -1 ||
	    a->a_cookies++ >= BROKERQ_TRIES ||
	    c->bc_plen + PROTO_COOKIE_LEN > sizeof(a->a_with))
		return;
	/* The payload ends in has_cookie (0): 1 and the cookie instead. */
	memcpy(a->a_with, c->bc_payload, c->bc_plen);
	a->a_with[c->bc_plen - 1] = 1;
	memcpy(a->a_with + c->bc_plen, co.co_cookie, PROTO_COOKIE_LEN);
	a->a_payload = a->a_with;
	a->a_plen = c->bc_plen + PROTO_COOKIE_LEN;
	send_req(a);	/* the resends still to come carry it too */
}

static void
on_resend(struct evloop *loop, void *arg)
{
	struct ask *a = arg;

	if (a->a_done)
		return;
	send_req(a);
	if (a->a_call->bc_sent < BROKERQ_TRIES)
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
brokerq_call(const struct conf *cf, struct msg_keyring *keys,
    struct brokerq_call *c, char *err, size_t errlen)
{
	/* The answers; the table is indexed by handler number. */
	struct msg_handler table[PROTO_H_MAX];
	struct msg_ep_opts eo;
	struct msg_addr any;
	struct ask a;
	int rc;

	memset(&a, 0, sizeof(a));
	c->bc_sent = c->bc_malformed = c->bc_refused = 0;
	c->bc_reason[0] = '\0';
	if (c->bc_ans >= PROTO_H_MAX || c->bc_ans == PROTO_H_ERROR ||
	    c->bc_ans == PROTO_H_COOKIE || (c->bc_proven &&
	    (c->bc_plen == 0 ||
	    ((const uint8_t *)c->bc_payload)[c->bc_plen - 1] != 0))) {
		errbuf_set(err, errlen, "no such request");
		return CLI_EXIT_FAILURE;
	}
	a.a_call = c;
	a.a_payload = c->bc_payload;
	a.a_plen = c->bc_plen;
	if (conf_get_seconds(cf, "timeout", &a.a_timeout) == -1 ||
	    a.a_timeout <= 0)
		a.a_timeout = 3;
	c->bc_timeout = a.a_timeout;
	memset(table, 0, sizeof(table));
	table[c->bc_ans] = (struct msg_handler){ "answer", MSG_SCHEMES_ALL,
	    on_answer };
	table[PROTO_H_ERROR] = (struct msg_handler){ "error", MSG_SCHEMES_ALL,
	    on_error };
	if (c->bc_proven)
		table[PROTO_H_COOKIE] = (struct msg_handler){ "cookie",
		    MSG_SCHEMES_ALL, on_cookie };
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = c->bc_to->ma_family;
	if ((a.a_loop = evloop_new()) == NULL ||
	    (a.a_ep = msg_ep_new(a.a_loop, keys, table, PROTO_H_MAX, &a,
	    &eo)) == NULL || msg_ep_bind(a.a_ep, &any) == -1) {
		errbuf_set(err, errlen, "endpoint: %s", strerror(errno));
		rc = CLI_EXIT_FAILURE;
		goto out;
	}
	evloop_timer_add(a.a_loop, a.a_timeout, on_deadline, &a);
	on_resend(a.a_loop, &a);
	if (evloop_run(a.a_loop) == -1)
		log_warn("%s: event loop", __func__);
	rc = !a.a_done ? CLI_EXIT_TIMEOUT : c->bc_refused ? CLI_EXIT_FAILURE :
	    CLI_EXIT_OK;
 out:
	msg_ep_free(a.a_ep);
	evloop_free(a.a_loop);
	return rc;
}

/* brokerq_ask's answer: its payload as it came, if it fits. */
struct raw {
	uint8_t		*r_out;
	size_t		 r_outsz, r_outlen;
};

static int
take_raw(void *arg, const uint8_t *data, size_t len)
{
	struct raw *r = arg;

	if (len > r->r_outsz)
		return -1;
	memcpy(r->r_out, data, len);
	r->r_outlen = len;
	return 0;
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
	struct msg_keyring keys;
	struct msg_addr broker;
	struct brokerq_call c;
	struct raw r = { out, outsz, 0 };
	const char *name = conf_get(cf, "broker");
	char text[64];
	int rc = CLI_EXIT_FAILURE;

	memset(&keys, 0, sizeof(keys));
	*outlen = 0;
	if (ans >= PROTO_H_MAX) {
		snprintf(err, errlen, "no such answer");
		return CLI_EXIT_FAILURE;
	}
	if (msg_addr_parse(&broker, name, 7410) == -1) {
		snprintf(err, errlen, "broker %s: bad or unknown address",
		    name);
		return CLI_EXIT_USAGE;
	}
	msg_addr_text(&broker, text, sizeof(text));
	if (msg_keyring_load(&keys, cf, MSG_KR_USER_OPT, "tool", err,
	    errlen) == -1)
		return CLI_EXIT_FAILURE;
	if (msg_keyring_user_name(&keys)[0] == '\0') {
		msg_keyring_no_user(cf, err, errlen);
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.bc_to = &broker;
	c.bc_scheme = MSG_SCHEME_USER;
	c.bc_req = req;
	c.bc_ans = ans;
	c.bc_payload = payload;
	c.bc_plen = plen;
	c.bc_proven = proven;
	c.bc_take = take_raw;
	c.bc_arg = &r;
	rc = brokerq_call(cf, &keys, &c, err, errlen);
	if (rc == CLI_EXIT_TIMEOUT)
		snprintf(err, errlen, "no answer from the broker at %s within "
		    "%g s (%d request%s, user scheme, key of %s)\ncheck that "
		    "CilkJobBroker runs there (the configuration's broker key, "
		    "or -b HOST[:PORT]), that your public key is in its "
		    "user_keys folder, that cluster_pub (%s) is the cluster's, "
		    "and that both clocks agree; 'CilkPing %s' tells more%s",
		    text, c.bc_timeout, c.bc_sent, c.bc_sent == 1 ? "" : "s",
		    msg_keyring_user_name(&keys), conf_get(cf,
		    "cluster_pub"), text, c.bc_malformed > 0 ?
		    "\nsome answers could not be read (another version of "
		    "cilknow?)" : "");
	else if (rc == CLI_EXIT_FAILURE && c.bc_refused)
		snprintf(err, errlen, "the broker at %s refused: %s", text,
		    c.bc_reason);
	else if (rc == CLI_EXIT_OK)
		*outlen = r.r_outlen;
 out:
	msg_keyring_clear(&keys);
	return rc;
}
