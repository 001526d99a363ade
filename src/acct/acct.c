/* acct — the accounting database in SQLite (acct.h). */
#include "acct.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

struct acct {
	sqlite3		*ac_db;
	char		 ac_err[256];
};

static const char *const state_names[ACCT_ST_MAX] = {
	[ACCT_ST_UNDEF] = "?",
	[ACCT_ST_RUNNING] = "running",
	[ACCT_ST_COMPLETED] = "completed",
	[ACCT_ST_FAILED] = "failed",
	[ACCT_ST_KILLED] = "killed",
	[ACCT_ST_TIMEOUT] = "timeout",
	[ACCT_ST_INTERRUPTED] = "interrupted",
	[ACCT_ST_LOST] = "lost",
	[ACCT_ST_ENDED] = "ended",
	[ACCT_ST_RETRIED] = "retried",
};

const char *
acct_state_name(uint8_t s)
{
	return s < ACCT_ST_MAX && state_names[s] != NULL ? state_names[s] :
	    "?";
}

/* Version 1: the first. */
static const char schema_v1[] =
    "CREATE TABLE jobs ("
    " job INTEGER PRIMARY KEY,"
    " user TEXT NOT NULL,"
    " host TEXT NOT NULL,"
    " command TEXT NOT NULL,"
    " submit_ms INTEGER NOT NULL,"
    " start_ms INTEGER NOT NULL DEFAULT 0,"
    " end_ms INTEGER NOT NULL DEFAULT 0,"
    " state INTEGER NOT NULL,"
    " exit INTEGER,"
    " tasks INTEGER NOT NULL DEFAULT 0,"
    " failed INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX jobs_user ON jobs (user, job);"
    "CREATE TABLE tasks ("
    " job INTEGER NOT NULL,"
    " task INTEGER NOT NULL,"
    " node TEXT NOT NULL,"
    " tries INTEGER NOT NULL,"
    " state INTEGER NOT NULL,"
    " exit INTEGER,"
    " start_ms INTEGER NOT NULL DEFAULT 0,"
    " end_ms INTEGER NOT NULL DEFAULT 0,"
    " cpu_ms INTEGER,"
    " maxrss_kb INTEGER,"
    " PRIMARY KEY (job, task)) WITHOUT ROWID;"
    "PRAGMA user_version = 1;";

static int
fail(struct acct *ac, const char *what)
{
	snprintf(ac->ac_err, sizeof(ac->ac_err), "%s: %s", what,
	    sqlite3_errmsg(ac->ac_db));
	return -1;
}

const char *
acct_error(const struct acct *ac)
{
	return ac->ac_err;
}

