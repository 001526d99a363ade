/*
 * Unit tests of acct: the accounting database over a temporary file:
 * open, rows in and out with filters, idempotent task records,
 * retention, a newer schema refused, and reopening after a close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "acct.h"
#include "tap.h"

static char dir[] = "/tmp/acct_test.XXXXXX";
static char path[256];

static void
job(struct acct *ac, uint32_t id, const char *user, uint64_t submit)
{
	struct acct_job j;

	memset(&j, 0, sizeof(j));
	j.aj_job = id;
	strlcpy(j.aj_user, user, sizeof(j.aj_user));
	strlcpy(j.aj_host, "127.0.0.1", sizeof(j.aj_host));
	snprintf(j.aj_command, sizeof(j.aj_command), "job %u", id);
	j.aj_submit_ms = submit;
	ok(acct_job_begin(ac, &j) == 0, "job %u begins", id);
}

static struct acct_task
task(uint32_t id, uint32_t t, uint32_t tries, int32_t status)
{
	struct acct_task k;

	memset(&k, 0, sizeof(k));
	k.at_job = id;
	k.at_task = t;
	snprintf(k.at_node, sizeof(k.at_node), "127.0.0.%u", 2 + t);
	k.at_tries = tries;
	k.at_state = status == 0 ? ACCT_ST_COMPLETED : ACCT_ST_FAILED;
	k.at_exit = status;
	k.at_start_ms = 1000 * tries;
	k.at_end_ms = 1000 * tries + 500;
	k.at_cpu_ms = ACCT_UNKNOWN;
	k.at_maxrss_kb = t == 0 ? 2048 : ACCT_UNKNOWN;
	return k;
}

int
main(void)
{
	struct acct *ac;
	struct acct_job j, rows[8];
	struct acct_task k, trows[8];
	struct acct_filter f;
	char err[512];
	uint32_t n;
	int more;
	sqlite3 *db;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, ACCT_FILE);
	ac = acct_open(path, err, sizeof(err));
	if (!ok(ac != NULL, "a new database opens"))
		printf("# %s\n", err);
	if (ac == NULL)
		return 1;
	is_int(acct_max_job(ac), 0, "an empty database has no job");
	job(ac, 5, "ann", 100000);
	job(ac, 6, "bob", 200000);
	job(ac, 7, "ann", 300000);
	job(ac, 5, "eve", 1);	/* again: ignored */
	is_int(acct_job_get(ac, 5, &j), 0, "job 5 is there");
	is_str(j.aj_user, "ann", "registered again, the row stays ann's");
	is_int(j.aj_state, ACCT_ST_RUNNING, "a new job runs");
	ok(!j.aj_has_exit && j.aj_end_ms == 0, "... with no exit, no end");
	is_int(acct_job_get(ac, 99, &j), 1, "no job 99");
	is_int(acct_max_job(ac), 7, "the highest job is 7");

	/* Tasks: a later try wins, an earlier or repeated one changes not. */
	k = task(5, 0, 1, 3);
	is_int(acct_task_put(ac, &k), 0, "task 0 try 1 failed");
	k = task(5, 0, 2, 0);
	is_int(acct_task_put(ac, &k), 0, "task 0 try 2 done");
	k = task(5, 0, 1, 3);
	is_int(acct_task_put(ac, &k), 0, "try 1 again (late datagram)");
	k = task(5, 1, 1, 0);
	is_int(acct_task_put(ac, &k), 0, "task 1");
	is_int(acct_task_put(ac, &k), 0, "task 1 again");
	k = task(98, 0, 1, 0);
	is_int(acct_task_put(ac, &k), 1, "no task of a job with no row");
	is_int(acct_tasks(ac, 5, 0, trows, 8, &n, &more), 0, "tasks of 5");
	is_int(n, 2, "two task rows: the same record twice counts once");
	is_int(trows[0].at_tries, 2, "task 0: the later try");
	is_int(trows[0].at_exit, 0, "task 0: its exit");
	is_int(trows[0].at_maxrss_kb, 2048, "task 0: its peak memory");
	is_int(trows[1].at_cpu_ms, ACCT_UNKNOWN, "task 1: CPU not known");
	is_str(trows[1].at_node, "127.0.0.3", "task 1: its node");
	is_int(acct_tasks(ac, 5, 1, trows, 1, &n, &more), 0, "from task 1");
	ok(n == 1 && trows[0].at_task == 1 && !more, "one row, the last");
	is_int(acct_tasks(ac, 5, 0, trows, 1, &n, &more), 0, "a page of 1");
	ok(n == 1 && more, "... says more follow");

	/* The end: the job's own record, then the broker's marks. */
	memset(&j, 0, sizeof(j));
	j.aj_job = 5;
	j.aj_state = ACCT_ST_FAILED;
	j.aj_has_exit = 1;
	j.aj_exit = 1;
	j.aj_tasks = 2;
	j.aj_failed = 1;
	j.aj_start_ms = 100500;
	j.aj_end_ms = 150000;
	is_int(acct_job_end(ac, &j), 0, "job 5 ends");
	is_int(acct_job_mark(ac, 5, ACCT_ST_ENDED, 160000), 0, "marked");
	is_int(acct_job_get(ac, 5, &j), 0, "job 5 read");
	ok(j.aj_state == ACCT_ST_FAILED && j.aj_end_ms == 150000 &&
	    j.aj_has_exit && j.aj_exit == 1 && j.aj_tasks == 2 &&
	    j.aj_failed == 1 && j.aj_start_ms == 100500,
	    "the job's own account stands over the broker's mark");
	is_int(acct_job_mark(ac, 6, ACCT_ST_ENDED, 250000), 0, "6 ends");
	is_int(acct_job_mark(ac, 6, ACCT_ST_KILLED, 250001), 0, "6 killed");
	is_int(acct_job_get(ac, 6, &j), 0, "job 6 read");
	ok(j.aj_state == ACCT_ST_KILLED && !j.aj_has_exit,
	    "killed outranks a bare end");
	is_int(acct_job_mark(ac, 99, ACCT_ST_LOST, 1), 1, "no job 99 to mark");
	memset(&j, 0, sizeof(j));
	j.aj_job = 99;
	is_int(acct_job_end(ac, &j), 1, "no job 99 to end");

	/* Filters. */
	memset(&f, 0, sizeof(f));
	is_int(acct_jobs(ac, &f, 0, rows, 8, &n, &more), 0, "all jobs");
	ok(n == 3 && rows[0].aj_job == 5 && rows[2].aj_job == 7 && !more,
	    "three, lowest first");
	f.af_user = "ann";
	is_int(acct_jobs(ac, &f, 0, rows, 8, &n, &more), 0, "ann's");
	ok(n == 2 && rows[0].aj_job == 5 && rows[1].aj_job == 7, "5 and 7");
	is_int(acct_jobs(ac, &f, 5, rows, 8, &n, &more), 0, "ann's after 5");
	ok(n == 1 && rows[0].aj_job == 7, "7 alone");
	f.af_user = "bob";
	f.af_job = 5;
	is_int(acct_jobs(ac, &f, 0, rows, 8, &n, &more), 0, "bob's job 5");
	is_int(n, 0, "none: 5 is ann's");
	memset(&f, 0, sizeof(f));
	f.af_since_ms = 240000;
	is_int(acct_jobs(ac, &f, 0, rows, 8, &n, &more), 0, "since 240 s");
	ok(n == 2 && rows[0].aj_job == 6 && rows[1].aj_job == 7,
	    "6 ended since, 7 runs");
	memset(&f, 0, sizeof(f));
	is_int(acct_jobs(ac, &f, 0, rows, 2, &n, &more), 0, "a page of 2");
	ok(n == 2 && more, "... more follow");
	memset(&f, 0, sizeof(f));
	f.af_state = ACCT_ST_RUNNING;
	is_int(acct_jobs(ac, &f, 0, rows, 8, &n, &more), 0, "running ones");
	ok(n == 1 && rows[0].aj_job == 7, "7 alone runs");

	/* Lost, then registered again: it runs again; others stay. */
	is_int(acct_job_mark(ac, 7, ACCT_ST_LOST, 310000), 0, "7 lost");
	job(ac, 7, "ann", 1);
	is_int(acct_job_get(ac, 7, &j), 0, "job 7 read");
	ok(j.aj_state == ACCT_ST_RUNNING && j.aj_end_ms == 0 &&
	    j.aj_submit_ms == 300000, "a lost job registered again runs");
	job(ac, 6, "bob", 1);
	is_int(acct_job_get(ac, 6, &j), 0, "job 6 read");
	ok(j.aj_state == ACCT_ST_KILLED, "a killed one stays killed");

	/* Retention: by age, then by count. */
	job(ac, 8, "ann", 400000);
	is_int(acct_job_mark(ac, 8, ACCT_ST_ENDED, 400000), 0, "8 ends");
	/* A day and 200 s after the epoch: what ended before 200 s goes. */
	is_int(acct_prune(ac, 86400000 + 200000, 1, 0), 1,
	    "one job ended over a day ago");
	is_int(acct_job_get(ac, 5, &j), 1, "job 5 forgotten");
	is_int(acct_tasks(ac, 5, 0, trows, 8, &n, &more), 0, "its tasks");
	is_int(n, 0, "... forgotten with it");
	is_int(acct_prune(ac, 86400000 + 200000, 1, 2), 1,
	    "over 2 jobs: the oldest ended one goes");
	is_int(acct_job_get(ac, 6, &j), 1, "job 6 forgotten");
	is_int(acct_job_get(ac, 7, &j), 0, "job 7 (running) kept");
	is_int(acct_prune(ac, 86400000 + 200000, 1, 2), 0, "nothing more");
	is_int(acct_max_job(ac), 8, "the highest job is 8");
	acct_close(ac);

	/* Reopened: everything is still there. */
	ac = acct_open(path, err, sizeof(err));
	if (!ok(ac != NULL, "reopens"))
		printf("# %s\n", err);
	if (ac == NULL)
		return 1;
	is_int(acct_job_get(ac, 8, &j), 0, "job 8 after a reopen");
	is_int(acct_max_job(ac), 8, "the highest job still 8");
	acct_close(ac);

	/* A newer schema is refused and left as it is. */
	ok(sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) ==
	    SQLITE_OK, "the schema made newer");
	sqlite3_close(db);
	ac = acct_open(path, err, sizeof(err));
	ok(ac == NULL && strstr(err, "newer") != NULL,
	    "a newer schema is refused: %s", err);
	acct_close(ac);
	snprintf(path, sizeof(path), "%s/not-a-folder/x.db", dir);
	ok(acct_open(path, err, sizeof(err)) == NULL, "a bad path is refused");

	snprintf(err, sizeof(err), "rm -rf '%s'", dir);
	if (system(err) != 0)
		printf("# could not remove %s\n", dir);
	return tap_done();
}
