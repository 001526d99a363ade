/*
 * CilkHist — finished (and running) jobs and their tasks from the
 * broker's accounting database, as sacct and condor_history show them.
 * The request is signed with the user's key (or MUNGE); the broker
 * shows a user their own jobs, an administrator every user's, and
 * sends its large answers a page at a time, each only to an address
 * that echoed its cookie.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "brokerq.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "proto_acct.h"

#define PAGES_MAX	100000	/* a bound on any loop over pages */

struct hist {
	struct conf		*h_cf;
	struct cli_common	 h_cc;
	const char		*h_user;	/* -u */
	uint32_t		 h_job;		/* -j */
	uint64_t		 h_since_ms;	/* -S */
	int			 h_rows;	/* printed so far */
	struct proto_acct_rows	 h_page;
	uint8_t			 h_buf[MSG_PAYLOAD_MAX];
};

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkHist [-v] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json]\n"
	    "                [-u user] [-j job] [-S since]\n"
	    "  -u user   the jobs of this user (others': administrators "
	    "only)\n"
	    "  -j job    this job and its tasks\n"
	    "  -S since  jobs submitted or ended since: YYYY-MM-DD[THH:MM[:SS]]"
	    "\n            (local time), or N[smhd] ago\n"
	    "columns: JOB USER STATE EXIT SUBMIT START END ELAPSED TASKS "
	    "FAILED COMMAND\n"
	    "with -j: TASK NODE TRIES STATE EXIT START END ELAPSED CPU "
	    "MAXRSS\n"
	    "Exit status: 0 success, 1 refused (or no such job), 2 usage, "
	    "3 no answer.\n");
	exit(status);
}

/* -S: an absolute local time or a span ago; 0 on error. */
static uint64_t
parse_since(const char *s)
{
	struct tm tm;
	const char *end;
	char *e;
	double v;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	tm.tm_isdst = -1;
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL || *end) {
		memset(&tm, 0, sizeof(tm));
		tm.tm_isdst = -1;
		if ((end = strptime(s, "%Y-%m-%dT%H:%M", &tm)) == NULL ||
		    *end) {
			memset(&tm, 0, sizeof(tm));
			tm.tm_isdst = -1;
			end = strptime(s, "%Y-%m-%d", &tm);
		}
	}
	if (end != NULL && *end == '\0') {
		if ((t = mktime(&tm)) == (time_t)-1 || t < 0)
			return 0;
		return (uint64_t)t * 1000;
	}
	v = strtod(s, &e);
	if (e == s || v < 0 || v > 1e7 || e[0] == '\0' || e[1] != '\0')
		return 0;
	switch (*e) {
	case 'd':
		v *= 24;
		/* FALLTHROUGH */
	case 'h':
		v *= 60;
		/* FALLTHROUGH */
	case 'm':
		v *= 60;
		/* FALLTHROUGH */
	case 's':
		break;
	default:
		return 0;
	}
	t = time(NULL);
	return v * 1000 >= (double)t * 1000 ? 1 :
	    (uint64_t)t * 1000 - (uint64_t)(v * 1000);
}

/* 2026-11-27T19:55:01, or "-" for none. */
static void
when(uint64_t ms, char *buf, size_t sz)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, sz, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		strlcpy(buf, "-", sz);
}

/* 0:00:02, 1-02:03:04; "-" if not both ends known. */
static void
elapsed(uint64_t start, uint64_t end, char *buf, size_t sz)
{
	uint64_t s;

	if (start == 0 || end == 0 || end < start) {
		strlcpy(buf, "-", sz);
		return;
	}
	s = (end - start + 500) / 1000;
	if (s >= 86400)
		snprintf(buf, sz, "%llu-%02llu:%02llu:%02llu",
		    (unsigned long long)(s / 86400),
		    (unsigned long long)(s % 86400 / 3600),
		    (unsigned long long)(s % 3600 / 60),
		    (unsigned long long)(s % 60));
	else
		snprintf(buf, sz, "%llu:%02llu:%02llu",
		    (unsigned long long)(s / 3600),
		    (unsigned long long)(s % 3600 / 60),
		    (unsigned long long)(s % 60));
}

/* 0, 1, "sig 9"; "-" when not known. */
static void
exit_text(int has, int32_t st, char *buf, size_t sz)
{
	if (!has)
		strlcpy(buf, "-", sz);
	else if (st < 0)
		snprintf(buf, sz, "sig %d", -st);
	else
		snprintf(buf, sz, "%d", st);
}

static double
secs(uint64_t ms)
{
	return (double)ms / 1000;
}

static void
json_time(const char *key, uint64_t ms)
{
	if (ms == 0)
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %.3f", key, secs(ms));
}