static int
exec(struct acct *ac, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(ac->ac_db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(ac->ac_err, sizeof(ac->ac_err), "%s", msg != NULL ?
		    msg : sqlite3_errmsg(ac->ac_db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int
user_version(struct acct *ac, int *v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(ac->ac_db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK)
		return fail(ac, "user_version");
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(ac, "user_version");
}

struct acct *
acct_open(const char *path, char *err, size_t errlen)
{
	struct acct *ac;
	int v, fd;

	if ((ac = calloc(1, sizeof(*ac))) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* Made with our mode first: SQLite would take the umask's. */
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0640)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(ac);
		return NULL;
	}
	close(fd);
	if (sqlite3_open_v2(path, &ac->ac_db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, ac->ac_db != NULL ?
		    sqlite3_errmsg(ac->ac_db) : "out of memory");
		goto bad;
	}
	(void)sqlite3_busy_timeout(ac->ac_db, 1000);
	if (user_version(ac, &v) == -1)
		goto bad_ac;
	if (v > ACCT_SCHEMA) {
		snprintf(err, errlen, "%s: schema version %d is newer than "
		    "this program's (%d); keep the newer program or move the "
		    "file away", path, v, ACCT_SCHEMA);
		goto bad;
	}
	/* Temporary tables in memory: the broker's engine sees no /tmp. */
	if (exec(ac, "PRAGMA journal_mode = WAL") == -1 ||
	    exec(ac, "PRAGMA synchronous = NORMAL") == -1 ||
	    exec(ac, "PRAGMA temp_store = MEMORY") == -1)
		goto bad_ac;
	if (v == 0 && (exec(ac, "BEGIN IMMEDIATE") == -1 ||
	    exec(ac, schema_v1) == -1 || exec(ac, "COMMIT") == -1)) {
		(void)exec(ac, "ROLLBACK");
		goto bad_ac;
	}
	return ac;
 bad_ac:
	snprintf(err, errlen, "%s: %s", path, ac->ac_err);
 bad:
	sqlite3_close(ac->ac_db);
	free(ac);
	return NULL;
}

void
acct_close(struct acct *ac)
{
	if (ac == NULL)
		return;
	if (sqlite3_close(ac->ac_db) != SQLITE_OK)
		(void)sqlite3_close_v2(ac->ac_db);
	free(ac);
}

static int
prepare(struct acct *ac, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(ac->ac_db, sql, -1, st, NULL) != SQLITE_OK)
		return fail(ac, "prepare");
	return 0;
}

/* Runs a statement without rows: 0, or -1. */
static int
done(struct acct *ac, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE) {
		fail(ac, what);
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static void
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	(void)sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void
bind_u64(sqlite3_stmt *st, int i, uint64_t v)
{
	/* Milliseconds of realtime fit in 63 bits for long enough. */
	(void)sqlite3_bind_int64(st, i, (sqlite3_int64)(v & INT64_MAX));
}

static int
job_exists(struct acct *ac, uint32_t job)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(ac, "SELECT 1 FROM jobs WHERE job = ?", &st) == -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, job);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : fail(ac, "job");
}

int
acct_job_begin(struct acct *ac, const struct acct_job *j)
{
	sqlite3_stmt *st;

	if (prepare(ac, "INSERT INTO jobs (job, user, host, command, "
	    "submit_ms, state) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job) DO "
	    "UPDATE SET state = excluded.state, end_ms = 0 WHERE "
	    "jobs.state = ? AND jobs.user = excluded.user", &st) == -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, j->aj_job);
	bind_text(st, 2, j->aj_user);
	bind_text(st, 3, j->aj_host);
	bind_text(st, 4, j->aj_command);
	bind_u64(st, 5, j->aj_submit_ms);
	(void)sqlite3_bind_int(st, 6, ACCT_ST_RUNNING);
	(void)sqlite3_bind_int(st, 7, ACCT_ST_LOST);
	return done(ac, st, "job begin");
}

int
acct_job_end(struct acct *ac, const struct acct_job *j)
{
	sqlite3_stmt *st;
	int e;

	if ((e = job_exists(ac, j->aj_job)) != 1)
		return e == 0 ? 1 : -1;
	if (prepare(ac, "UPDATE jobs SET state = ?, exit = ?, tasks = ?, "
	    "failed = ?, start_ms = CASE WHEN ? > 0 THEN ? ELSE start_ms END, "
	    "end_ms = ? WHERE job = ?", &st) == -1)
		return -1;
	(void)sqlite3_bind_int(st, 1, j->aj_state);
	if (j->aj_has_exit)
		(void)sqlite3_bind_int(st, 2, j->aj_exit);
	else
		(void)sqlite3_bind_null(st, 2);
	(void)sqlite3_bind_int64(st, 3, j->aj_tasks);
	(void)sqlite3_bind_int64(st, 4, j->aj_failed);
	bind_u64(st, 5, j->aj_start_ms);
	bind_u64(st, 6, j->aj_start_ms);
	bind_u64(st, 7, j->aj_end_ms);
	(void)sqlite3_bind_int64(st, 8, j->aj_job);
	return done(ac, st, "job end");
}

int
acct_job_mark(struct acct *ac, uint32_t job, uint8_t state,
    uint64_t end_ms)
{
	sqlite3_stmt *st;
	int e;

	if ((e = job_exists(ac, job)) != 1)
		return e == 0 ? 1 : -1;
	if (prepare(ac, "UPDATE jobs SET state = ?, end_ms = ? WHERE job = ? "
	    "AND (end_ms = 0 OR state = ?)", &st) == -1)
		return -1;
	(void)sqlite3_bind_int(st, 1, state);
	bind_u64(st, 2, end_ms);
	(void)sqlite3_bind_int64(st, 3, job);
	/* KILLED outranks the bare end an unregistration wrote. */
	(void)sqlite3_bind_int(st, 4, state == ACCT_ST_KILLED ?
	    ACCT_ST_ENDED : ACCT_ST_UNDEF);
	return done(ac, st, "job mark");
}

static void
bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		(void)sqlite3_bind_null(st, i);
	else
		(void)sqlite3_bind_int64(st, i, v);
}

