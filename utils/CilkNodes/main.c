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

struct nodes_opts {
	struct cli_common	 no_cc;
	enum proto_node_state	 no_state;	/* -s, UNDEF: any */
	uint32_t		 no_job;	/* -j, 0: any */
	int			 no_numeric;	/* -n: addresses, not names */
};

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkNodes [-nv] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json]\n"
	    "                 [-s state] [-j job]\n"
	    "  -n        addresses the nodes send from, not their names\n"
	    "  -s state  only nodes in this state: busy, idle, running,\n"
	    "            switching or stopping\n"
	    "  -j job    only nodes running this job\n"
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
		printf(", \"slots\": {\"running\": %u, \"lent\": %u, "
		    "\"total\": %u}, \"jobs\": [", r->nw_running, r->nw_lent,
		    r->nw_total);
		for (k = 0; k < r->nw_njobs; k++)
			printf("%s%u", k ? ", " : "", r->nw_jobs[k]);
		printf("], \"mem_mb\": %u, \"load\": ", r->nw_mem_mb);
		print_load(r->nw_load_milli);
		printf(", \"idle\": %u, \"users\": %u, \"seen\": %u, "
		    "\"pairs\": %u, \"switches\": %u}", r->nw_idle,
		    r->nw_users, r->nw_seen_ms / 1000, r->nw_pairs,
		    r->nw_switches);
		first = 0;
	}
	printf("]}\n");
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct nodes_opts o;
	struct brokerq_reply rep;
	int ch, rc;

	memset(&o, 0, sizeof(o));
	while ((ch = getopt_long(argc, argv, "b:c:hj:no:s:vV", longopts,
	    NULL)) != -1) {
		switch (cli_common_opt(&o.no_cc, ch, optarg)) {
		case 1:
			continue;
		case -1:
			usage(CLI_EXIT_USAGE);
		}
		switch (ch) {
		case 'j':
			if ((o.no_job = cli_job_number(ch, optarg)) == 0)
				usage(CLI_EXIT_USAGE);
			break;
		case 'n':
			o.no_numeric = 1;
			break;
		case 's':
			if ((o.no_state = proto_state_from_name(optarg)) ==
			    PROTO_NS_UNDEF) {
				warnx("-s %s: not a state (busy, idle, "
				    "running, switching or stopping)", optarg);
				usage(CLI_EXIT_USAGE);
			}
			break;
		case 'h':
			usage(CLI_EXIT_OK);
		case 'V':
			cli_version("CilkNodes");
			return CLI_EXIT_OK;
		default:
			usage(CLI_EXIT_USAGE);
		}
	}
	if (optind != argc)
		usage(CLI_EXIT_USAGE);
	/* The broker filters: a few idle nodes of 100,000 come in a page. */
	if ((rc = brokerq_main_where(&o.no_cc, "CilkNodes", PROTO_LIST_NODES,
	    (uint8_t)o.no_state, o.no_job, &rep)) != CLI_EXIT_OK)
		return rc;
	if (o.no_cc.cc_json)
		print_json(&o, &rep);
	else
		print_text(&o, &rep);
	brokerq_reply_free(&rep);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(CLI_EXIT_FAILURE, "stdout");
	return CLI_EXIT_OK;
}