static void
json_opt(const char *key, int64_t v)
{
	if (v < 0)
		printf(", \"%s\": null", key);
	else
		printf(", \"%s\": %lld", key, (long long)v);
}

static void
job_json(const struct acct_job *r)
{
	printf("{\"job\": %u, \"user\": ", r->aj_job);
	json_put_str(stdout, r->aj_user);
	printf(", \"host\": ");
	json_put_str(stdout, r->aj_host);
	printf(", \"state\": ");
	json_put_str(stdout, acct_state_name(r->aj_state));
	if (r->aj_has_exit)
		printf(", \"exit\": %d", r->aj_exit);
	else
		printf(", \"exit\": null");
	json_time("submit", r->aj_submit_ms);
	json_time("start", r->aj_start_ms);
	json_time("end", r->aj_end_ms);
	printf(", \"tasks\": %u, \"failed\": %u, \"command\": ", r->aj_tasks,
	    r->aj_failed);
	json_put_str(stdout, r->aj_command);
	printf("}");
}

static void
job_text(const struct acct_job *r)
{
	char user[MSG_NAME_MAX + 1], cmd[ACCT_COMMAND_MAX], ex[16];
	char sub[32], st[32], en[32], el[32];

	brokerq_safe(user, sizeof(user), r->aj_user);
	brokerq_safe(cmd, sizeof(cmd), r->aj_command);
	exit_text(r->aj_has_exit, r->aj_exit, ex, sizeof(ex));
	when(r->aj_submit_ms, sub, sizeof(sub));
	when(r->aj_start_ms, st, sizeof(st));
	when(r->aj_end_ms, en, sizeof(en));
	elapsed(r->aj_start_ms != 0 ? r->aj_start_ms : r->aj_submit_ms,
	    r->aj_end_ms, el, sizeof(el));
	printf("%6u %-10s %-11s %5s %-19s %-19s %-19s %10s %5u %6u %s\n",
	    r->aj_job, user, acct_state_name(r->aj_state), ex, sub, st, en, el,
	    r->aj_tasks, r->aj_failed, cmd);
}

static void
task_json(const struct acct_task *t)
{
	printf("{\"task\": %u, \"node\": ", t->at_task);
	json_put_str(stdout, t->at_node);
	printf(", \"tries\": %u, \"state\": ", t->at_tries);
	json_put_str(stdout, acct_state_name(t->at_state));
	printf(", \"exit\": %d", t->at_exit);
	json_time("start", t->at_start_ms);
	json_time("end", t->at_end_ms);
	if (t->at_cpu_ms < 0)
		printf(", \"cpu\": null");
	else
		printf(", \"cpu\": %.3f", (double)t->at_cpu_ms / 1000);
	json_opt("maxrss_kb", t->at_maxrss_kb);
	printf("}");
}

static void
task_text(const struct acct_task *t)
{
	char node[ACCT_NODE_MAX], ex[16], st[32], en[32], el[32];
	char cpu[24], rss[24];

	brokerq_safe(node, sizeof(node), t->at_node);
	exit_text(1, t->at_exit, ex, sizeof(ex));
	when(t->at_start_ms, st, sizeof(st));
	when(t->at_end_ms, en, sizeof(en));
	elapsed(t->at_start_ms, t->at_end_ms, el, sizeof(el));
	if (t->at_cpu_ms < 0)
		strlcpy(cpu, "-", sizeof(cpu));
	else
		snprintf(cpu, sizeof(cpu), "%.2f", (double)t->at_cpu_ms / 1000);
	if (t->at_maxrss_kb < 0)
		strlcpy(rss, "-", sizeof(rss));
	else
		snprintf(rss, sizeof(rss), "%lldK", (long long)t->at_maxrss_kb);
	printf("%6u %-18s %5u %-11s %5s %-19s %-19s %10s %8s %8s\n",
	    t->at_task, node, t->at_tries, acct_state_name(t->at_state), ex,
	    st, en, el, cpu, rss);
}

/* One page; the exit code, the rows in h->h_page. */
static int
ask_page(struct hist *h, uint8_t what, uint32_t from)
{
	struct proto_acct_req q;
	char why[BROKERQ_ERR_MAX];
	uint8_t req[128];
	size_t rlen, len;
	int rc;

	memset(&q, 0, sizeof(q));
	q.aq_what = what;
	q.aq_job = h->h_job;
	if (h->h_user != NULL)
		strlcpy(q.aq_user, h->h_user, sizeof(q.aq_user));
	q.aq_since_ms = h->h_since_ms;
	q.aq_from = from;
	if ((rlen = proto_acct_req_enc(&q, req, sizeof(req))) == 0)
		errx(CLI_EXIT_USAGE, "the request cannot be encoded");
	rc = brokerq_ask_proven(h->h_cf, PROTO_H_ACCT_REQ, req, rlen,
	    PROTO_H_ACCT_ROWS, h->h_buf, sizeof(h->h_buf), &len, why,
	    sizeof(why));
	if (rc != CLI_EXIT_OK) {
		brokerq_warn("CilkHist", why);
		return rc;
	}
	if (proto_acct_rows_dec(&h->h_page, h->h_buf, len) == -1 ||
	    h->h_page.ar_what != what || (h->h_page.ar_next != 0 &&
	    h->h_page.ar_next <= from)) {
		warnx("the broker's answer cannot be read (another version "
		    "of cilknow?)");
		return CLI_EXIT_FAILURE;
	}
	return CLI_EXIT_OK;
}

