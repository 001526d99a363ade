/*
 * acct — the broker's accounting database (CilkHist(1)): finished and
 * running jobs and their tasks in one SQLite file, state_dir/broker/
 * history.db.  The schema carries its version (PRAGMA user_version); a
 * file of a newer version is refused, never changed.  WAL journal with
 * synchronous=NORMAL: a transaction that returned has reached the
 * operating system, so it survives kill -9 of the broker (a power cut
 * may take the last ones).  Rows are keyed by job id, which the broker
 * never gives twice (jobid.h; acct_max_job() covers a lost last_job).
 * Every call is one transaction; no I/O besides the file.
 */
#ifndef CILKNOW_ACCT_H
#define CILKNOW_ACCT_H

#include <stddef.h>
#include <stdint.h>

#include "msg_keys.h"

#define ACCT_SCHEMA	1	/* PRAGMA user_version this code writes */
#define ACCT_FILE	"history.db"
#define ACCT_USER_MAX	(MSG_NAME_MAX + 1)
#define ACCT_HOST_MAX	64
#define ACCT_COMMAND_MAX 256
#define ACCT_NODE_MAX	64
#define ACCT_UNKNOWN	(-1)	/* cpu_ms, maxrss_kb: not measured */

/* How a job or a task ended (or that it has not yet). */
enum acct_state {
	ACCT_ST_UNDEF = 0,
	ACCT_ST_RUNNING,	/* registered, not ended */
	ACCT_ST_COMPLETED,	/* exit 0 */
	ACCT_ST_FAILED,		/* exit not 0 (a task: given up) */
	ACCT_ST_KILLED,		/* by CilkKill */
	ACCT_ST_TIMEOUT,	/* its time limit */
	ACCT_ST_INTERRUPTED,	/* its job manager was interrupted */
	ACCT_ST_LOST,		/* its job manager fell silent */
	ACCT_ST_ENDED,		/* unregistered, no status heard (yet) */
	ACCT_ST_RETRIED,	/* a task: failed, runs again */
	ACCT_ST_MAX
};

struct acct_job {
	uint32_t	aj_job;
	char		aj_user[ACCT_USER_MAX];
	char		aj_host[ACCT_HOST_MAX];	/* the job manager's */
	char		aj_command[ACCT_COMMAND_MAX];
	uint64_t	aj_submit_ms;	/* realtime, ms */
	uint64_t	aj_start_ms;	/* first task started, 0: none */
	uint64_t	aj_end_ms;	/* 0: not ended */
	uint8_t		aj_state;	/* enum acct_state */
	uint8_t		aj_has_exit;
	int32_t		aj_exit;	/* >= 0 exit code, < 0 -signal */
	uint32_t	aj_tasks;	/* tasks that ran */
	uint32_t	aj_failed;	/* of them failed (given up) */
};

struct acct_task {
	uint32_t	at_job;
	uint32_t	at_task;
	char		at_node[ACCT_NODE_MAX];	/* of the latest try */
	uint32_t	at_tries;	/* starts, the latest included */
	uint8_t		at_state;	/* enum acct_state */
	int32_t		at_exit;	/* of the latest try */
	uint64_t	at_start_ms;	/* of the latest try, 0: unknown */
	uint64_t	at_end_ms;
	int64_t		at_cpu_ms;	/* ACCT_UNKNOWN if not measured */
	int64_t		at_maxrss_kb;	/* ACCT_UNKNOWN if not measured */
};

/* Which jobs acct_jobs() lists: every field 0 or NULL passes all. */
struct acct_filter {
	const char	*af_user;	/* this user's only */
	uint32_t	 af_job;	/* this job only */
	uint64_t	 af_since_ms;	/* submitted or ended since */
	uint8_t		 af_state;	/* in this state (enum acct_state) */
};

struct acct;

/*
 * Opens (creating it 0640) or upgrades the database at path.  NULL with
 * a message when it cannot be opened or read, or its schema is newer
 * than ACCT_SCHEMA.
 */
struct acct	*acct_open(const char *path, char *err, size_t errlen);
void		 acct_close(struct acct *);
/* The last error's text, for logs. */
const char	*acct_error(const struct acct *);

/*
 * A job registered: its row, if it has none yet; a row marked lost
 * runs again (its job manager came back).  0 or -1.
 */
int	acct_job_begin(struct acct *, const struct acct_job *);
/*
 * The job's own account of its end (state, exit, tasks, failed, start,
 * end; the rest is kept).  0, 1 if there is no such job, or -1.
 */
int	acct_job_end(struct acct *, const struct acct_job *);
/*
 * The broker saw the job leave (ENDED, KILLED, LOST): state and end,
 * unless the row has an end of its own already.  0, 1 no row, -1.
 */
int	acct_job_mark(struct acct *, uint32_t job, uint8_t state,
	    uint64_t end_ms);
/*
 * A task's try ended: its row, unless it holds a later try; the same
 * record twice counts once.  0, 1 no such job, or -1.
 */
int	acct_task_put(struct acct *, const struct acct_task *);

/* 0 with the row, 1 if none, -1. */
int	acct_job_get(struct acct *, uint32_t job, struct acct_job *);
/*
 * Up to max jobs passing f with ids above after, the lowest first, in
 * rows (*n of them); *more is 1 if more pass.  0 or -1.
 */
int	acct_jobs(struct acct *, const struct acct_filter *f, uint32_t after,
	    struct acct_job *rows, uint32_t max, uint32_t *n, int *more);
/* The same for the tasks of job numbered from on. */
int	acct_tasks(struct acct *, uint32_t job, uint32_t from,
	    struct acct_task *rows, uint32_t max, uint32_t *n, int *more);

/*
 * Retention: forgets jobs (and their tasks) that ended more than days
 * ago, or were submitted more than days ago and never ended, then the
 * oldest ended ones beyond max_jobs (0: no cap).  The count forgotten,
 * or -1.
 */
int	acct_prune(struct acct *, uint64_t now_ms, uint32_t days,
	    uint32_t max_jobs);
/* The highest job id in the database, 0 if none (or on error). */
uint32_t acct_max_job(struct acct *);

/* "running", "completed", ...; "?" out of range. */
const char *acct_state_name(uint8_t);

#endif
