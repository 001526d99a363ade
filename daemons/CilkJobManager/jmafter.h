/*
 * CilkJobManager's --after JOB (after.c): the job is held until the
 * broker says JOB ended successfully.  after.c sits above job.c and
 * acct.c: it receives the broker's ERROR and ACCT_ACK messages and hands
 * down those that are not about --after.
 */
#ifndef CILKJOBMANAGER_JMAFTER_H
#define CILKJOBMANAGER_JMAFTER_H

#include "jobmgr.h"

#define JMAFTER_POLL_MAX	5.0	/* seconds between asks, at most */

/* 1 if the job is held (jobmgr_go() runs it later), else 0: go now. */
int	jmafter_hold(struct jobmgr *);
/* job.c's handlers, with the broker's ERROR and ACCT_ACK through here. */
const struct msg_handler *jmafter_table(void);

#endif
