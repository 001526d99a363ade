/* CilkJobManager's parts: the job, its tasks, the relay of output. */
#ifndef CILKJOBMANAGER_H
#define CILKJOBMANAGER_H

#include "dctx.h"
#include "linebuf.h"
#include "nodefault.h"
#include "outpat.h"
#include "proto.h"
#include "tasktab.h"

#define TASKS_MAX	TT_TASKS_MAX
#define QUIET_END	1.0	/* seconds without a new task before the end */
#define RECLAIM_SLACK	30.0	/* a task's silence beyond 3 intervals: a
				   node manager's restart fits in it */
#define ATTEMPT_ENV_MAX	32	/* "CILKNOW_ATTEMPT=N" */
#include "proto_kill.h"

#define JOBMGR_EXIT_KILLED PROTO_EXIT_KILLED	/* proto_kill.h */

struct outfile;

/* The relay of the latest instance of a task (tasktab.h: the rest). */
struct task {
	uint64_t	 t_off[PROTO_STREAM_MAX];	/* bytes received */
	struct linebuf	 t_lb[PROTO_STREAM_MAX];	/* partial line */
	struct outfile	*t_file[PROTO_STREAM_MAX];	/* -O, -E */
	double		 t_start, t_end;	/* hand-out, exit */
	int		 t_exited;	/* tk_status is its exit's */
};

struct jobmgr {
	struct dctx	 j_dc;
	struct msg_addr	 j_broker;
	uint32_t	 j_job;		/* 0 until the broker answers */
	uint64_t	 j_boot;
	double		 j_interval;
	double		 j_timeout;	/* waiting for the broker */
	double		 j_started;
	uint64_t	 j_start_ms;
	uint32_t	 j_max, j_pri;
	long		 j_want_tasks;	/* --tasks N, 0: no limit */
	long		 j_retries;	/* -R: failures before giving up */
	double		 j_time_limit;	/* -t, 0: none */
	char		 j_command[PROTO_COMMAND_MAX];
	struct proto_desc j_desc;	/* template; task filled per worker */
	uint16_t	 j_envc;	/* the user's; CILKNOW_ATTEMPT after */
	char		 j_attempt_env[ATTEMPT_ENV_MAX];
	struct task	*j_tasks;
	struct tasktab	 j_tt;
	struct nf_said	 j_nf_said;	/* node-side failures said */
	int		 j_reg_sent;	/* a registration went out */
	int		 j_has_bcookie;	/* the broker's cookie for us */
	uint8_t		 j_bcookie[PROTO_COOKIE_LEN];
	int		 j_bcookies;	/* cookies taken at once since an ACK */
	double		 j_last_activity;	/* a task started or ended */
	int		 j_ending;	/* unregistering */
	int		 j_exit;	/* how it ended */
	int		 j_unreg_tries;
	int		 j_watch;	/* -W: ends when stdin closes */
	uint32_t	 j_user_max;	/* -m, before the clearinghouse's */
	uint32_t	 j_after;	/* -A: held until it succeeded */
	uint16_t	 j_cpus;	/* -C: processors a worker takes, 0: 1 */
	uint32_t	 j_mem_mb;	/* -M: memory it needs, 0: any */
	char		 j_cpus_env[32], j_mem_env[32];	/* signed with it */
	struct jmacct	*j_acct;	/* acct.c: history records */
	int		 j_held;	/* after.c: --after holds the job */
	int		 j_after_answered;
	double		 j_after_asked;	/* the first ask, now_mono() */
	double		 j_after_poll;	/* seconds between asks */
	char		 j_line[64];	/* -W: a line being read */
	size_t		 j_linelen;
	struct jstage	*j_stage;	/* stage.c; NULL: nothing staged */
	uint8_t		 j_buf[MSG_PAYLOAD_MAX];
	/* output.c: --output, --error, --detach. */
	const char	*j_pattern[PROTO_STREAM_MAX];	/* or NULL */
	struct outfile	*j_files;	/* open ones, shared by path */
	struct outfile	*j_made;	/* created this job (not %t) */
	uint32_t	 j_out_errors;	/* files that failed us */
	int		 j_detach;	/* -D: CilkRun --detach */
	int		 j_detach_fd;	/* for the job id; -1: said */
	/* tasks.c: CilkPs -j. */
	void		*j_cookie;	/* struct cookie_key */
};

/* Watches the clearinghouse's pipe (-W); jobmgr_go() runs the job. */
void	jobmgr_start(struct jobmgr *);
/* Registers the job and lets it run (main, or --after's end). */
void	jobmgr_go(struct jobmgr *);
void	jobmgr_register(struct jobmgr *);
void	jobmgr_end(struct jobmgr *, int status, const char *why);
/* Leaving before the broker answered: withdraw what it may hold. */
void	jobmgr_withdraw(struct jobmgr *, int status);
const struct msg_handler *jobmgr_table(void);
/* An ERROR from the broker that is not about --after (after.c). */
void	jobmgr_on_error(struct jobmgr *, const struct proto_error *);
/* stage.c: --stage-in (-I) and --stage-out (-O). */
int	jobmgr_stage_opt(struct jobmgr *, int ch, const char *);
int	jobmgr_stage_prepare(struct jobmgr *);
void	jobmgr_on_stage_req(struct msg_ep *, const struct msg_in *, void *);
void	jobmgr_stage_output(struct jobmgr *, uint32_t task, const uint8_t *,
	    size_t);
void	jobmgr_stage_restart(struct jobmgr *, uint32_t task);
void	jobmgr_stage_task_end(struct jobmgr *, uint32_t task);
unsigned jobmgr_stage_failures(const struct jobmgr *);

/* output.c: where the workers' output goes. */
/* 0, or an exit code with why: a bad pattern (2), no folder for it (1). */
int	jobmgr_out_init(struct jobmgr *, char *why, size_t whylen);
/* A new attempt of task on node: what an earlier one left is let go. */
void	jobmgr_out_begin(struct jobmgr *, uint32_t task, const char *node);
/* Bytes of a stream of the task, from its current attempt. */
void	jobmgr_out_data(struct jobmgr *, uint32_t task, const char *node,
	    int stream, const uint8_t *, size_t);
/* The attempt ended (or was taken back): partial lines out, files shut. */
void	jobmgr_out_end(struct jobmgr *, uint32_t task, const char *node);
void	jobmgr_out_fini(struct jobmgr *);
/* detach.c, -D: fork; the parent waits for the job id and exits. */
int	jobmgr_detach_fork(struct jobmgr *);
/* -D: the job is registered; tell CilkRun and let go of the terminal. */
void	jobmgr_detached(struct jobmgr *);

/* tasks.c: the task table for CilkPs -j (TASKS_REQ). */
int	jobmgr_tasks_init(struct jobmgr *);
void	jobmgr_on_tasks_req(struct msg_ep *, const struct msg_in *, void *);

#endif
