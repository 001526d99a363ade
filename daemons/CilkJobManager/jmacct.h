/*
 * CilkJobManager's accounting (acct.c): a record of every try of a task
 * that ended and of the job's end goes to the broker's history
 * (CilkHist(1)), sent again until the broker acknowledges it, since
 * datagrams get lost; at the end the job manager waits a little for
 * the last acknowledgements.
 */
#ifndef CILKJOBMANAGER_JMACCT_H
#define CILKJOBMANAGER_JMACCT_H

#include "jobmgr.h"
#include "proto_acct.h"

#define JMACCT_QUEUE_MAX	4096	/* records waiting for an ack */
#define JMACCT_RESEND		0.5	/* seconds between sends of one */
#define JMACCT_DRAIN_MAX	5.0	/* seconds to wait at the end */

/* 0, or -1 (out of memory). */
int	jmacct_init(struct jobmgr *);
void	jmacct_free(struct jobmgr *);
/*
 * Hooks: a task was handed out; one of its tries ended (cpu_ms and
 * maxrss_kb as its EXIT record carried them, PROTO_USAGE_NONE if not
 * measured); the job ends.
 */
void	jmacct_task_start(struct jobmgr *, uint32_t task);
void	jmacct_task_end(struct jobmgr *, uint32_t task, const char *node,
	    int32_t status, enum tt_end how, uint64_t cpu_ms,
	    uint64_t maxrss_kb);
void	jmacct_job_end(struct jobmgr *, int status);
/* After the event loop: the job's record, then wait for the acks. */
void	jmacct_drain(struct jobmgr *);
/* The broker acknowledged a record (after.c decoded it); it refused one. */
void	jmacct_acked(struct jobmgr *, const struct proto_acct_ack *);
void	jmacct_on_error(struct jobmgr *, const struct proto_error *);

#endif
