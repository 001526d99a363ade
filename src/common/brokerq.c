/* brokerq — one LIST request to the broker, its answer or a diagnosis. */
#include "brokerq.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "cli.h"
#include "log.h"
#include "utf8.h"
#include "msg.h"
#include "msg_keyring.h"
#include "proto_page.h"

/* Our name under the cluster scheme. */
#define BROKERQ_PRINCIPAL	"tool"

struct brokerq {
	struct evloop		*q_loop;
	struct msg_keyring	*q_keys;
	struct msg_ep		*q_ep;
	enum msg_scheme		 q_scheme;
	struct msg_addr		 q_broker;
	struct brokerq_reply	*q_rep;
	uint8_t			 q_what;
	uint8_t			 q_state;	/* filters, 0: any */
	uint32_t		 q_job;
	uint32_t		 q_from;	/* the page asked for */
	uint32_t		 q_cap;		/* rows allocated */
	struct evtimer		*q_resend, *q_deadline;
	double			 q_timeout;
	int			 q_sent;	/* requests sent */
	int			 q_send_errno;	/* of the last send */
	int			 q_malformed;	/* unreadable answers */
	int			 q_done;	/* answer or ERROR came */
	int			 q_refused;	/* it was ERROR */
	char			 q_reason[PROTO_REASON_MAX];
	uint8_t			 q_cookie[PROTO_COOKIE_LEN];
	int			 q_have_cookie;	/* echo it in every list */
	int			 q_cookies;	/* cookies taken */
};

void
brokerq_host(const struct msg_addr *a, char *buf, size_t bufsz)
{
	if (bufsz == 0)
		return;
	if ((a->ma_family != 4 || inet_ntop(AF_INET, a->ma_addr, buf,
	    (socklen_t)bufsz) == NULL) &&
	    (a->ma_family != 6 || inet_ntop(AF_INET6, a->ma_addr, buf,
	    (socklen_t)bufsz) == NULL))
		strlcpy(buf, "?", bufsz);
}

void
brokerq_warn(const char *prog, const char *msg)
{
	const char *nl;

	while (*msg != '\0') {
		nl = strchr(msg, '\n');
		fprintf(stderr, "%s: %.*s\n", prog,
		    (int)(nl ? (size_t)(nl - msg) : strlen(msg)), msg);
		if (nl == NULL)
			break;
		msg = nl + 1;
	}
}

void
brokerq_safe(char *buf, size_t bufsz, const char *s)
{
	(void)utf8_termsafe(buf, bufsz, s);
}

void
brokerq_reply_free(struct brokerq_reply *rep)
{
	free(rep->bq_jobs);
	free(rep->bq_nodes);
	rep->bq_jobs = NULL;
	rep->bq_nodes = NULL;
	rep->bq_n = 0;
}

/*
 * Only the broker speaks for the broker: the answer must come from the
 * address we asked and, under the user scheme, be signed by the
 * cluster ("@cluster"), not by some user.
 */
static int
from_broker(const struct brokerq *q, const struct msg_in *in)
{
	if (!msg_addr_eq(&in->mi_from, &q->q_broker)) {
		log_debug("%s: answer from another address, ignored",
		    __func__);
		return 0;
	}
	if (in->mi_scheme == MSG_SCHEME_USER &&
	    !msg_verify_sender(in, MSG_SCHEME_USER, MSG_CLUSTER_NAME, NULL))
		return 0;
	return 1;
}

/* Appends a page's rows to the reply's; -1 out of memory. */
static int
append(struct brokerq *q, struct proto_page *pg)
{
	struct brokerq_reply *rep = q->q_rep;
	size_t sz = q->q_what == PROTO_LIST_JOBS ? sizeof(*rep->bq_jobs) :
	    sizeof(*rep->bq_nodes);
	uint32_t want = q->q_cap ? q->q_cap : 256;
	void *p;

	while (want < rep->bq_n + pg->pg_n)
		want *= 2;
	if (want != q->q_cap) {
		p = reallocarray(q->q_what == PROTO_LIST_JOBS ?
		    (void *)rep->bq_jobs : (void *)rep->bq_nodes, want, sz);
		if (p == NULL)
			return -1;
		if (q->q_what == PROTO_LIST_JOBS)
			rep->bq_jobs = p;
		else
			rep->bq_nodes = p;
		q->q_cap = want;
	}
	if (q->q_what == PROTO_LIST_JOBS)
		memcpy(rep->bq_jobs + rep->bq_n, pg->pg_jobs, pg->pg_n * sz);
	else
		memcpy(rep->bq_nodes + rep->bq_n, pg->pg_nodes, pg->pg_n * sz);
	rep->bq_n += pg->pg_n;
	return 0;
}

