/*
 * proto_acct — the accounting messages (cilknow-protocol(7)): a job
 * manager's records of its tasks and of its end (ACCT, answered with
 * ACCT_ACK), what CilkHist(1) asks (ACCT_REQ, answered with ACCT_ROWS,
 * a page at a time), and a job manager held by --after asking how a job
 * ended (AFTER_REQ, answered with ACCT_ACK).  All travel under the user
 * scheme.  Decoders check every length and range and refuse leftover
 * bytes.
 *
 * ACCT: u8 kind, u32 job, u64 boot, u32 task, u32 tries, str node,
 *	u8 state, u8 has_exit, u32 exit (two's complement), u32 tasks,
 *	u32 failed, u64 start_ms, u64 end_ms, u64 cpu_ms, u64 maxrss_kb
 *	(all ones: not measured)
 * ACCT_ACK: u8 kind, u32 job, u32 task, u32 tries, u8 state
 * ACCT_REQ: u8 what, u32 job (0: any), str user ("": any), u64 since_ms,
 *	u32 from, u8 has_cookie, [16 cookie]
 * ACCT_ROWS: u8 what, u32 next (0: the last page), u16 n, n rows
 * AFTER_REQ: u32 job
 */
#ifndef CILKNOW_PROTO_ACCT_H
#define CILKNOW_PROTO_ACCT_H

#include <stddef.h>
#include <stdint.h>

#include "acct.h"
#include "proto.h"

#define PROTO_ACCT_JOB_ROWS	32	/* job rows in one ACCT_ROWS */
#define PROTO_ACCT_TASK_ROWS	128	/* task rows in one ACCT_ROWS */
#define PROTO_ACCT_NONE		UINT64_MAX	/* cpu_ms, maxrss_kb */

enum proto_acct_kind {
	PROTO_AK_UNDEF = 0,
	PROTO_AK_JOB,		/* the job's end */
	PROTO_AK_TASK,		/* a try of a task ended */
	PROTO_AK_AFTER,		/* ACCT_ACK only: AFTER_REQ's answer */
	PROTO_AK_MAX
};

/* How the job an AFTER_REQ names stands (ACCT_ACK's state). */
enum proto_after {
	PROTO_AFTER_UNDEF = 0,
	PROTO_AFTER_UNKNOWN,	/* no such job, now or in the history */
	PROTO_AFTER_WAIT,	/* it runs, or its end is not known yet */
	PROTO_AFTER_OK,		/* it ended with exit 0 */
	PROTO_AFTER_FAILED,	/* it ended otherwise */
	PROTO_AFTER_MAX
};

/* ACCT_REQ, ACCT_ROWS: what is listed. */
enum proto_acct_what {
	PROTO_AW_UNDEF = 0,
	PROTO_AW_JOBS,		/* jobs: from = list those above this id */
	PROTO_AW_TASKS,		/* one job's tasks: from = first task */
	PROTO_AW_MAX
};

struct proto_acct {
	uint8_t		ac_kind;	/* PROTO_AK_JOB or _TASK */
	uint64_t	ac_boot;	/* the job manager's, as registered */
	struct acct_job	ac_job;		/* JOB: job, state, exit, tasks,
					   failed, start, end */
	struct acct_task ac_task;	/* TASK: all but job (ac_job's) */
};

struct proto_acct_ack {
	uint8_t		aa_kind;
	uint32_t	aa_job;
	uint32_t	aa_task;
	uint32_t	aa_tries;
	uint8_t		aa_state;	/* AFTER: enum proto_after */
};

struct proto_acct_req {
	uint8_t		aq_what;
	uint32_t	aq_job;		/* TASKS: not 0 */
	char		aq_user[MSG_NAME_MAX + 1];
	uint64_t	aq_since_ms;
	uint32_t	aq_from;
	uint8_t		aq_has_cookie;
	uint8_t		aq_cookie[PROTO_COOKIE_LEN];
};

struct proto_acct_rows {
	uint8_t		 ar_what;
	uint32_t	 ar_next;
	uint16_t	 ar_n;
	struct acct_job	 ar_jobs[PROTO_ACCT_JOB_ROWS];
	struct acct_task ar_tasks[PROTO_ACCT_TASK_ROWS];
};

/*
 * A figure of an EXIT record's usage (proto.h) for a task record:
 * ACCT_UNKNOWN for PROTO_USAGE_NONE, else the value held to max (the
 * node's word, for display only: never more than that).
 */
int64_t	proto_acct_usage(uint64_t v, uint64_t max);

/* Encoders: the length written, or 0 if it did not fit or is invalid. */
size_t	proto_acct_enc(const struct proto_acct *, uint8_t *, size_t);
int	proto_acct_dec(struct proto_acct *, const uint8_t *, size_t);
size_t	proto_acct_ack_enc(const struct proto_acct_ack *, uint8_t *, size_t);
int	proto_acct_ack_dec(struct proto_acct_ack *, const uint8_t *, size_t);
size_t	proto_acct_req_enc(const struct proto_acct_req *, uint8_t *, size_t);
int	proto_acct_req_dec(struct proto_acct_req *, const uint8_t *, size_t);
size_t	proto_acct_rows_enc(const struct proto_acct_rows *, uint8_t *,
	    size_t);
int	proto_acct_rows_dec(struct proto_acct_rows *, const uint8_t *,
	    size_t);

#endif
