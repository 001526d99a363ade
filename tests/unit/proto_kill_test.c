/* Unit tests of KILL_REQ, KILL_ANSWER and JOB_ENDED (proto_kill.h). */
#include <stdio.h>
#include <string.h>

#include "proto_kill.h"
#include "tap.h"
#include "codec_robust.h"
#include "proto_rt.h"

static uint8_t	buf[MSG_PAYLOAD_MAX];

/* Encodes q, breaks it with fn, and says whether the decoder refused. */
static int
refused_req(const struct proto_kill_req *q, void (*fn)(uint8_t *, size_t *))
{
	struct proto_kill_req out;
	size_t n = proto_kill_req_enc(q, buf, sizeof(buf));

	if (n == 0)
		return 0;
	fn(buf, &n);
	return proto_kill_req_dec(&out, buf, n) == -1;
}

/* jobs form, first id (bytes 3-6) set to 0 */
static void
zero_job(uint8_t *b, size_t *n)
{
	(void)n;
	memset(b + 3, 0, 4);
}

/* the count (bytes 1-2) says 65 */
static void
count_65(uint8_t *b, size_t *n)
{
	(void)n;
	b[1] = 0;
	b[2] = 65;
}

/* the form (byte 0) becomes 3 */
static void
what_3(uint8_t *b, size_t *n)
{
	(void)n;
	b[0] = 3;
}

/* user form: the name's first byte (after u8, u16, u16) an upper case */
static void
bad_name(uint8_t *b, size_t *n)
{
	(void)n;
	b[5] = 'A';
}