static void	on_resend(struct evloop *, void *);
static void	on_deadline(struct evloop *, void *);

/* Each page has the whole timeout and its own resends. */
static void
ask_page(struct brokerq *q)
{
	if (q->q_resend != NULL)
		evloop_timer_cancel(q->q_loop, q->q_resend);
	if (q->q_deadline != NULL)
		evloop_timer_cancel(q->q_loop, q->q_deadline);
	q->q_resend = NULL;
	q->q_sent = 0;
	q->q_cookies = 0;
	q->q_deadline = evloop_timer_add(q->q_loop, q->q_timeout, on_deadline,
	    q);
	on_resend(q->q_loop, q);
}

static void
on_rows(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct brokerq *q = arg;
	uint16_t h = in->mi_hdr->mh_handler;
	struct proto_page pg;

	(void)ep;
	if (q->q_done || !from_broker(q, in))
		return;
	if ((h == PROTO_H_JOBS_PAGE) != (q->q_what == PROTO_LIST_JOBS) ||
	    proto_page_dec(q->q_what, &pg, in->mi_data, in->mi_len) == -1) {
		log_debug("%s: malformed answer from the broker", __func__);
		q->q_malformed++;
		return;
	}
	/* A page asked for before, answered twice: taken once. */
	if (pg.pg_from != q->q_from) {
		free(pg.pg_jobs);
		free(pg.pg_nodes);
		return;
	}
	if (append(q, &pg) == -1) {
		free(pg.pg_jobs);
		free(pg.pg_nodes);
		snprintf(q->q_reason, sizeof(q->q_reason), "out of memory");
		q->q_done = q->q_refused = 1;
		evloop_break(q->q_loop);
		return;
	}
	free(pg.pg_jobs);
	free(pg.pg_nodes);
	if (pg.pg_next != 0) {
		q->q_from = pg.pg_next;
		ask_page(q);
		return;
	}
	q->q_done = 1;
	evloop_break(q->q_loop);
}

static void
on_error(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct brokerq *q = arg;
	struct proto_error e;

	(void)ep;
	if (q->q_done || !from_broker(q, in))
		return;
	if (proto_error_dec(&e, in->mi_data, in->mi_len) == -1 ||
	    e.er_handler != PROTO_H_LIST_PAGE) {
		q->q_malformed++;
		return;
	}
	brokerq_safe(q->q_reason, sizeof(q->q_reason), e.er_reason);
	q->q_done = q->q_refused = 1;
	evloop_break(q->q_loop);
}

static void	send_list(struct brokerq *);

/* The broker wants to see that we receive here: ask again, with this. */
static void
on_cookie(struct msg_ep *ep, const struct msg_in *in, void *arg)
{
	struct brokerq *q = arg;
	struct proto_cookie c;

	(void)ep;
	if (q->q_done || !from_broker(q, in) ||
	    proto_cookie_dec(&c, in->mi_data, in->mi_len) == -1)
		return;
	/* Once per try: a broker cannot keep us asking. */
	if (q->q_cookies++ >= BROKERQ_TRIES)
		return;
	memcpy(q->q_cookie, c.co_cookie, sizeof(q->q_cookie));
	q->q_have_cookie = 1;
	send_list(q);
}

static const struct msg_handler brokerq_table[PROTO_H_MAX] = {
	[PROTO_H_COOKIE] = { "cookie", MSG_SCHEMES_ALL, on_cookie },
	[PROTO_H_JOBS_PAGE] = { "jobs-page", MSG_SCHEMES_ALL, on_rows },
	[PROTO_H_NODES_PAGE] = { "nodes-page", MSG_SCHEMES_ALL, on_rows },
	[PROTO_H_ERROR] = { "error", MSG_SCHEMES_ALL, on_error },
};

static void
send_list(struct brokerq *q)
{
	struct proto_list_page l;
	uint8_t buf[16 + PROTO_COOKIE_LEN];
	size_t len;

	memset(&l, 0, sizeof(l));
	l.lp_what = q->q_what;
	l.lp_state = q->q_state;
	l.lp_job = q->q_job;
	l.lp_from = q->q_from;
	if (q->q_have_cookie) {
		l.lp_has_cookie = 1;
		memcpy(l.lp_cookie, q->q_cookie, sizeof(l.lp_cookie));
	}
	if ((len = proto_list_page_enc(&l, buf, sizeof(buf))) == 0)
		return;
	if (msg_ep_send(q->q_ep, &q->q_broker, q->q_scheme, PROTO_H_LIST_PAGE,
	    buf, len) == -1) {
		q->q_send_errno = errno;
		log_debug("%s: send: %s", __func__, strerror(errno));
	}
	q->q_sent++;
}

