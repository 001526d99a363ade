/* CilkNodes — list the cluster's nodes and their state. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerq.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "nhealth.h"

struct nodes_opts {
	struct cli_common	 no_cc;
	enum proto_node_state	 no_state;	/* -s, UNDEF: any */
	uint32_t		 no_job;	/* -j, 0: any */
	int			 no_numeric;	/* -n: addresses, not names */
	int			 no_reasons;	/* -R */
	const char		*no_reason;	/* --reason */
	/* --json: the reasons of held nodes, if the broker told them. */
	struct proto_health	 no_health;
	int			 no_have_health;
};

#define OPT_REASON	1000

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkNodes [-nv] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json]\n"
	    "                 [-s state] [-j job]\n"
	    "       CilkNodes [options] -R\n"
	    "       CilkNodes [options] drain node --reason text\n"
	    "       CilkNodes [options] resume node\n"
	    "  -n        addresses the nodes send from, not their names\n"
	    "  -s state  only nodes in this state: busy, idle, running,\n"
	    "            switching, stopping, suspended, drain, drained,\n"
	    "            down\n"
	    "  -j job    only nodes running this job\n"
	    "  -R        the nodes drained or down, with reason, user, since\n"
	    "  drain     (administrators) the node takes no new work; its\n"
	    "            running work goes on; resume undoes it\n"
	    "columns: NODE HOST STATE SLOTS JOB LOAD IDLE USERS SEEN\n"
	    "  SLOTS: workers running/processors lent/processors\n");
	exit(status);
}

/* 1 if a worker of job runs on the node. */
static int
runs(const struct proto_node_row *r, uint32_t job)
{
	uint8_t k;

	for (k = 0; k < r->nw_njobs; k++)
		if (r->nw_jobs[k] == job)
			return 1;
	return r->nw_job == job;
}

static int
wanted(const struct nodes_opts *o, const struct proto_node_row *r)
{
	return (o->no_state == PROTO_NS_UNDEF || o->no_state == r->nw_state) &&
	    (o->no_job == 0 || runs(r, o->no_job));
}

/* JOB: the jobs of its workers, "3,5"; "-" for none. */
static void
row_jobs(const struct proto_node_row *r, char *buf, size_t bufsz)
{
	size_t len = 0;
	uint8_t k;

	buf[0] = '\0';
	for (k = 0; k < r->nw_njobs && len < bufsz; k++)
		len += (size_t)snprintf(buf + len, bufsz - len, "%s%u",
		    k ? "," : "", r->nw_jobs[k]);
	if (r->nw_njobs == 0 && r->nw_job != 0 &&
	    (r->nw_state == PROTO_NS_RUNNING ||
	    r->nw_state == PROTO_NS_SWITCHING))
		snprintf(buf, bufsz, "%u", r->nw_job);
	if (buf[0] == '\0')
		strlcpy(buf, "-", bufsz);
}

/*
 * HOST: the name the node manager registered with (its host name, or
 * the address it was told to listen on), as the guide shows it; with
 * -n, or from a node that sent none, the address it sends from.
 */
static void
row_host(const struct nodes_opts *o, const struct proto_node_row *r,
    char *buf, size_t bufsz)
{
	if (o->no_numeric || r->nw_host[0] == '\0')
		brokerq_host(&r->nw_addr, buf, bufsz);
	else
		brokerq_safe(buf, bufsz, r->nw_host);
}

