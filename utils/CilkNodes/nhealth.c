/* CilkNodes: drain, resume and -R; see nhealth.h. */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "brokerq.h"
#include "json.h"
#include "log.h"
#include "nhealth.h"

int
nhealth_ask(const struct cli_common *cc, uint8_t op, const char *node,
    const char *reason, struct proto_health *a, int quiet)
{
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_health_req q;
	struct conf *cf;
	char why[BROKERQ_ERR_MAX];
	uint8_t rq[16 + PROTO_HOST_MAX + PROTO_HEALTH_REASON_MAX +
	    PROTO_COOKIE_LEN];
	size_t rlen, len;
	int rc;

	memset(&q, 0, sizeof(q));
	q.hq_op = op;
	if (node != NULL)
		strlcpy(q.hq_node, node, sizeof(q.hq_node));
	if (reason != NULL)
		strlcpy(q.hq_reason, reason, sizeof(q.hq_reason));
	if ((rlen = proto_health_req_enc(&q, rq, sizeof(rq))) == 0) {
		warnx("the request cannot be encoded");
		return CLI_EXIT_USAGE;
	}
	if (sodium_init() < 0) {
		warnx("libsodium failed to initialise");
		return CLI_EXIT_FAILURE;
	}
	if ((cf = cli_conf_load(cc, "CilkNodes")) == NULL)
		return CLI_EXIT_USAGE;
	/* The broker answers only where it sent its cookie. */
	rc = brokerq_ask_proven(cf, PROTO_H_HEALTH_REQ, rq, rlen,
	    PROTO_H_HEALTH, buf, sizeof(buf), &len, why, sizeof(why));
	conf_free(cf);
	if (rc != CLI_EXIT_OK) {
		if (!quiet)
			brokerq_warn("CilkNodes", why);
		return rc;
	}
	if (proto_health_dec(a, buf, len) == -1) {
		if (!quiet)
			warnx("the broker's answer cannot be read (another "
			    "version of cilknow?)");
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}

int
nhealth_set(const struct cli_common *cc, uint8_t op, const char *node,
    const char *reason)
{
	static struct proto_health a;
	char done[PROTO_REASON_MAX];
	int rc;

	if ((rc = nhealth_ask(cc, op, node, reason, &a, 0)) != CLI_EXIT_OK)
		return rc;
	brokerq_safe(done, sizeof(done), a.he_done);
	if (cc->cc_json) {
		printf("{\"schema\": 1, \"done\": ");
		json_put_str(stdout, done);
		printf("}\n");
	} else
		printf("%s\n", done);
	return CLI_EXIT_OK;
}

void
nhealth_since(uint64_t ms, char *buf, size_t bufsz)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		strlcpy(buf, "-", bufsz);
}

const struct proto_health_row *
nhealth_find(const struct proto_health *a, uint32_t node,
    const struct msg_addr *addr)
{
	uint16_t i;

	for (i = 0; i < a->he_n; i++)
		if (msg_addr_eq(&a->he_rows[i].hr_addr, addr) &&
		    (node == 0 || a->he_rows[i].hr_node == 0 ||
		    a->he_rows[i].hr_node == node))
			return &a->he_rows[i];
	return NULL;
}

int
nhealth_reasons(const struct cli_common *cc, int numeric)
{
	static struct proto_health a;
	const struct proto_health_row *r;
	char host[PROTO_HOST_MAX + 1], reason[PROTO_HEALTH_REASON_MAX + 1];
	char since[32];
	uint16_t i;
	int rc;

	if ((rc = nhealth_ask(cc, PROTO_HO_LIST, NULL, NULL, &a, 0)) !=
	    CLI_EXIT_OK)
		return rc;
	if (cc->cc_json)
		printf("{\"schema\": 1, \"total\": %u, \"nodes\": [",
		    a.he_total);
	else
		printf("%5s %-15s %-8s %-10s %-19s %s\n", "NODE", "HOST",
		    "STATE", "USER", "SINCE", "REASON");
	for (i = 0; i < a.he_n; i++) {
		r = &a.he_rows[i];
		if (numeric || r->hr_host[0] == '\0')
			brokerq_host(&r->hr_addr, host, sizeof(host));
		else
			brokerq_safe(host, sizeof(host), r->hr_host);
		brokerq_safe(reason, sizeof(reason), r->hr_reason);
		nhealth_since(r->hr_since_ms, since, sizeof(since));
		if (!cc->cc_json) {
			printf("%5u %-15s %-8s %-10s %-19s %s\n", r->hr_node,
			    host, proto_state_name(r->hr_state),
			    r->hr_user[0] != '\0' ? r->hr_user : "-", since,
			    reason);
			continue;
		}
		printf("%s{\"node\": %u, \"host\": ", i ? ", " : "",
		    r->hr_node);
		json_put_str(stdout, host);
		printf(", \"state\": ");
		json_put_str(stdout, proto_state_name(r->hr_state));
		printf(", \"reason\": ");
		json_put_str(stdout, reason);
		printf(", \"user\": ");
		if (r->hr_user[0] != '\0')
			json_put_str(stdout, r->hr_user);
		else
			printf("null");
		printf(", \"since\": %llu}",
		    (unsigned long long)(r->hr_since_ms / 1000));
	}
	if (cc->cc_json)
		printf("]}\n");
	else if (a.he_total > a.he_n)
		printf("(and %u more)\n", a.he_total - a.he_n);
	return CLI_EXIT_OK;
}