static void
on_resend(struct evloop *loop, void *arg)
{
	struct brokerq *q = arg;

	q->q_resend = NULL;
	if (q->q_done)
		return;
	send_list(q);
	if (q->q_sent < BROKERQ_TRIES)
		q->q_resend = evloop_timer_add(loop,
		    q->q_timeout / BROKERQ_TRIES, on_resend, q);
}

static void
on_deadline(struct evloop *loop, void *arg)
{
	((struct brokerq *)arg)->q_deadline = NULL;
	evloop_break(loop);
}

/* What to check when nothing came back, as CilkPing explains silence. */
static void
explain_silence(const struct brokerq *q, const struct conf *cf, char *err,
    size_t errlen)
{
	const struct msg_counters *c;
	const struct msg_key *k;
	double window = 30;
	size_t n;
	int i;

	k = q->q_scheme == MSG_SCHEME_USER && q->q_keys->kr_user.ks_n > 0 ?
	    &q->q_keys->kr_user.ks_key[0] : &q->q_keys->kr_cluster.ks_key[0];
	(void)conf_get_seconds(cf, "replay_window", &window);
	if (q->q_scheme == MSG_SCHEME_USER && q->q_keys->kr_munge)
		n = (size_t)snprintf(err, errlen, "no answer from the broker "
		    "at %s within %g s (%d request%s, munge credentials of "
		    "%s from %s)\n", q->q_rep->bq_broker, q->q_timeout,
		    q->q_sent, q->q_sent == 1 ? "" : "s",
		    q->q_keys->kr_munge_name, q->q_keys->kr_munge_socket);
	else
		n = (size_t)snprintf(err, errlen, "no answer from the broker "
		    "at %s within %g s (%d request%s, %s scheme, %s key id "
		    "%08x%s%s)\n", q->q_rep->bq_broker, q->q_timeout,
		    q->q_sent, q->q_sent == 1 ? "" : "s",
		    msg_scheme_name(q->q_scheme), k->k_name[0] ? "user" :
		    "cluster", k->k_id, k->k_name[0] ? " of " : "",
		    k->k_name);
	if (n < errlen && q->q_send_errno != 0)
		n += (size_t)snprintf(err + n, errlen - n, "sending failed: "
		    "%s\n", strerror(q->q_send_errno));
	if (n < errlen)
		n += (size_t)snprintf(err + n, errlen - n, "check that "
		    "CilkJobBroker runs at %s (the configuration's broker "
		    "key, or -b HOST[:PORT]), ", q->q_rep->bq_broker);
	if (n < errlen)
		n += (size_t)snprintf(err + n, errlen - n, "%s,\n",
		    q->q_scheme == MSG_SCHEME_CLUSTER ? "that it holds the "
		    "same cluster key (compare 'CilkKey show' on both sides)" :
		    q->q_keys->kr_munge ? "that its user_auth allows munge "
		    "and its munged has the same munge key as yours" :
		    "that your public key is in its user_keys folder");
	if (n < errlen)
		n += (size_t)snprintf(err + n, errlen - n, "and that both "
		    "clocks agree within replay_window (%g s); "
		    "'CilkPing %s' tells more", window, q->q_rep->bq_broker);
	if (n < errlen && q->q_malformed > 0)
		n += (size_t)snprintf(err + n, errlen - n, "\n%d answer%s "
		    "could not be read (another version of cilknow?)",
		    q->q_malformed, q->q_malformed == 1 ? "" : "s");
	c = msg_ep_counters(q->q_ep);
	for (i = 1; i < MSG_DROP_MAX && n < errlen; i++)
		if (c->mc_dropped[i] > 0)
			n += (size_t)snprintf(err + n, errlen - n, "\n%llu "
			    "datagram%s arrived here but %s dropped: %s",
			    (unsigned long long)c->mc_dropped[i],
			    c->mc_dropped[i] == 1 ? "" : "s",
			    c->mc_dropped[i] == 1 ? "was" : "were",
			    msg_drop_name(i));
}

