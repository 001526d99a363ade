/*
 * Unit tests of broker_kill: who may end which job, what leaves the
 * registry, and what the broker remembers of the jobs it ended.
 */
#include <stdio.h>
#include <string.h>

#include "broker_kill.h"
#include "tap.h"

static struct broker		br;
static struct broker_kill	bk;
static struct proto_kill_ans	ans;
static uint32_t			told[64];	/* jobs fn was called for */
static int			ntold;

static void
on_ended(const struct broker_ended *e, void *arg)
{
	(void)arg;
	if (ntold < 64)
		told[ntold++] = e->be_job;
}

static uint32_t
job(const char *user, uint64_t boot)
{
	struct proto_job_reg r;
	struct msg_addr a;
	struct broker_job *j;
	const char *why;

	memset(&r, 0, sizeof(r));
	memset(&a, 0, sizeof(a));
	a.ma_family = 4;
	a.ma_addr[0] = 127;
	a.ma_addr[3] = 1;
	a.ma_port = (uint16_t)(40000 + boot);
	r.jr_boot = boot;
	r.jr_pri = 1;
	snprintf(r.jr_command, sizeof(r.jr_command), "%s's job", user);
	j = broker_job_register(&br, &r, user, &a, 0, &why);
	return j != NULL ? j->bj_id : 0;
}

static int
kill_jobs(const char *by, int admin, uint32_t a, uint32_t b)
{
	struct proto_kill_req q;
	char why[PROTO_REASON_MAX];

	memset(&q, 0, sizeof(q));
	q.kq_what = PROTO_KILL_JOBS;
	q.kq_jobs[q.kq_njobs++] = a;
	if (b != 0)
		q.kq_jobs[q.kq_njobs++] = b;
	ntold = 0;
	return broker_kill(&bk, &br, &q, by, admin, 10, &ans, on_ended, NULL,
	    why, sizeof(why));
}

static int
kill_user(const char *user, const char *by, int admin, char *why,
    size_t whysz)
{
	struct proto_kill_req q;

	memset(&q, 0, sizeof(q));
	q.kq_what = PROTO_KILL_USER;
	strlcpy(q.kq_user, user, sizeof(q.kq_user));
	ntold = 0;
	return broker_kill(&bk, &br, &q, by, admin, 20, &ans, on_ended, NULL,
	    why, whysz);
}

static int
row(int i, uint32_t job_id, uint8_t result, const char *user)
{
	return i < ans.kn_n && ans.kn_rows[i].kr_job == job_id &&
	    ans.kn_rows[i].kr_result == result &&
	    strcmp(ans.kn_rows[i].kr_user, user) == 0;
}

