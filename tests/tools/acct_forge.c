/*
 * acct_forge — sends the broker one ACCT task record, as a job manager
 * does, under the user key the configuration names, for tests of who
 * may write which job's history:
 *   acct_forge [-c file] [-o k=v]... JOB TASK EXIT
 * The record says task TASK of JOB ran on node 127.0.0.99 (try 99) and
 * exited EXIT.  Prints "acknowledged", or the broker's refusal; exits
 * 0, 1 (refused) or 3 (no answer); 2 on bad use.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "brokerq.h"
#include "cli.h"
#include "log.h"
#include "mono.h"
#include "proto_acct.h"

int
main(int argc, char *argv[])
{
	static uint8_t buf[MSG_PAYLOAD_MAX], ans[MSG_PAYLOAD_MAX];
	struct cli_common cc;
	struct proto_acct m;
	struct conf *cf;
	const char *errstr;
	char why[BROKERQ_ERR_MAX];
	size_t len, alen;
	int ch, rc;

	memset(&cc, 0, sizeof(cc));
	while ((ch = getopt(argc, argv, "c:o:v")) != -1)
		if (cli_common_opt(&cc, ch, optarg) != 1)
			errx(2, "usage: acct_forge [-c file] [-o k=v] JOB TASK "
			    "EXIT");
	if (argc - optind != 3)
		errx(2, "usage: acct_forge [-c file] [-o k=v] JOB TASK EXIT");
	memset(&m, 0, sizeof(m));
	m.ac_kind = PROTO_AK_TASK;
	m.ac_job.aj_job = (uint32_t)strtonum(argv[optind], 1, UINT32_MAX,
	    &errstr);
	if (errstr == NULL)
		m.ac_task.at_task = (uint32_t)strtonum(argv[optind + 1], 0,
		    65535, &errstr);
	if (errstr == NULL)
		m.ac_task.at_exit = (int32_t)strtonum(argv[optind + 2], -64,
		    255, &errstr);
	if (errstr != NULL)
		errx(2, "bad number: %s", errstr);
	m.ac_task.at_job = m.ac_job.aj_job;
	m.ac_task.at_tries = 99;
	strlcpy(m.ac_task.at_node, "127.0.0.99", sizeof(m.ac_task.at_node));
	m.ac_task.at_state = m.ac_task.at_exit == 0 ? ACCT_ST_COMPLETED :
	    ACCT_ST_FAILED;
	m.ac_task.at_end_ms = now_real_ms();
	m.ac_task.at_cpu_ms = ACCT_UNKNOWN;
	m.ac_task.at_maxrss_kb = ACCT_UNKNOWN;
	if ((len = proto_acct_enc(&m, buf, sizeof(buf))) == 0)
		errx(2, "the record does not encode");
	log_init(1, "acct_forge", cc.cc_verbose);
	if (sodium_init() < 0 || (cf = cli_conf_load(&cc, "acct_forge")) ==
	    NULL)
		return 2;
	rc = brokerq_ask(cf, PROTO_H_ACCT, buf, len, PROTO_H_ACCT_ACK, ans,
	    sizeof(ans), &alen, why, sizeof(why));
	conf_free(cf);
	if (rc == CLI_EXIT_OK)
		printf("acknowledged\n");
	else
		printf("%s\n", why);
	return rc;
}