static int
brokerq_setup(struct brokerq *q, const struct conf *cf, char *err,
    size_t errlen)
{
	struct msg_ep_opts eo;
	struct msg_addr any;
	const char *broker = conf_get(cf, "broker");

	if (msg_addr_parse(&q->q_broker, broker, 7410) == -1) {
		snprintf(err, errlen, "broker %s: bad or unknown address",
		    broker);
		return CLI_EXIT_USAGE;
	}
	msg_addr_text(&q->q_broker, q->q_rep->bq_broker,
	    sizeof(q->q_rep->bq_broker));
	if (conf_get_seconds(cf, "timeout", &q->q_timeout) == -1 ||
	    q->q_timeout <= 0)
		q->q_timeout = 3;
	if ((q->q_keys = calloc(1, sizeof(*q->q_keys))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return CLI_EXIT_FAILURE;
	}
	if (msg_keyring_load(q->q_keys, cf, MSG_KR_CLUSTER_OPT |
	    MSG_KR_USER_OPT, BROKERQ_PRINCIPAL, err, errlen) == -1)
		return CLI_EXIT_FAILURE;
	if (q->q_keys->kr_cluster.ks_n > 0)
		q->q_scheme = MSG_SCHEME_CLUSTER;
	else if (msg_keyring_user_name(q->q_keys)[0] != '\0')
		q->q_scheme = MSG_SCHEME_USER;
	else {
		snprintf(err, errlen, "no key to ask the broker with: neither "
		    "%s (cluster_key) nor %s (user_key) could be read; make "
		    "a user key with 'CilkKey generate-user'",
		    conf_get(cf, "cluster_key"), conf_get(cf, "user_key"));
		return CLI_EXIT_FAILURE;
	}
	memset(&eo, 0, sizeof(eo));
	(void)conf_get_seconds(cf, "replay_window", &eo.eo_replay_window);
	memset(&any, 0, sizeof(any));
	any.ma_family = q->q_broker.ma_family;
	if ((q->q_loop = evloop_new()) == NULL ||
	    (q->q_ep = msg_ep_new(q->q_loop, q->q_keys, brokerq_table,
	    PROTO_H_MAX, q, &eo)) == NULL ||
	    msg_ep_bind(q->q_ep, &any) == -1) {
		snprintf(err, errlen, "endpoint: %s", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}

int
brokerq_list(const struct conf *cf, uint8_t what, struct brokerq_reply *rep,
    char *err, size_t errlen)
{
	return brokerq_list_where(cf, what, 0, 0, rep, err, errlen);
}

int
brokerq_list_where(const struct conf *cf, uint8_t what, uint8_t state,
    uint32_t job, struct brokerq_reply *rep, char *err, size_t errlen)
{
	struct brokerq q;
	int rc;

	memset(rep, 0, sizeof(*rep));
	memset(&q, 0, sizeof(q));
	if (errlen > 0)
		err[0] = '\0';
	rep->bq_what = what;
	q.q_rep = rep;
	q.q_what = what;
	q.q_state = state;
	q.q_job = job;
	if (what != PROTO_LIST_JOBS && what != PROTO_LIST_NODES) {
		snprintf(err, errlen, "nothing to list");
		return CLI_EXIT_USAGE;
	}
	if ((rc = brokerq_setup(&q, cf, err, errlen)) != CLI_EXIT_OK)
		goto out;
	ask_page(&q);
	if (evloop_run(q.q_loop) == -1)
		log_warn("%s: event loop", __func__);
	if (!q.q_done) {
		explain_silence(&q, cf, err, errlen);
		rc = CLI_EXIT_TIMEOUT;
	} else if (q.q_refused) {
		snprintf(err, errlen, "the broker at %s refused: %s",
		    rep->bq_broker, q.q_reason);
		rc = CLI_EXIT_FAILURE;
	}
 out:
	if (rc != CLI_EXIT_OK)
		brokerq_reply_free(rep);
	msg_ep_free(q.q_ep);
	evloop_free(q.q_loop);
	if (q.q_keys != NULL) {
		msg_keyring_clear(q.q_keys);
		free(q.q_keys);
	}
	return rc;
}

int
brokerq_main(const struct cli_common *cc, const char *prog, uint8_t what,
    struct brokerq_reply *rep)
{
	return brokerq_main_where(cc, prog, what, 0, 0, rep);
}

int
brokerq_main_where(const struct cli_common *cc, const char *prog,
    uint8_t what, uint8_t state, uint32_t job, struct brokerq_reply *rep)
{
	struct conf *cf;
	char why[BROKERQ_ERR_MAX];
	int rc;

	log_init(1, prog, cc->cc_verbose);
	if (sodium_init() < 0) {
		fprintf(stderr, "%s: libsodium failed to initialise\n", prog);
		return CLI_EXIT_FAILURE;
	}
	if ((cf = cli_conf_load(cc, prog)) == NULL)
		return CLI_EXIT_USAGE;
	rc = brokerq_list_where(cf, what, state, job, rep, why, sizeof(why));
	conf_free(cf);
	if (rc != CLI_EXIT_OK)
		brokerq_warn(prog, why);
	return rc;
}