/* The heading of what, once its first page came. */
static void
heading(const struct hist *h, uint8_t what)
{
	if (what == PROTO_AW_JOBS && h->h_cc.cc_json)
		printf("{\"schema\": 1, \"jobs\": [");
	else if (what == PROTO_AW_JOBS)
		printf("%6s %-10s %-11s %5s %-19s %-19s %-19s %10s %5s %6s "
		    "%s\n", "JOB", "USER", "STATE", "EXIT", "SUBMIT", "START", "END",
		    "ELAPSED", "TASKS", "FAILED", "COMMAND");
	else if (h->h_cc.cc_json)
		printf("], \"tasks\": [");
	else
		printf("\n%6s %-18s %5s %-11s %5s %-19s %-19s %10s %8s %8s\n",
		    "TASK", "NODE", "TRIES", "STATE", "EXIT", "START", "END",
		    "ELAPSED", "CPU", "MAXRSS");
}

/* Every page of what; rows printed as they come. */
static int
list(struct hist *h, uint8_t what)
{
	uint32_t from = 0, i;
	int rc, pages;

	for (pages = 0; pages < PAGES_MAX; pages++) {
		if ((rc = ask_page(h, what, from)) != CLI_EXIT_OK)
			return rc;
		if (pages == 0)
			heading(h, what);
		for (i = 0; i < h->h_page.ar_n; i++, h->h_rows++) {
			if (h->h_cc.cc_json && h->h_rows > 0)
				printf(", ");
			if (what == PROTO_AW_JOBS && h->h_cc.cc_json)
				job_json(&h->h_page.ar_jobs[i]);
			else if (what == PROTO_AW_JOBS)
				job_text(&h->h_page.ar_jobs[i]);
			else if (h->h_cc.cc_json)
				task_json(&h->h_page.ar_tasks[i]);
			else
				task_text(&h->h_page.ar_tasks[i]);
		}
		if ((from = h->h_page.ar_next) == 0)
			return CLI_EXIT_OK;
	}
	return CLI_EXIT_OK;
}

static int
run(struct hist *h)
{
	int rc;

	if ((rc = list(h, PROTO_AW_JOBS)) != CLI_EXIT_OK)
		return rc;
	if (h->h_job != 0 && h->h_rows == 0) {
		if (h->h_cc.cc_json)
			printf("]}\n");
		warnx("job %u: not in the history%s", h->h_job, h->h_user ?
		    " of that user" : " (or not yours)");
		return CLI_EXIT_FAILURE;
	}
	if (h->h_job == 0) {
		if (h->h_cc.cc_json)
			printf("]}\n");
		return CLI_EXIT_OK;
	}
	h->h_rows = 0;
	rc = list(h, PROTO_AW_TASKS);
	if (h->h_cc.cc_json)
		printf("]}\n");
	return rc;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct hist h;
	int ch, rc;

	while ((ch = cli_getopt(&h.h_cc, argc, argv, "b:c:hj:o:S:u:vV",
	    longopts, "CilkHist", usage)) != -1) {
		switch (ch) {
		case 'u':
			if (!msg_user_name_ok(optarg)) {
				warnx("-u %s: not a valid user name", optarg);
				usage(CLI_EXIT_USAGE);
			}
			h.h_user = optarg;
			break;
		case 'j':
			if ((h.h_job = cli_job_number('j', optarg)) == 0)
				usage(CLI_EXIT_USAGE);
			break;
		case 'S':
			if ((h.h_since_ms = parse_since(optarg)) == 0) {
				warnx("-S %s: not YYYY-MM-DD[THH:MM[:SS]] or "
				    "N[smhd]", optarg);
				usage(CLI_EXIT_USAGE);
			}
			break;
		}
	}
	if (optind != argc)
		usage(CLI_EXIT_USAGE);
	log_init(1, "CilkHist", h.h_cc.cc_verbose);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	if ((h.h_cf = cli_conf_load(&h.h_cc, "CilkHist")) == NULL)
		return CLI_EXIT_USAGE;
	rc = run(&h);
	conf_free(h.h_cf);
	return cli_stdout_done(rc);
}