int
acct_task_put(struct acct *ac, const struct acct_task *t)
{
	sqlite3_stmt *st;
	int e;

	if ((e = job_exists(ac, t->at_job)) != 1)
		return e == 0 ? 1 : -1;
	if (prepare(ac, "INSERT INTO tasks (job, task, node, tries, state, "
	    "exit, start_ms, end_ms, cpu_ms, maxrss_kb) VALUES (?, ?, ?, ?, "
	    "?, ?, ?, ?, ?, ?) ON CONFLICT (job, task) DO UPDATE SET "
	    "node = excluded.node, tries = excluded.tries, state = "
	    "excluded.state, exit = excluded.exit, start_ms = "
	    "excluded.start_ms, end_ms = excluded.end_ms, cpu_ms = "
	    "excluded.cpu_ms, maxrss_kb = excluded.maxrss_kb "
	    "WHERE excluded.tries >= tasks.tries", &st) == -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, t->at_job);
	(void)sqlite3_bind_int64(st, 2, t->at_task);
	bind_text(st, 3, t->at_node);
	(void)sqlite3_bind_int64(st, 4, t->at_tries);
	(void)sqlite3_bind_int(st, 5, t->at_state);
	(void)sqlite3_bind_int(st, 6, t->at_exit);
	bind_u64(st, 7, t->at_start_ms);
	bind_u64(st, 8, t->at_end_ms);
	bind_opt(st, 9, t->at_cpu_ms);
	bind_opt(st, 10, t->at_maxrss_kb);
	return done(ac, st, "task");
}

static uint64_t
col_u64(sqlite3_stmt *st, int i)
{
	sqlite3_int64 v = sqlite3_column_int64(st, i);

	return v < 0 ? 0 : (uint64_t)v;
}

static void
col_text(sqlite3_stmt *st, int i, char *buf, size_t sz)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	strlcpy(buf, s != NULL ? (const char *)s : "", sz);
}

#define JOB_COLS "job, user, host, command, submit_ms, start_ms, end_ms, " \
	"state, exit, tasks, failed"

static void
job_row(sqlite3_stmt *st, struct acct_job *j)
{
	memset(j, 0, sizeof(*j));
	j->aj_job = (uint32_t)sqlite3_column_int64(st, 0);
	col_text(st, 1, j->aj_user, sizeof(j->aj_user));
	col_text(st, 2, j->aj_host, sizeof(j->aj_host));
	col_text(st, 3, j->aj_command, sizeof(j->aj_command));
	j->aj_submit_ms = col_u64(st, 4);
	j->aj_start_ms = col_u64(st, 5);
	j->aj_end_ms = col_u64(st, 6);
	j->aj_state = (uint8_t)sqlite3_column_int(st, 7);
	if (sqlite3_column_type(st, 8) != SQLITE_NULL) {
		j->aj_has_exit = 1;
		j->aj_exit = sqlite3_column_int(st, 8);
	}
	j->aj_tasks = (uint32_t)sqlite3_column_int64(st, 9);
	j->aj_failed = (uint32_t)sqlite3_column_int64(st, 10);
}

int
acct_job_get(struct acct *ac, uint32_t job, struct acct_job *j)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(ac, "SELECT " JOB_COLS " FROM jobs WHERE job = ?", &st) ==
	    -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, job);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		job_row(st, j);
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : fail(ac, "job");
}