int
main(void)
{
	struct proto_kill_req q, q2;
	struct proto_kill_ans a;
	static struct proto_kill_ans a2;
	struct proto_job_ended e, e2;
	size_t n;
	int i;

	/* KILL_REQ, the jobs form */
	memset(&q, 0, sizeof(q));
	q.kq_what = PROTO_KILL_JOBS;
	q.kq_njobs = 3;
	q.kq_jobs[0] = 12;
	q.kq_jobs[1] = 0xfffffffe;
	q.kq_jobs[2] = 12;
	n = proto_kill_req_enc(&q, buf, sizeof(buf));
	ok(n == 1 + 2 + 12 + 2 + 1, "KILL_REQ of 3 jobs encodes (%zu bytes)", n);
	ok(proto_kill_req_dec(&q2, buf, n) == 0 &&
	    q2.kq_what == PROTO_KILL_JOBS && q2.kq_njobs == 3 &&
	    q2.kq_jobs[0] == 12 && q2.kq_jobs[1] == 0xfffffffe &&
	    q2.kq_jobs[2] == 12 && q2.kq_user[0] == '\0',
	    "KILL_REQ of jobs round trip");
	robust("KILL_REQ jobs", rt_proto_kill_req, buf, n);
	ok(refused_req(&q, zero_job), "KILL_REQ for job 0 refused");
	ok(refused_req(&q, count_65), "KILL_REQ claiming 65 jobs refused");
	ok(refused_req(&q, what_3), "KILL_REQ of an unknown form refused");
	q.kq_njobs = PROTO_KILL_JOBS_MAX;
	for (i = 0; i < PROTO_KILL_JOBS_MAX; i++)
		q.kq_jobs[i] = (uint32_t)i + 1;
	n = proto_kill_req_enc(&q, buf, sizeof(buf));
	ok(n > 0 && proto_kill_req_dec(&q2, buf, n) == 0 &&
	    q2.kq_njobs == PROTO_KILL_JOBS_MAX && q2.kq_jobs[63] == 64,
	    "KILL_REQ of %d jobs, the most, round trip", PROTO_KILL_JOBS_MAX);
	q.kq_njobs = PROTO_KILL_JOBS_MAX + 1;
	ok(proto_kill_req_enc(&q, buf, sizeof(buf)) == 0,
	    "KILL_REQ of 65 jobs is not encoded");
	q.kq_njobs = 0;
	ok(proto_kill_req_enc(&q, buf, sizeof(buf)) == 0,
	    "KILL_REQ of no job is not encoded");
	q.kq_njobs = 1;
	strlcpy(q.kq_user, "ann", sizeof(q.kq_user));
	ok(proto_kill_req_enc(&q, buf, sizeof(buf)) == 0,
	    "KILL_REQ of jobs and a user is not encoded");
	ok(proto_kill_req_enc(&q, buf, 5) == 0 &&
	    proto_kill_req_enc(&(struct proto_kill_req){ PROTO_KILL_JOBS, 1,
	    { 7 }, "", 0, { 0 } }, buf, 8) == 0, "KILL_REQ: no room, no message");

	/* KILL_REQ, the user form */
	memset(&q, 0, sizeof(q));
	q.kq_what = PROTO_KILL_USER;
	strlcpy(q.kq_user, "ann", sizeof(q.kq_user));
	n = proto_kill_req_enc(&q, buf, sizeof(buf));
	ok(n == 1 + 2 + 2 + 3 + 1 && proto_kill_req_dec(&q2, buf, n) == 0 &&
	    q2.kq_what == PROTO_KILL_USER && q2.kq_njobs == 0 &&
	    strcmp(q2.kq_user, "ann") == 0 && q2.kq_has_cookie == 0,
	    "KILL_REQ of a user round trip");
	robust("KILL_REQ user", rt_proto_kill_req, buf, n);
	/* With the broker's cookie, echoed as it came. */
	q.kq_has_cookie = 1;
	memset(q.kq_cookie, 0xa5, sizeof(q.kq_cookie));
	q.kq_cookie[15] = 7;
	n = proto_kill_req_enc(&q, buf, sizeof(buf));
	ok(n == 1 + 2 + 2 + 3 + 1 + PROTO_COOKIE_LEN &&
	    proto_kill_req_dec(&q2, buf, n) == 0 && q2.kq_has_cookie == 1 &&
	    memcmp(q2.kq_cookie, q.kq_cookie, PROTO_COOKIE_LEN) == 0,
	    "KILL_REQ with a cookie round trip");
	robust("KILL_REQ user with a cookie", rt_proto_kill_req, buf, n);
	ok(proto_kill_req_dec(&q2, buf, n - 1) == -1,
	    "KILL_REQ with a cookie cut short refused");
	buf[8] = 2;
	ok(proto_kill_req_dec(&q2, buf, n) == -1,
	    "KILL_REQ with has_cookie 2 refused");
	q.kq_has_cookie = 0;
	ok(refused_req(&q, bad_name), "KILL_REQ of an invalid user refused");
	strlcpy(q.kq_user, "@cluster", sizeof(q.kq_user));
	ok(proto_kill_req_enc(&q, buf, sizeof(buf)) == 0,
	    "KILL_REQ of @cluster's jobs is not encoded");
	q.kq_user[0] = '\0';
	ok(proto_kill_req_enc(&q, buf, sizeof(buf)) == 0,
	    "KILL_REQ of the user \"\" is not encoded");
	/* u8 2, u16 1, u32 5, str "ann": a user with a job */
	memcpy(buf, "\x02\x00\x01\x00\x00\x00\x05\x00\x03" "ann", 12);
	ok(proto_kill_req_dec(&q2, buf, 12) == -1,
	    "KILL_REQ of a user and a job refused");
	ok(proto_kill_req_dec(&q2, buf, 0) == -1, "an empty KILL_REQ refused");

	/* KILL_ANSWER */
	memset(&a, 0, sizeof(a));
	a.kn_n = 4;
	a.kn_rows[0] = (struct proto_kill_row){ 12, PROTO_KR_ENDED, "ann" };
	a.kn_rows[1] = (struct proto_kill_row){ 13, PROTO_KR_ALREADY, "ann" };
	a.kn_rows[2] = (struct proto_kill_row){ 14, PROTO_KR_NO_JOB, "" };
	a.kn_rows[3] = (struct proto_kill_row){ 15, PROTO_KR_NOT_YOURS,
	    "bob" };
	n = proto_kill_ans_enc(&a, buf, sizeof(buf));
	ok(n > 0 && proto_kill_ans_dec(&a2, buf, n) == 0 && a2.kn_n == 4 &&
	    a2.kn_rows[0].kr_job == 12 &&
	    a2.kn_rows[1].kr_result == PROTO_KR_ALREADY &&
	    a2.kn_rows[2].kr_user[0] == '\0' &&
	    strcmp(a2.kn_rows[3].kr_user, "bob") == 0,
	    "KILL_ANSWER of 4 rows round trip (%zu bytes)", n);
	robust("KILL_ANSWER", rt_proto_kill_ans, buf, n);
	buf[1] = 5;	/* the count says one row more */
	ok(proto_kill_ans_dec(&a2, buf, n) == -1,
	    "KILL_ANSWER with a row missing refused");
	ok(proto_kill_ans_dec(&a2, (const uint8_t *)"\xff\xff", 2) == -1,
	    "KILL_ANSWER claiming 65535 rows refused");
	ok(proto_kill_ans_dec(&a2, (const uint8_t *)"\x00\x00", 2) == 0 &&
	    a2.kn_n == 0, "an empty KILL_ANSWER is one (a user without jobs)");
	a.kn_rows[0].kr_result = PROTO_KR_MAX;
	ok(proto_kill_ans_enc(&a, buf, sizeof(buf)) == 0,
	    "KILL_ANSWER with an unknown result is not encoded");
	a.kn_rows[0].kr_result = PROTO_KR_ENDED;
	a.kn_rows[0].kr_job = 0;
	ok(proto_kill_ans_enc(&a, buf, sizeof(buf)) == 0,
	    "KILL_ANSWER for job 0 is not encoded");
	a.kn_rows[0].kr_job = 12;
	strlcpy(a.kn_rows[0].kr_user, "Ann\033[2J", sizeof(a.kn_rows[0].kr_user));
	ok(proto_kill_ans_enc(&a, buf, sizeof(buf)) == 0,
	    "KILL_ANSWER with an invalid user is not encoded");
	/* u16 1, u32 12, u8 1, str "a\n" */
	memcpy(buf, "\x00\x01\x00\x00\x00\x0c\x01\x00\x02" "a\n", 11);
	ok(proto_kill_ans_dec(&a2, buf, 11) == -1,
	    "KILL_ANSWER with a control character in a user refused");
	a.kn_n = PROTO_KILL_ROWS_MAX;
	for (i = 0; i < PROTO_KILL_ROWS_MAX; i++)
		a.kn_rows[i] = (struct proto_kill_row){ (uint32_t)i + 1,
		    PROTO_KR_ENDED, "abcdefghijklmnopqrstuvwxyz012345" };
	n = proto_kill_ans_enc(&a, buf, sizeof(buf));
	ok(n > 0 && n <= MSG_PAYLOAD_MAX && proto_kill_ans_dec(&a2, buf,
	    n) == 0 && a2.kn_n == PROTO_KILL_ROWS_MAX,
	    "KILL_ANSWER of %d rows with the longest names fits one message "
	    "(%zu bytes)", PROTO_KILL_ROWS_MAX, n);
	a.kn_n = PROTO_KILL_ROWS_MAX + 1;
	ok(proto_kill_ans_enc(&a, buf, sizeof(buf)) == 0,
	    "KILL_ANSWER of %d rows is not encoded", PROTO_KILL_ROWS_MAX + 1);

	/* JOB_ENDED */
	memset(&e, 0, sizeof(e));
	e.je_job = 12;
	e.je_boot = 0x0123456789abcdefULL;
	strlcpy(e.je_by, "ann", sizeof(e.je_by));
	n = proto_job_ended_enc(&e, buf, sizeof(buf));
	ok(n == 4 + 8 + 2 + 3 && proto_job_ended_dec(&e2, buf, n) == 0 &&
	    e2.je_job == 12 && e2.je_boot == e.je_boot &&
	    strcmp(e2.je_by, "ann") == 0, "JOB_ENDED round trip");
	robust("JOB_ENDED", rt_proto_job_ended, buf, n);
	memset(buf, 0, 4);
	ok(proto_job_ended_dec(&e2, buf, n) == -1, "JOB_ENDED of job 0 refused");
	e.je_by[0] = '\0';
	ok(proto_job_ended_enc(&e, buf, sizeof(buf)) == 0,
	    "JOB_ENDED by nobody is not encoded");
	strlcpy(e.je_by, "@cluster", sizeof(e.je_by));
	ok(proto_job_ended_enc(&e, buf, sizeof(buf)) == 0,
	    "JOB_ENDED by @cluster is not encoded");

	ok(strcmp(proto_kill_result_name(PROTO_KR_NOT_YOURS), "not yours") ==
	    0 && strcmp(proto_kill_result_name(PROTO_KR_MAX), "?") == 0,
	    "result names");
	return tap_done();
}
