/*
 * Unit tests of ACCT, ACCT_ACK, ACCT_REQ and ACCT_ROWS (proto_acct.h):
 * round trips, every truncation, trailing bytes and bit flips, and the
 * shapes the decoders refuse.
 */
#include <stdio.h>
#include <string.h>

#include "proto_acct.h"
#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

static uint8_t			buf[MSG_PAYLOAD_MAX];
static struct proto_acct_rows	rows, rows2;

static void
task_record(struct proto_acct *m)
{
	memset(m, 0, sizeof(*m));
	m->ac_kind = PROTO_AK_TASK;
	m->ac_boot = 0x0102030405060708ULL;
	m->ac_job.aj_job = 17;
	m->ac_task.at_task = 2;
	m->ac_task.at_tries = 3;
	strlcpy(m->ac_task.at_node, "127.0.0.4/1", sizeof(m->ac_task.at_node));
	m->ac_task.at_state = ACCT_ST_FAILED;
	m->ac_task.at_exit = -9;
	m->ac_task.at_start_ms = 1700000000000ULL;
	m->ac_task.at_end_ms = 1700000001234ULL;
	m->ac_task.at_cpu_ms = ACCT_UNKNOWN;
	m->ac_task.at_maxrss_kb = 4096;
}

/* An exit record's usage, for a task record: unknown, kept, or held. */
static void
test_usage(void)
{
	is_int(proto_acct_usage(PROTO_USAGE_NONE, PROTO_USAGE_CPU_MS_MAX),
	    ACCT_UNKNOWN, "usage: not measured is unknown");
	is_int(proto_acct_usage(0, PROTO_USAGE_CPU_MS_MAX), 0,
	    "usage: 0 stays 0");
	is_int(proto_acct_usage(1500, PROTO_USAGE_CPU_MS_MAX), 1500,
	    "usage: 1.5 s of CPU stays");
	ok(proto_acct_usage(PROTO_USAGE_CPU_MS_MAX, PROTO_USAGE_CPU_MS_MAX) ==
	    (int64_t)PROTO_USAGE_CPU_MS_MAX, "usage: the maximum stays");
	ok(proto_acct_usage(PROTO_USAGE_CPU_MS_MAX + 1,
	    PROTO_USAGE_CPU_MS_MAX) == (int64_t)PROTO_USAGE_CPU_MS_MAX &&
	    proto_acct_usage(PROTO_USAGE_NONE - 1, PROTO_USAGE_RSS_KB_MAX) ==
	    (int64_t)PROTO_USAGE_RSS_KB_MAX,
	    "usage: an absurd figure is held to the maximum");
	ok(proto_acct_usage(PROTO_USAGE_NONE - 1, UINT64_MAX) == INT64_MAX,
	    "usage: never past what a task record holds");
}

