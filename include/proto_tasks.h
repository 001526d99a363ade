/*
 * proto_tasks — a job's task table, as CilkPs -j asks its job manager
 * for it (cilknow-protocol(7)).  TASKS_REQ (tool -> job manager, user
 * scheme: signed by the asking user's key or munge) asks for the rows
 * from a task number on; TASKS (job manager -> tool, signed by the
 * job's user) answers with the job's counts and up to
 * PROTO_TASKS_ROWS rows, and where the next page starts (0: the last).
 * The job manager answers its own user and administrators only, and a
 * page only to an asker that echoed its cookie (PROTO_H_COOKIE), so a
 * forged source address cannot make it an amplifier.
 *
 * TASKS_REQ: u32 job, u32 from, u8 has_cookie, 16 bytes cookie.
 * TASKS: u32 job, u32 want (0: open-ended), u32 tasks (numbers in use),
 * u32 x TASKS_COUNT_MAX counts by state, u32 from, u32 next, u16 rows;
 * each row u32 task, u8 state, u32 tries, u32 failures, u8 ended,
 * u32 status (int32: >= 0 exit code, < 0 minus the signal), u32 ms
 * (run time: to its end, or so far), str node (u16 length, bytes).
 */
#ifndef CILKNOW_PROTO_TASKS_H
#define CILKNOW_PROTO_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_TASKS_ROWS	256	/* rows in one TASKS page */

/* A task's state, as tasktab.h has it (enum tt_state + 1). */
enum proto_task_state {
	PROTO_TS_UNDEF = 0,
	PROTO_TS_PENDING,	/* to run (again) */
	PROTO_TS_RUNNING,
	PROTO_TS_DONE,		/* exited 0 */
	PROTO_TS_FAILED,	/* open-ended: exited otherwise */
	PROTO_TS_GIVEN_UP,	/* failed --retries times */
	PROTO_TS_STOPPED,	/* open-ended: stopped by its node */
	PROTO_TS_LOST,		/* open-ended: never heard of again */
	PROTO_TS_MAX
};
#define TASKS_COUNT_MAX	(PROTO_TS_MAX - 1)	/* counts[state - 1] */

struct proto_tasks_req {
	uint32_t	tq_job;		/* not 0 */
	uint32_t	tq_from;
	uint8_t		tq_has_cookie;	/* 0 or 1 */
	uint8_t		tq_cookie[PROTO_COOKIE_LEN];
};

struct proto_task_row {
	uint32_t	tr_task;
	uint8_t		tr_state;	/* enum proto_task_state */
	uint32_t	tr_tries;	/* attempts started */
	uint32_t	tr_failures;
	uint8_t		tr_ended;	/* tr_status is an exit's */
	int32_t		tr_status;
	uint32_t	tr_ms;		/* run time */
	char		tr_node[PROTO_HOST_MAX];	/* "": none */
};

struct proto_tasks {
	uint32_t		tk_job;
	uint32_t		tk_want;
	uint32_t		tk_tasks;
	uint32_t		tk_count[TASKS_COUNT_MAX];
	uint32_t		tk_from;
	uint32_t		tk_next;	/* 0: no more */
	uint16_t		tk_n;
	struct proto_task_row	tk_rows[PROTO_TASKS_ROWS];
};

size_t	proto_tasks_req_enc(const struct proto_tasks_req *, uint8_t *,
	    size_t);
int	proto_tasks_req_dec(struct proto_tasks_req *, const uint8_t *,
	    size_t);
size_t	proto_tasks_enc(const struct proto_tasks *, uint8_t *, size_t);
int	proto_tasks_dec(struct proto_tasks *, const uint8_t *, size_t);

/* "pending", "running", "done", "failed", "given-up", "stopped", "lost" */
const char	*proto_task_state_name(enum proto_task_state);

#endif
