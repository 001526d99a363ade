/*
 * broker_wait — job managers that wait before they register a job,
 * as CilkJobBroker knows them, without I/O: a job manager held by
 * CilkRun --after JOB asks the broker (AFTER_REQ) how that job ended,
 * again every few seconds, before it registers its own.  The broker
 * notes each asker (user, address, the job it waits for, since when)
 * and lists it in CilkPs as a job without a number, REASON "after"
 * (PROTO_PENDING_AFTER), until the job manager registers its job or
 * has not asked for a while.  At most user_jobs of a user's, and
 * BROKER_WAITS_MAX in all.
 */
#ifndef CILKNOW_BROKER_WAIT_H
#define CILKNOW_BROKER_WAIT_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define BROKER_WAITS_MAX	1024
#define BROKER_WAIT_KEEP	15.0	/* seconds without a question, at
					   least (the job manager asks at
					   least every 5 s) */

struct broker_waiter {
	char		 bw_user[MSG_NAME_MAX + 1];
	struct msg_addr	 bw_addr;	/* its job manager */
	uint32_t	 bw_after;	/* the job it waits for */
	double		 bw_since;	/* now_mono() when first asked */
	double		 bw_seen;	/* ... and last */
};

struct broker_waits {
	struct broker_waiter	 bw_w[BROKER_WAITS_MAX];	/* oldest first */
	uint32_t		 bw_n;
};

void	broker_wait_init(struct broker_waits *);
/*
 * user's job manager at addr asked how job `after` ended: noted, or
 * its note kept fresh.  0, or -1 if not noted: user has user_max notes
 * already (0: no limit), or the table is full.
 */
int	broker_wait_note(struct broker_waits *, const char *user,
	    const struct msg_addr *, uint32_t after, uint32_t user_max,
	    double now);
/* The job manager at addr registered its job: no longer waiting. */
void	broker_wait_forget(struct broker_waits *, const struct msg_addr *);
/* Forgets notes not asked again for keep seconds. */
void	broker_wait_expire(struct broker_waits *, double now, double keep);
/*
 * Its CilkPs row: job 0, the user, the job manager's address, its age
 * since it first asked, REASON PROTO_PENDING_AFTER and, for a command
 * the broker does not know yet, "--after JOB".
 */
void	broker_wait_row(const struct broker_waiter *, double now,
	    struct proto_job_row *);

#endif