int
main(void)
{
	struct proto_acct m, out;
	struct proto_acct_ack a, aout;
	struct proto_acct_req q, qout;
	size_t n;
	int i;

	test_usage();
	/* ACCT, a task's try. */
	task_record(&m);
	n = proto_acct_enc(&m, buf, sizeof(buf));
	ok(n > 0, "ACCT task encodes (%zu bytes)", n);
	ok(proto_acct_dec(&out, buf, n) == 0 && out.ac_kind == PROTO_AK_TASK &&
	    out.ac_job.aj_job == 17 && out.ac_task.at_job == 17 &&
	    out.ac_task.at_task == 2 && out.ac_task.at_tries == 3 &&
	    strcmp(out.ac_task.at_node, "127.0.0.4/1") == 0 &&
	    out.ac_task.at_exit == -9 && out.ac_task.at_cpu_ms ==
	    ACCT_UNKNOWN && out.ac_task.at_maxrss_kb == 4096 &&
	    out.ac_boot == m.ac_boot && out.ac_task.at_end_ms ==
	    1700000001234ULL, "ACCT task round trip");
	robust("ACCT task", rt_proto_acct, buf, n);

	/* ACCT, the job's end. */
	memset(&m, 0, sizeof(m));
	m.ac_kind = PROTO_AK_JOB;
	m.ac_job.aj_job = 17;
	m.ac_job.aj_state = ACCT_ST_FAILED;
	m.ac_job.aj_has_exit = 1;
	m.ac_job.aj_exit = 1;
	m.ac_job.aj_tasks = 3;
	m.ac_job.aj_failed = 1;
	m.ac_job.aj_start_ms = 5;
	m.ac_job.aj_end_ms = 6;
	n = proto_acct_enc(&m, buf, sizeof(buf));
	ok(n > 0 && proto_acct_dec(&out, buf, n) == 0 &&
	    out.ac_kind == PROTO_AK_JOB && out.ac_job.aj_state ==
	    ACCT_ST_FAILED && out.ac_job.aj_has_exit == 1 &&
	    out.ac_job.aj_exit == 1 && out.ac_job.aj_tasks == 3 &&
	    out.ac_job.aj_failed == 1 && out.ac_job.aj_end_ms == 6,
	    "ACCT job round trip");
	robust("ACCT job", rt_proto_acct, buf, n);

	/* What no encoder writes. */
	task_record(&m);
	m.ac_job.aj_job = 0;
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0, "job 0 not encoded");
	task_record(&m);
	m.ac_task.at_tries = 0;
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0, "no try not encoded");
	task_record(&m);
	m.ac_task.at_node[0] = '\0';
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0, "no node not encoded");
	task_record(&m);
	m.ac_task.at_state = ACCT_ST_MAX;
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0, "bad state not encoded");
	task_record(&m);
	strlcpy(m.ac_task.at_node, "a\nb", sizeof(m.ac_task.at_node));
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0,
	    "a node with a newline not encoded");
	task_record(&m);
	m.ac_kind = PROTO_AK_AFTER;
	ok(proto_acct_enc(&m, buf, sizeof(buf)) == 0, "kind AFTER not an ACCT");
	task_record(&m);
	n = proto_acct_enc(&m, buf, sizeof(buf));
	buf[0] = PROTO_AK_AFTER;
	ok(proto_acct_dec(&out, buf, n) == -1, "kind AFTER refused");
	buf[0] = PROTO_AK_JOB;	/* a task's fields under kind JOB */
	ok(proto_acct_dec(&out, buf, n) == -1,
	    "a job with task fields refused");
	/* cpu_ms above INT64_MAX but not all ones */
	task_record(&m);
	n = proto_acct_enc(&m, buf, sizeof(buf));
	buf[n - 16] = 0x80;
	ok(proto_acct_dec(&out, buf, n) == -1, "cpu_ms over 2^63 refused");

	/* ACCT_ACK */
	memset(&a, 0, sizeof(a));
	a.aa_kind = PROTO_AK_TASK;
	a.aa_job = 17;
	a.aa_task = 2;
	a.aa_tries = 3;
	n = proto_acct_ack_enc(&a, buf, sizeof(buf));
	ok(n > 0 && proto_acct_ack_dec(&aout, buf, n) == 0 &&
	    aout.aa_kind == PROTO_AK_TASK && aout.aa_job == 17 &&
	    aout.aa_task == 2 && aout.aa_tries == 3, "ACCT_ACK round trip");
	robust("ACCT_ACK", rt_proto_acct_ack, buf, n);
	a.aa_kind = PROTO_AK_AFTER;
	a.aa_state = PROTO_AFTER_OK;
	n = proto_acct_ack_enc(&a, buf, sizeof(buf));
	ok(n > 0 && proto_acct_ack_dec(&aout, buf, n) == 0 &&
	    aout.aa_state == PROTO_AFTER_OK, "ACCT_ACK after round trip");
	a.aa_state = PROTO_AFTER_MAX;
	ok(proto_acct_ack_enc(&a, buf, sizeof(buf)) == 0,
	    "ACCT_ACK bad after state not encoded");
	a.aa_kind = PROTO_AK_JOB;
	a.aa_state = 1;
	ok(proto_acct_ack_enc(&a, buf, sizeof(buf)) == 0,
	    "ACCT_ACK of a record with a state not encoded");

	/* ACCT_REQ */
	memset(&q, 0, sizeof(q));
	q.aq_what = PROTO_AW_JOBS;
	strlcpy(q.aq_user, "ann", sizeof(q.aq_user));
	q.aq_since_ms = 99;
	q.aq_from = 7;
	n = proto_acct_req_enc(&q, buf, sizeof(buf));
	ok(n > 0 && proto_acct_req_dec(&qout, buf, n) == 0 &&
	    strcmp(qout.aq_user, "ann") == 0 && qout.aq_from == 7 &&
	    !qout.aq_has_cookie, "ACCT_REQ round trip");
	robust("ACCT_REQ", rt_proto_acct_req, buf, n);
	q.aq_has_cookie = 1;
	memset(q.aq_cookie, 0xab, sizeof(q.aq_cookie));
	q.aq_what = PROTO_AW_TASKS;
	q.aq_job = 17;
	n = proto_acct_req_enc(&q, buf, sizeof(buf));
	ok(n > 0 && proto_acct_req_dec(&qout, buf, n) == 0 &&
	    qout.aq_has_cookie && qout.aq_cookie[15] == 0xab &&
	    qout.aq_job == 17, "ACCT_REQ with a cookie round trip");
	robust("ACCT_REQ cookie", rt_proto_acct_req, buf, n);
	q.aq_job = 0;
	ok(proto_acct_req_enc(&q, buf, sizeof(buf)) == 0,
	    "the tasks of job 0 not asked");
	q.aq_job = 1;
	strlcpy(q.aq_user, "no one", sizeof(q.aq_user));
	ok(proto_acct_req_enc(&q, buf, sizeof(buf)) == 0,
	    "a bad user name not asked");

	/* ACCT_ROWS, jobs then tasks, full pages. */
	memset(&rows, 0, sizeof(rows));
	rows.ar_what = PROTO_AW_JOBS;
	rows.ar_next = 40;
	rows.ar_n = PROTO_ACCT_JOB_ROWS;
	for (i = 0; i < PROTO_ACCT_JOB_ROWS; i++) {
		struct acct_job *j = &rows.ar_jobs[i];

		j->aj_job = (uint32_t)(9 + i);
		strlcpy(j->aj_user, i % 2 ? "bob" : "ann", sizeof(j->aj_user));
		strlcpy(j->aj_host, "127.0.0.1", sizeof(j->aj_host));
		memset(j->aj_command, 'x', sizeof(j->aj_command) - 1);
		j->aj_state = ACCT_ST_COMPLETED;
		j->aj_has_exit = 1;
	}
	n = proto_acct_rows_enc(&rows, buf, sizeof(buf));
	ok(n > 0 && n < MSG_PAYLOAD_MAX, "a full page of jobs fits (%zu)", n);
	ok(proto_acct_rows_dec(&rows2, buf, n) == 0 && rows2.ar_n ==
	    PROTO_ACCT_JOB_ROWS && rows2.ar_next == 40 &&
	    rows2.ar_jobs[1].aj_job == 10 &&
	    strcmp(rows2.ar_jobs[1].aj_user, "bob") == 0, "jobs round trip");
	rows.ar_n = 2;
	n = proto_acct_rows_enc(&rows, buf, sizeof(buf));
	robust("ACCT_ROWS jobs", rt_proto_acct_rows, buf, n);
	rows.ar_n = PROTO_ACCT_JOB_ROWS + 1;
	ok(proto_acct_rows_enc(&rows, buf, sizeof(buf)) == 0,
	    "a page over the rows allowed not encoded");
	memset(&rows, 0, sizeof(rows));
	rows.ar_what = PROTO_AW_TASKS;
	rows.ar_n = PROTO_ACCT_TASK_ROWS;
	for (i = 0; i < PROTO_ACCT_TASK_ROWS; i++) {
		struct acct_task *t = &rows.ar_tasks[i];

		t->at_task = (uint32_t)i;
		strlcpy(t->at_node, "127.0.0.200/255", sizeof(t->at_node));
		t->at_tries = 1;
		t->at_state = ACCT_ST_COMPLETED;
		t->at_cpu_ms = ACCT_UNKNOWN;
		t->at_maxrss_kb = i;
	}
	n = proto_acct_rows_enc(&rows, buf, sizeof(buf));
	ok(n > 0 && proto_acct_rows_dec(&rows2, buf, n) == 0 &&
	    rows2.ar_n == PROTO_ACCT_TASK_ROWS &&
	    rows2.ar_tasks[5].at_maxrss_kb == 5 &&
	    rows2.ar_tasks[5].at_cpu_ms == ACCT_UNKNOWN,
	    "a full page of tasks round trip (%zu bytes)", n);
	rows.ar_n = 2;
	n = proto_acct_rows_enc(&rows, buf, sizeof(buf));
	robust("ACCT_ROWS tasks", rt_proto_acct_rows, buf, n);
	buf[0] = PROTO_AW_MAX;
	ok(proto_acct_rows_dec(&rows2, buf, n) == -1, "unknown what refused");
	return tap_done();
}
