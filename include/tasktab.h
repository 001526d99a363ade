/*
 * tasktab — the task table of a job manager (CilkJobManager(8)), pure
 * logic without I/O: which task numbers exist, which are free, which run
 * where, how many attempts and failures each had, and the nodes given up.
 *
 * With a fixed number of tasks (CilkRun --tasks N) the tasks are 0..N-1,
 * each run until it exits 0 once: an instance that fails runs again
 * until it has failed `retries` times, then the task is given up; one
 * its node stopped, or one handed out and never heard of again, runs
 * again with the same number and the next attempt.  Without a number
 * (open-ended) every instance gets a new task number, and a node runs
 * the program once.
 *
 * A node manager runs at most one worker of a job at a time and asks
 * for the job's description only while it holds none of the job's
 * (CilkNodeManager(8)): a request from a node that holds a task is a
 * repeat whose answer was lost, or the earlier worker never started,
 * and gets the same task and attempt.
 */
#ifndef CILKNOW_TASKTAB_H
#define CILKNOW_TASKTAB_H

#include <stddef.h>
#include <stdint.h>

#define TT_TASKS_MAX		65536
#define TT_NODE_MAX		64	/* PROTO_HOST_MAX */
#define TT_GONE_MAX		256	/* nodes given up */
#define TT_RETRIES_DEFAULT	3

enum tt_state {
	TT_PENDING = 0,		/* to run (again) */
	TT_RUNNING,		/* handed to a node */
	TT_DONE,		/* exited 0 */
	TT_FAILED,		/* open-ended: exited otherwise */
	TT_GIVEN_UP,		/* failed `retries` times */
	TT_STOPPED,		/* open-ended: stopped by its node */
	TT_LOST,		/* open-ended: never heard of, or never ran */
	TT_STATE_MAX
};

struct tt_task {
	enum tt_state	 tk_state;
	uint32_t	 tk_attempts;	/* hand-outs, the latest included */
	uint32_t	 tk_failures;
	char		 tk_node[TT_NODE_MAX];	/* of the latest hand-out */
	double		 tk_seen;	/* hand-out or the latest word of it */
	int32_t		 tk_status;	/* of the latest exit */
	uint64_t	 tk_fetch;	/* the node's fetch of the hand-out */
	int		 tk_heard;	/* its node spoke of it since */
};

struct tasktab {
	uint32_t	 tt_want;	/* tasks 0..want-1; 0: open-ended */
	uint32_t	 tt_retries;	/* failures before a task is given up */
	uint32_t	 tt_n;		/* task numbers in use */
	struct tt_task	*tt_t;		/* TT_TASKS_MAX of them */
	uint32_t	 tt_done, tt_failures, tt_given_up, tt_stopped;
	uint32_t	 tt_lost, tt_nostart;
	uint32_t	 tt_ran;	/* instances that ran, however they ended */
	char		 tt_gone[TT_GONE_MAX][TT_NODE_MAX];
	uint32_t	 tt_ngone;
};

/* 0, or -1 (ENOMEM, EINVAL for want or retries out of range). */
int	tt_init(struct tasktab *, uint32_t want, uint32_t retries);
void	tt_free(struct tasktab *);

enum tt_take {
	TT_TAKE_NEW,		/* a new hand-out (attempt rose) */
	TT_TAKE_AGAIN,		/* the node's task, asked for again */
	TT_TAKE_NONE,		/* nothing for it to run now */
	TT_TAKE_GONE,		/* the node was given up */
	TT_TAKE_FULL,		/* out of task numbers */
	TT_TAKE_RESTARTED	/* the node's task, asked for afresh: its
				   attempt was lost, the task starts again */
};

/* A node asks for work: its task in *task. */
enum tt_take tt_take(struct tasktab *, const char *node, double now,
	    uint32_t *task);
/*
 * As tt_take, knowing the node's fetch (DESC_REQ): a retry of a lost
 * answer repeats it, a node that restarted asks with another.  0: not
 * known (then as tt_take).
 */
enum tt_take tt_take_fetch(struct tasktab *, const char *node,
	    uint64_t fetch, double now, uint32_t *task);

enum tt_end {
	TT_END_STALE,		/* not the node's task (any more): ignore */
	TT_END_DONE,
	TT_END_RETRY,		/* failed; runs again */
	TT_END_FAILED,		/* open-ended: failed, once and for all */
	TT_END_GIVEN_UP,	/* failed `retries` times */
	TT_END_STOPPED,		/* its node stopped it (SIGQUIT, SIGKILL) */
	TT_END_NOSTART		/* could not start on the node: given up */
};

/*
 * The instance of task on node ended with status (>= 0 exit code, < 0
 * minus the signal), or, with nostart, never ran.
 */
enum tt_end tt_exit(struct tasktab *, uint32_t task, const char *node,
	    int32_t status, int nostart);

/*
 * The node withdrew the hand-out of its fetch before it started it (its
 * owner came back): taken back at once, as tt_reclaim would later.
 * Returns the task, or -1 if none of node's running tasks has that
 * fetch (fetch 0 matches none).
 */
int64_t	tt_withdraw(struct tasktab *, const char *node, uint64_t fetch);

/* 1 if the latest hand-out of task went to node. */
int	tt_holds(const struct tasktab *, uint32_t task, const char *node);
/* Word of the task's instance from its node: it is alive. */
void	tt_seen(struct tasktab *, uint32_t task, const char *node, double);
/*
 * Tasks handed out and not heard of for more than after seconds are
 * taken back: pending again, or lost when open-ended.  cb (if not NULL)
 * is called for each; returns how many.
 */
uint32_t tt_reclaim(struct tasktab *, double now, double after,
	    void (*cb)(uint32_t task, const struct tt_task *, void *),
	    void *arg);

uint32_t tt_running(const struct tasktab *);
/* Tasks neither done nor given up; 0 when open-ended. */
uint32_t tt_left(const struct tasktab *);
/* Tasks no node runs and that are not done or given up: to hand out. */
uint32_t tt_waiting(const struct tasktab *);
/* 1 when every task is done or given up (never when open-ended). */
int	tt_over(const struct tasktab *);
/* 1 if node, or the node it is a processor of (HOST of HOST/i), is given up. */
int	tt_node_gone(const struct tasktab *, const char *node);
/*
 * Gives a whole node up (host: its name without "/i"): none of its
 * processors is given a task of the job again (a node-side failure,
 * nodefault.h).
 */
void	tt_give_host_up(struct tasktab *, const char *host);
/* "3, 5, 9" of the tasks given up, cut to fit; returns buf. */
char	*tt_given_up_list(const struct tasktab *, char *buf, size_t);

/*
 * What a node's report of a launch failure means to the user: "working
 * folder CWD does not exist on node N", "program P not found on node
 * N", else "cannot start on node N: RAW".  raw is the launch pad's
 * "WHAT: strerror" (CilkLaunchPad(8)).
 */
void	tt_nostart_text(const char *cwd, const char *node, const char *raw,
	    char *buf, size_t bufsz);

#endif
