/* CilkPs — list the cluster's jobs, as the broker knows them. */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerq.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "ps.h"

struct ps_opts {
	struct cli_common	 po_cc;
	const char		*po_user;	/* -u, NULL: everyone */
	uint32_t		 po_job;	/* -j, 0: every job */
};

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkPs [-v] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json]\n"
	    "              [-u user] [-j job]\n"
	    "  -u user  only the jobs of this user\n"
	    "  -j job   this job's tasks, from its job manager: TASK STATE "
	    "NODE TRIES\n"
	    "           EXIT SECONDS (its user and administrators only)\n"
	    "columns: JOB USER HOST NODES MAX PRI AGE REASON COMMAND\n");
	exit(status);
}

/* 12s, 5m03s, 2h10m, 3d04h */
static void
age_text(uint32_t s, char *buf, size_t bufsz)
{
	if (s < 60)
		snprintf(buf, bufsz, "%us", s);
	else if (s < 3600)
		snprintf(buf, bufsz, "%um%02us", s / 60, s % 60);
	else if (s < 86400)
		snprintf(buf, bufsz, "%uh%02um", s / 3600, s % 3600 / 60);
	else
		snprintf(buf, bufsz, "%ud%02uh", s / 86400, s % 86400 / 3600);
}

/* Why it has no processor: "-" (it has), waiting, no-fit, after. */
static const char *
reason(const struct proto_job_row *r)
{
	switch (r->jw_pending) {
	case PROTO_PENDING_WAITING:
		return "waiting";
	case PROTO_PENDING_NOFIT:
		return "no-fit";
	case PROTO_PENDING_AFTER:
		return "after";
	default:
		return NULL;
	}
}

static int
wanted(const struct ps_opts *o, const struct proto_job_row *r)
{
	return (o->po_user == NULL || strcmp(o->po_user, r->jw_user) == 0) &&
	    (o->po_job == 0 || o->po_job == r->jw_job);
}

static void
print_text(const struct ps_opts *o, const struct brokerq_reply *rep)
{
	const struct proto_job_row *r;
	char host[64], max[16], age[16], user[MSG_NAME_MAX + 1];
	char cmd[PROTO_COMMAND_MAX], num[16];
	uint32_t i;

	printf("%5s %-10s %-15s %5s %4s %3s %6s %-7s %s\n", "JOB", "USER",
	    "HOST", "NODES", "MAX", "PRI", "AGE", "REASON", "COMMAND");
	for (i = 0; i < rep->bq_n; i++) {
		r = &rep->bq_jobs[i];
		if (!wanted(o, r))
			continue;
		brokerq_host(&r->jw_addr, host, sizeof(host));
		if (r->jw_max == 0)
			strlcpy(max, "-", sizeof(max));
		else
			snprintf(max, sizeof(max), "%u", r->jw_max);
		age_text(r->jw_age, age, sizeof(age));
		brokerq_safe(user, sizeof(user), r->jw_user);
		brokerq_safe(cmd, sizeof(cmd), r->jw_command);
		/* Not registered yet (--after): no number. */
		if (r->jw_job == 0)
			strlcpy(num, "-", sizeof(num));
		else
			snprintf(num, sizeof(num), "%u", r->jw_job);
		printf("%5s %-10s %-15s %5u %4s %3u %6s %-7s %s\n", num,
		    user, host, r->jw_nodes, max, r->jw_pri, age,
		    reason(r) != NULL ? reason(r) : "-", cmd);
	}
}

static void
print_json(const struct ps_opts *o, const struct brokerq_reply *rep)
{
	const struct proto_job_row *r;
	char host[64];
	uint32_t i;
	int first = 1;

	printf("{\"schema\": 1, \"jobs\": [");
	for (i = 0; i < rep->bq_n; i++) {
		r = &rep->bq_jobs[i];
		if (!wanted(o, r))
			continue;
		brokerq_host(&r->jw_addr, host, sizeof(host));
		if (r->jw_job == 0)	/* not registered yet */
			printf("%s{\"job\": null, \"user\": ",
			    first ? "" : ", ");
		else
			printf("%s{\"job\": %u, \"user\": ",
			    first ? "" : ", ", r->jw_job);
		json_put_str(stdout, r->jw_user);
		printf(", \"host\": ");
		json_put_str(stdout, host);
		printf(", \"nodes\": %u, \"max\": ", r->jw_nodes);
		if (r->jw_max == 0)
			printf("null");
		else
			printf("%u", r->jw_max);
		printf(", \"pri\": %u, \"age\": %u, \"cpus\": %u, "
		    "\"mem_mb\": %u, \"reason\": ", r->jw_pri, r->jw_age,
		    r->jw_cpus > 0 ? r->jw_cpus : 1, r->jw_mem_mb);
		if (reason(r) != NULL)
			json_put_str(stdout, reason(r));
		else
			printf("null");
		printf(", \"command\": ");
		json_put_str(stdout, r->jw_command);
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ps_opts o;
	struct brokerq_reply rep;
	int ch, rc;

	memset(&o, 0, sizeof(o));
	while ((ch = cli_getopt(&o.po_cc, argc, argv, "b:c:hj:o:u:vV",
	    longopts, "CilkPs", usage)) != -1) {
		switch (ch) {
		case 'j':
			if ((o.po_job = cli_job_number(ch, optarg)) == 0)
				usage(CLI_EXIT_USAGE);
			break;
		case 'u':
			if (!msg_user_name_ok(optarg)) {
				warnx("-u %s: not a valid user name", optarg);
				usage(CLI_EXIT_USAGE);
			}
			o.po_user = optarg;
			break;
		}
	}
	if (optind != argc)
		usage(CLI_EXIT_USAGE);
	if ((rc = brokerq_main_where(&o.po_cc, "CilkPs", PROTO_LIST_JOBS, 0,
	    o.po_job, &rep)) != CLI_EXIT_OK)
		return rc;
	if (o.po_job != 0) {
		/* -j: the job's tasks, from its job manager (tasks.c). */
		rc = CLI_EXIT_FAILURE;
		if (rep.bq_n == 0 || !wanted(&o, &rep.bq_jobs[0]))
			warnx("job %u: no such job (see CilkPs)", o.po_job);
		else
			rc = ps_tasks(&o.po_cc, &rep.bq_jobs[0]);
		brokerq_reply_free(&rep);
		return cli_stdout_done(rc);
	}
	if (o.po_cc.cc_json)
		print_json(&o, &rep);
	else
		print_text(&o, &rep);
	brokerq_reply_free(&rep);
	return cli_stdout_done(CLI_EXIT_OK);
}