int
main(void)
{
	char why[PROTO_REASON_MAX];
	uint32_t a1, a2, b1, b2, first, last;
	uint64_t epoch;
	int i;

	broker_init(&br, 1);
	broker_kill_init(&bk);
	a1 = job("ann", 101);
	a2 = job("ann", 102);
	b1 = job("bob", 201);
	b2 = job("bob", 202);
	ok(a1 && a2 && b1 && b2 && br.br_njobs == 4, "4 jobs, 2 of ann's, "
	    "2 of bob's");

	epoch = br.br_epoch;
	ok(kill_jobs("ann", 0, b1, 0) == 0 && ans.kn_n == 1 &&
	    row(0, b1, PROTO_KR_NOT_YOURS, "bob") && ntold == 0,
	    "ann may not end bob's job");
	ok(broker_job_find(&br, b1) != NULL && br.br_epoch == epoch,
	    "and it stays in the registry, unchanged");

	ok(kill_jobs("ann", 0, a1, 999) == 0 && ans.kn_n == 2 &&
	    row(0, a1, PROTO_KR_ENDED, "ann") &&
	    row(1, 999, PROTO_KR_NO_JOB, ""), "ann ends her job; 999 is "
	    "no such job");
	ok(ntold == 1 && told[0] == a1, "the caller hears of the ended job "
	    "(to tell its job manager)");
	ok(broker_job_find(&br, a1) == NULL && br.br_njobs == 3 &&
	    br.br_epoch != epoch, "it left the registry (the next push "
	    "lacks it)");
	ok(broker_kill_find(&bk, a1, 101) != NULL &&
	    strcmp(broker_kill_find(&bk, a1, 101)->be_by, "ann") == 0,
	    "the broker remembers it, by its job manager's boot number");
	ok(broker_kill_find(&bk, a1, 999) == NULL,
	    "not for another job manager with the same id");

	ok(kill_jobs("ann", 0, a1, 0) == 0 && row(0, a1, PROTO_KR_ALREADY,
	    "ann") && ntold == 0, "asked again (a lost answer), it was "
	    "ended already");
	ok(kill_jobs("bob", 0, a1, 0) == 0 && row(0, a1, PROTO_KR_NOT_YOURS,
	    "ann"), "but not for bob, whose job it never was");

	ok(kill_jobs("carol", 1, b1, 0) == 0 && row(0, b1, PROTO_KR_ENDED,
	    "bob") && broker_job_find(&br, b1) == NULL,
	    "an administrator ends bob's job");
	ok(strcmp(broker_kill_find(&bk, b1, 201)->be_by, "carol") == 0,
	    "remembered as ended by carol");

	ok(kill_user("bob", "ann", 0, why, sizeof(why)) == -1 &&
	    strstr(why, "only bob or an administrator") != NULL &&
	    broker_job_find(&br, b2) != NULL, "ann may not end every job of "
	    "bob's: \"%s\"", why);
	ok(kill_user("ann", "ann", 0, why, sizeof(why)) == 0 &&
	    ans.kn_n == 2 && row(0, a2, PROTO_KR_ENDED, "ann") &&
	    row(1, a1, PROTO_KR_ALREADY, "ann") && ntold == 1,
	    "ann ends all of hers: the one left, and the one ended already");
	ok(br.br_njobs == 1 && broker_job_find(&br, b2) != NULL,
	    "bob's other job runs on");
	ok(kill_user("dave", "dave", 0, why, sizeof(why)) == 0 &&
	    ans.kn_n == 0, "a user without jobs gets no rows");
	ok(kill_user("bob", "@cluster", 1, why, sizeof(why)) == -1 &&
	    kill_jobs("", 1, b2, 0) == -1 && broker_job_find(&br, b2) != NULL,
	    "only a user may end jobs, not @cluster or nobody");

	ok(broker_kill_seen(&bk, b1, 201, 22) != NULL &&
	    broker_kill_seen(&bk, b1, 999, 22) == NULL,
	    "bob's job manager registers the ended job again");
	broker_kill_expire(&bk, 24, 5);
	ok(broker_kill_find(&bk, a1, 101) == NULL &&
	    broker_kill_find(&bk, a2, 102) != NULL,
	    "what was ended long enough ago is forgotten");
	ok(broker_kill_find(&bk, b1, 201) != NULL, "but not while its job "
	    "manager keeps registering it");
	broker_kill_expire(&bk, 28, 5);
	ok(broker_kill_find(&bk, b1, 201) == NULL, "once it stops, it is");
	ok(kill_jobs("ann", 0, a1, 0) == 0 && row(0, a1, PROTO_KR_NO_JOB, ""),
	    "and then is no such job");

	first = job("eve", 1000);
	for (i = 1; i < BROKER_ENDED_MAX - 1; i++)
		(void)job("eve", 1000 + (uint64_t)i);
	ok(br.br_njobs == BROKER_ENDED_MAX, "eve fills the job table");
	i = kill_user("eve", "eve", 0, why, sizeof(why));
	ok(i == 0 && ans.kn_n == BROKER_ENDED_MAX - 1 && br.br_njobs == 1,
	    "eve ends all her %u jobs at once", ans.kn_n);
	ok(kill_jobs("bob", 0, b2, 0) == 0 && row(0, b2, PROTO_KR_ENDED,
	    "bob") && bk.bk_n == BROKER_ENDED_MAX, "bob ends his last job: "
	    "%d remembered", BROKER_ENDED_MAX);
	last = job("eve", 5000);
	ok(kill_jobs("eve", 0, last, 0) == 0 && row(0, last, PROTO_KR_ENDED,
	    "eve"), "eve ends one more");
	ok(bk.bk_n == BROKER_ENDED_MAX && broker_kill_find(&bk, first,
	    1000) == NULL && broker_kill_find(&bk, last, 5000) != NULL,
	    "the memory is bounded: the oldest is forgotten");
	broker_kill_fini(&bk);
	broker_fini(&br);
	return tap_done();
}