/* The load as a JSON number: exact thousandths, no trailing zeros. */
static void
print_load(uint32_t milli)
{
	char frac[8];
	size_t n;

	printf("%u", milli / 1000);
	if (milli % 1000 == 0)
		return;
	snprintf(frac, sizeof(frac), "%03u", milli % 1000);
	for (n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	printf(".%s", frac);
}

static void
print_text(const struct nodes_opts *o, const struct brokerq_reply *rep)
{
	const struct proto_node_row *r;
	char host[PROTO_HOST_MAX + 1], job[PROTO_NODE_JOBS_MAX * 11 + 1];
	char slots[24];
	uint32_t i;

	printf("%5s %-15s %-9s %-11s %5s %6s %7s %5s %5s\n", "NODE", "HOST",
	    "STATE", "SLOTS", "JOB", "LOAD", "IDLE", "USERS", "SEEN");
	for (i = 0; i < rep->bq_n; i++) {
		r = &rep->bq_nodes[i];
		if (!wanted(o, r))
			continue;
		row_host(o, r, host, sizeof(host));
		row_jobs(r, job, sizeof(job));
		snprintf(slots, sizeof(slots), "%u/%u/%u", r->nw_running,
		    r->nw_lent, r->nw_total);
		printf("%5u %-15s %-9s %-11s %5s %6.2f %7u %5u %5u\n",
		    r->nw_node, host, proto_state_name(r->nw_state), slots, job,
		    r->nw_load_milli / 1000.0, r->nw_idle, r->nw_users,
		    r->nw_seen_ms / 1000);
	}
}

static int
held(uint8_t state)
{
	return state == PROTO_NS_DRAIN || state == PROTO_NS_DRAINED ||
	    state == PROTO_NS_DOWN;
}

/* 1 if a node listed is drained or down: its reason is worth asking. */
static int
any_held(const struct brokerq_reply *rep)
{
	uint32_t i;

	for (i = 0; i < rep->bq_n; i++)
		if (held(rep->bq_nodes[i].nw_state))
			return 1;
	return 0;
}

/* "reason" and "since" (seconds since the epoch) of a held node. */
static void
print_held(const struct nodes_opts *o, const struct proto_node_row *r)
{
	const struct proto_health_row *h = NULL;
	char reason[PROTO_HEALTH_REASON_MAX + 1];

	if (!held(r->nw_state))
		return;
	if (o->no_have_health)
		h = nhealth_find(&o->no_health, r->nw_node, &r->nw_addr);
	printf(", \"reason\": ");
	if (h != NULL) {
		brokerq_safe(reason, sizeof(reason), h->hr_reason);
		json_put_str(stdout, reason);
		printf(", \"user\": ");
		if (h->hr_user[0] != '\0')
			json_put_str(stdout, h->hr_user);
		else
			printf("null");
		printf(", \"since\": %llu",
		    (unsigned long long)(h->hr_since_ms / 1000));
	} else
		printf("null, \"user\": null, \"since\": null");
}

/* "limits_unenforced": the kinds of limit its workers escape. */
static void
print_unenforced(uint8_t bits)
{
	static const char *const names[] = { "memory", "pids", "cpu", "io" };
	size_t i;
	int first = 1;

	printf(", \"limits_unenforced\": [");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & (1u << i)) {
			printf("%s\"%s\"", first ? "" : ", ", names[i]);
			first = 0;
		}
	printf("]");
}