int
acct_jobs(struct acct *ac, const struct acct_filter *f, uint32_t after,
    struct acct_job *rows, uint32_t max, uint32_t *n, int *more)
{
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	*more = 0;
	if (prepare(ac, "SELECT " JOB_COLS " FROM jobs WHERE job > ? AND "
	    "(? IS NULL OR user = ?) AND (? = 0 OR job = ?) AND "
	    "(? = 0 OR submit_ms >= ? OR end_ms >= ? OR end_ms = 0) AND "
	    "(? = 0 OR state = ?) ORDER BY job LIMIT ?", &st) == -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, after);
	if (f->af_user != NULL) {
		bind_text(st, 2, f->af_user);
		bind_text(st, 3, f->af_user);
	}
	(void)sqlite3_bind_int64(st, 4, f->af_job);
	(void)sqlite3_bind_int64(st, 5, f->af_job);
	bind_u64(st, 6, f->af_since_ms);
	bind_u64(st, 7, f->af_since_ms);
	bind_u64(st, 8, f->af_since_ms);
	(void)sqlite3_bind_int(st, 9, f->af_state);
	(void)sqlite3_bind_int(st, 10, f->af_state);
	(void)sqlite3_bind_int64(st, 11, (sqlite3_int64)max + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == max) {
			*more = 1;
			break;
		}
		job_row(st, &rows[(*n)++]);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(ac, "jobs");
}

static int64_t
col_opt(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? ACCT_UNKNOWN :
	    sqlite3_column_int64(st, i);
}

int
acct_tasks(struct acct *ac, uint32_t job, uint32_t from,
    struct acct_task *rows, uint32_t max, uint32_t *n, int *more)
{
	struct acct_task *t;
	sqlite3_stmt *st;
	int rc;

	*n = 0;
	*more = 0;
	if (prepare(ac, "SELECT task, node, tries, state, exit, start_ms, "
	    "end_ms, cpu_ms, maxrss_kb FROM tasks WHERE job = ? AND task >= ? "
	    "ORDER BY task LIMIT ?", &st) == -1)
		return -1;
	(void)sqlite3_bind_int64(st, 1, job);
	(void)sqlite3_bind_int64(st, 2, from);
	(void)sqlite3_bind_int64(st, 3, (sqlite3_int64)max + 1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == max) {
			*more = 1;
			break;
		}
		t = &rows[(*n)++];
		memset(t, 0, sizeof(*t));
		t->at_job = job;
		t->at_task = (uint32_t)sqlite3_column_int64(st, 0);
		col_text(st, 1, t->at_node, sizeof(t->at_node));
		t->at_tries = (uint32_t)sqlite3_column_int64(st, 2);
		t->at_state = (uint8_t)sqlite3_column_int(st, 3);
		t->at_exit = sqlite3_column_int(st, 4);
		t->at_start_ms = col_u64(st, 5);
		t->at_end_ms = col_u64(st, 6);
		t->at_cpu_ms = col_opt(st, 7);
		t->at_maxrss_kb = col_opt(st, 8);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(ac, "tasks");
}

int
acct_prune(struct acct *ac, uint64_t now_ms, uint32_t days,
    uint32_t max_jobs)
{
	sqlite3_stmt *st;
	uint64_t cut = 0;
	int n = 0;

	if (days > 0 && now_ms > (uint64_t)days * 86400000)
		cut = now_ms - (uint64_t)days * 86400000;
	if (exec(ac, "BEGIN IMMEDIATE") == -1)
		return -1;
	if (prepare(ac, "DELETE FROM jobs WHERE (end_ms != 0 AND end_ms < ?) "
	    "OR (end_ms = 0 AND submit_ms < ?)", &st) == -1)
		goto bad;
	bind_u64(st, 1, cut);
	bind_u64(st, 2, cut);
	if (done(ac, st, "prune") == -1)
		goto bad;
	n += sqlite3_changes(ac->ac_db);
	if (max_jobs > 0) {
		if (prepare(ac, "DELETE FROM jobs WHERE job IN (SELECT "
		    "job FROM jobs WHERE end_ms != 0 ORDER BY job LIMIT "
		    "max(0, (SELECT count(*) FROM jobs) - ?))", &st) == -1)
			goto bad;
		(void)sqlite3_bind_int64(st, 1, max_jobs);
		if (done(ac, st, "prune") == -1)
			goto bad;
		n += sqlite3_changes(ac->ac_db);
	}
	if (n > 0 && exec(ac, "DELETE FROM tasks WHERE job NOT IN "
	    "(SELECT job FROM jobs)") == -1)
		goto bad;
	if (exec(ac, "COMMIT") == -1)
		goto bad;
	return n;
 bad:
	(void)exec(ac, "ROLLBACK");
	return -1;
}

uint32_t
acct_max_job(struct acct *ac)
{
	sqlite3_stmt *st;
	uint32_t v = 0;

	if (prepare(ac, "SELECT max(job) FROM jobs", &st) == -1)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}
