/* CilkJobManager's parts: the job, its tasks, the relay of output. */
#ifndef CILKJOBMANAGER_H
#define CILKJOBMANAGER_H

#include "dctx.h"
#include "proto.h"

#define TASKS_MAX	65536
#define QUIET_END	1.0	/* seconds without a new task before the end */
#include "proto_kill.h"

#define JOBMGR_EXIT_KILLED PROTO_EXIT_KILLED	/* proto_kill.h */

enum task_state {
	TASK_UNDEF = 0,
	TASK_RUNNING,		/* a node fetched it */
	TASK_DONE,		/* exited 0 */
	TASK_FAILED,		/* exited otherwise */
	TASK_PREEMPTED,		/* stopped by its node: owner back, ... */
	TASK_MAX
};

struct task {
	enum task_state	 t_state;
	char		 t_node[PROTO_HOST_MAX];
	uint64_t	 t_off[PROTO_STREAM_MAX];	/* bytes received */
	int		 t_midline[PROTO_STREAM_MAX];	/* no prefix due */
	int32_t		 t_status;
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
	double		 j_time_limit;	/* -t, 0: none */
	char		 j_command[PROTO_COMMAND_MAX];
	struct proto_desc j_desc;	/* template; task filled per worker */
	struct task	*j_tasks;
	uint32_t	 j_ntasks;
	long		 j_done, j_failed, j_preempted;
	double		 j_last_activity;	/* a task started or ended */
	int		 j_ending;	/* unregistering */
	int		 j_exit;	/* how it ended */
	int		 j_unreg_tries;
	int		 j_watch;	/* -W: ends when stdin closes */
	uint32_t	 j_user_max;	/* -m, before the clearinghouse's */
	char		 j_line[64];	/* -W: a line being read */
	size_t		 j_linelen;
	uint8_t		 j_buf[MSG_PAYLOAD_MAX];
};

void	jobmgr_start(struct jobmgr *);
void	jobmgr_register(struct jobmgr *);
void	jobmgr_end(struct jobmgr *, int status, const char *why);
const struct msg_handler *jobmgr_table(void);

#endif
