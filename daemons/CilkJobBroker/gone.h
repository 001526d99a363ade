/*
 * CilkJobBroker: telling the nodes that run a job that it has left the
 * registry (JOB_GONE), so that they stop its workers at once.  The push
 * that lacks the job says the same, but a node heeds that only from a
 * broker old enough to have heard every job manager again
 * (CilkNodeManager(8)); JOB_GONE names the job, so it needs no such wait.
 */
#ifndef CILKJOBBROKER_GONE_H
#define CILKJOBBROKER_GONE_H

#include <stdint.h>

#include "broker.h"
#include "msg.h"

/* To every node whose last registration said it runs job. */
void	broker_tell_gone(struct msg_ep *, const struct broker *, uint32_t job);

#endif
