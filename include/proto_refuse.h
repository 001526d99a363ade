/*
 * proto_refuse — DESC_REFUSED (node manager -> job manager, user scheme
 * as @cluster, like DESC_REQ): a processor that asked for a task
 * (DESC_REQ with dr_fetch) cannot start it for a reason of its node's
 * own that the node manager's engine sees itself: the description does
 * not open with the user's key as the node has it (or is stale: a
 * clock), it is signed by another user than the one the broker
 * assigned, or the job manager's answers do not open here (no key for
 * the user).  The job manager treats it as an exit with status PROTO_EXIT_NODE_FAULT
 * (nodefault.h): the task runs elsewhere at once, not after the reclaim
 * (3 register intervals and 30 s).
 *
 * PROTO_REFUSED_WITHDRAWN: the processor no longer wants the task it
 * asked for, for a passing reason that is no fault (its owner came back,
 * the owner's load took the processor, the job manager did not answer in
 * time): the task handed out by that fetch is taken back at once, as
 * the reclaim would, and the node is not given up.  Decoders check
 * every length and range and refuse leftover bytes; see
 * cilknow-protocol(7).
 */
#ifndef CILKNOW_PROTO_REFUSE_H
#define CILKNOW_PROTO_REFUSE_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_REFUSED_FAULT	0	/* the node's fault: given up */
#define PROTO_REFUSED_WITHDRAWN	1	/* passing: the task goes back */

struct proto_desc_refused {
	uint32_t	rf_job;		/* not 0 */
	uint8_t		rf_kind;	/* PROTO_REFUSED_* */
	uint64_t	rf_fetch;	/* the DESC_REQ's dr_fetch; 0: none */
	char		rf_node[PROTO_HOST_MAX];	/* the processor:
						   HOST or HOST/SLOT, not "" */
	char		rf_reason[PROTO_REASON_MAX];	/* 1 to 199 bytes,
						   no control bytes */
};

size_t	proto_desc_refused_enc(const struct proto_desc_refused *, uint8_t *,
	    size_t);
int	proto_desc_refused_dec(struct proto_desc_refused *, const uint8_t *,
	    size_t);

#endif
