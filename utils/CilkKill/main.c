/*
 * CilkKill — end jobs: the listed ones, or every job of a user.  The
 * request is signed with the user's key; the broker decides (a user
 * ends their own jobs, an administrator any), takes the jobs out of the
 * registry so that their nodes stop the workers, and tells each job's
 * manager, which exits.
 */
#include <err.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "brokerq.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "proto_kill.h"

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: CilkKill [-v] [-c file] [-o key=value] [-b host[:port]] "
	    "[--json] job ...\n"
	    "       CilkKill [options] -u user\n"
	    "  -u user  every job of this user\n"
	    "A user ends their own jobs, an administrator (admins) any.\n"
	    "Exit status: 0 every job ended, 1 the broker refused or found "
	    "none,\n"
	    "2 usage, 3 the broker did not answer.\n");
	exit(status);
}

static void
print_json(const struct proto_kill_ans *a)
{
	const struct proto_kill_row *r;
	uint16_t i;

	printf("{\"schema\": 1, \"jobs\": [");
	for (i = 0; i < a->kn_n; i++) {
		r = &a->kn_rows[i];
		printf("%s{\"job\": %u, \"user\": ", i ? ", " : "", r->kr_job);
		if (r->kr_user[0] != '\0')
			json_put_str(stdout, r->kr_user);
		else
			printf("null");
		printf(", \"result\": ");
		json_put_str(stdout, proto_kill_result_name(r->kr_result));
		printf("}");
	}
	printf("]}\n");
}

/* Each job's fate: what ended on stdout, what did not on stderr. */
static void
print_text(const struct proto_kill_ans *a)
{
	const struct proto_kill_row *r;
	uint16_t i;

	for (i = 0; i < a->kn_n; i++) {
		r = &a->kn_rows[i];
		switch (r->kr_result) {
		case PROTO_KR_ENDED:
			printf("job %u of %s ended\n", r->kr_job, r->kr_user);
			break;
		case PROTO_KR_ALREADY:
			printf("job %u of %s was ended already\n", r->kr_job,
			    r->kr_user);
			break;
		case PROTO_KR_NOT_YOURS:
			warnx("job %u is %s's: only %s or an administrator "
			    "may end it", r->kr_job, r->kr_user, r->kr_user);
			break;
		default:
			warnx("job %u: no such job (see CilkPs)", r->kr_job);
		}
	}
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, CLI_OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static struct proto_kill_ans ans;
	static uint8_t buf[MSG_PAYLOAD_MAX];
	struct proto_kill_req req;
	struct cli_common cc;
	struct conf *cf;
	const char *user = NULL;
	char why[BROKERQ_ERR_MAX];
	uint8_t rq[16 + 4 * PROTO_KILL_JOBS_MAX + MSG_NAME_MAX +
	    PROTO_COOKIE_LEN];
	size_t rlen, len;
	int ch, i, rc;
	uint16_t k;

	memset(&cc, 0, sizeof(cc));
	memset(&req, 0, sizeof(req));
	while ((ch = cli_getopt(&cc, argc, argv, "b:c:ho:u:vV", longopts,
	    "CilkKill", usage)) != -1) {
		if (ch != 'u')
			continue;
		if (!msg_user_name_ok(optarg)) {
			warnx("-u %s: not a valid user name", optarg);
			usage(CLI_EXIT_USAGE);
		}
		user = optarg;
	}
	argc -= optind;
	argv += optind;
	if (user != NULL) {
		if (argc != 0) {
			warnx("-u %s: no job numbers with -u", user);
			usage(CLI_EXIT_USAGE);
		}
		req.kq_what = PROTO_KILL_USER;
		strlcpy(req.kq_user, user, sizeof(req.kq_user));
	} else {
		if (argc == 0)
			usage(CLI_EXIT_USAGE);
		if (argc > PROTO_KILL_JOBS_MAX)
			errx(CLI_EXIT_USAGE, "at most %d jobs at once",
			    PROTO_KILL_JOBS_MAX);
		req.kq_what = PROTO_KILL_JOBS;
		for (i = 0; i < argc; i++) {
			const char *errstr;

			req.kq_jobs[i] = (uint32_t)strtonum(argv[i], 1,
			    UINT32_MAX, &errstr);
			if (errstr != NULL)
				errx(CLI_EXIT_USAGE, "%s: job number is %s "
				    "(CilkKill -h shows the usage)", argv[i],
				    errstr);
		}
		req.kq_njobs = (uint16_t)argc;
	}
	if ((rlen = proto_kill_req_enc(&req, rq, sizeof(rq))) == 0)
		errx(CLI_EXIT_USAGE, "the request cannot be encoded");
	log_init(1, "CilkKill", cc.cc_verbose);
	if (sodium_init() < 0)
		errx(CLI_EXIT_FAILURE, "libsodium failed to initialise");
	if ((cf = cli_conf_load(&cc, "CilkKill")) == NULL)
		return CLI_EXIT_USAGE;
	/* The broker answers only where it sent its cookie. */
	rc = brokerq_ask_proven(cf, PROTO_H_KILL_REQ, rq, rlen,
	    PROTO_H_KILL_ANSWER, buf, sizeof(buf), &len, why, sizeof(why));
	conf_free(cf);
	if (rc != CLI_EXIT_OK) {
		brokerq_warn("CilkKill", why);
		return rc;
	}
	if (proto_kill_ans_dec(&ans, buf, len) == -1)
		errx(CLI_EXIT_FAILURE, "the broker's answer cannot be read "
		    "(another version of cilknow?)");
	/* Success only if something was asked for and all of it ended. */
	rc = ans.kn_n > 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
	for (k = 0; k < ans.kn_n; k++)
		if (ans.kn_rows[k].kr_result != PROTO_KR_ENDED &&
		    ans.kn_rows[k].kr_result != PROTO_KR_ALREADY)
			rc = CLI_EXIT_FAILURE;
	if (cc.cc_json)
		print_json(&ans);
	else {
		print_text(&ans);
		if (ans.kn_n == 0)
			warnx("%s has no jobs (see CilkPs)", user != NULL ?
			    user : "nobody");
	}
	return cli_stdout_done(rc);
}