static void
print_json(const struct nodes_opts *o, const struct brokerq_reply *rep)
{
	const struct proto_node_row *r;
	char host[PROTO_HOST_MAX + 1];
	uint32_t i;
	uint8_t k;
	int first = 1;

	printf("{\"schema\": 2, \"nodes\": [");
	for (i = 0; i < rep->bq_n; i++) {
		r = &rep->bq_nodes[i];
		if (!wanted(o, r))
			continue;
		row_host(o, r, host, sizeof(host));
		printf("%s{\"node\": %u, \"host\": ", first ? "" : ", ",
		    r->nw_node);
		json_put_str(stdout, host);
		printf(", \"state\": ");
		json_put_str(stdout, proto_state_name(r->nw_state));
		print_held(o, r);
		printf(", \"slots\": {\"running\": %u, \"lent\": %u, "
		    "\"total\": %u}, \"jobs\": [", r->nw_running, r->nw_lent,
		    r->nw_total);
		for (k = 0; k < r->nw_njobs; k++)
			printf("%s%u", k ? ", " : "", r->nw_jobs[k]);
		printf("], \"mem_mb\": %u, \"load\": ", r->nw_mem_mb);
		print_load(r->nw_load_milli);
		printf(", \"idle\": %u, \"users\": %u, \"seen\": %u, "
		    "\"pairs\": %u, \"switches\": %u", r->nw_idle,
		    r->nw_users, r->nw_seen_ms / 1000, r->nw_pairs,
		    r->nw_switches);
		print_unenforced(r->nw_unenforced);
		printf("}");
		first = 0;
	}
	printf("]}\n");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "reason", required_argument, NULL, OPT_REASON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct nodes_opts o;
	struct brokerq_reply rep;
	uint8_t op = PROTO_HO_UNDEF;
	int ch, rc;

	memset(&o, 0, sizeof(o));
	while ((ch = cli_getopt(&o.no_cc, argc, argv, "b:c:hj:no:Rs:vV",
	    longopts, "CilkNodes", usage)) != -1) {
		switch (ch) {
		case 'j':
			if ((o.no_job = cli_job_number(ch, optarg)) == 0)
				usage(CLI_EXIT_USAGE);
			break;
		case 'n':
			o.no_numeric = 1;
			break;
		case 'R':
			o.no_reasons = 1;
			break;
		case OPT_REASON:
			if (!proto_health_reason_ok(optarg)) {
				warnx("--reason: 1 to %d characters, no "
				    "control characters",
				    PROTO_HEALTH_REASON_MAX);
				usage(CLI_EXIT_USAGE);
			}
			o.no_reason = optarg;
			break;
		case 's':
			if ((o.no_state = proto_state_from_name(optarg)) ==
			    PROTO_NS_UNDEF) {
				warnx("-s %s: not a state (busy, idle, "
				    "running, switching, stopping, suspended, "
				    "drain, drained or down)", optarg);
				usage(CLI_EXIT_USAGE);
			}
			break;
		}
	}
	if (optind < argc && strcmp(argv[optind], "drain") == 0)
		op = PROTO_HO_DRAIN;
	else if (optind < argc && strcmp(argv[optind], "resume") == 0)
		op = PROTO_HO_RESUME;
	else if (optind != argc) {
		warnx("%s: not a command (drain or resume)", argv[optind]);
		usage(CLI_EXIT_USAGE);
	}
	if (op != PROTO_HO_UNDEF) {
		if (optind + 2 != argc) {
			warnx("%s: name one node (its number, host name or "
			    "address)", argv[optind]);
			usage(CLI_EXIT_USAGE);
		}
		if (op == PROTO_HO_DRAIN && o.no_reason == NULL) {
			warnx("drain: say why with --reason text");
			usage(CLI_EXIT_USAGE);
		}
		if (op == PROTO_HO_RESUME && o.no_reason != NULL) {
			warnx("resume: no --reason");
			usage(CLI_EXIT_USAGE);
		}
		if (strlen(argv[optind + 1]) >= PROTO_HOST_MAX ||
		    strpbrk(argv[optind + 1], " \t\n") != NULL ||
		    argv[optind + 1][0] == '\0') {
			warnx("%s: not a node's number, host name or address",
			    argv[optind + 1]);
			usage(CLI_EXIT_USAGE);
		}
	} else if (o.no_reason != NULL) {
		warnx("--reason goes with drain");
		usage(CLI_EXIT_USAGE);
	}
	if (op != PROTO_HO_UNDEF || o.no_reasons) {
		log_init(1, "CilkNodes", o.no_cc.cc_verbose);
		rc = op != PROTO_HO_UNDEF ? nhealth_set(&o.no_cc, op,
		    argv[optind + 1], o.no_reason) :
		    nhealth_reasons(&o.no_cc, o.no_numeric);
		return cli_stdout_done(rc);
	}
	/* The broker filters: a few idle nodes of 100,000 come in a page. */
	if ((rc = brokerq_main_where(&o.no_cc, "CilkNodes", PROTO_LIST_NODES,
	    (uint8_t)o.no_state, o.no_job, &rep)) != CLI_EXIT_OK)
		return rc;
	/* The reasons, if the broker tells them (the user's key signs). */
	if (o.no_cc.cc_json && any_held(&rep))
		o.no_have_health = nhealth_ask(&o.no_cc, PROTO_HO_LIST, NULL,
		    NULL, &o.no_health, 1) == CLI_EXIT_OK;
	if (o.no_cc.cc_json)
		print_json(&o, &rep);
	else
		print_text(&o, &rep);
	brokerq_reply_free(&rep);
	return cli_stdout_done(CLI_EXIT_OK);
}
