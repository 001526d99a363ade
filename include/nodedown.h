/*
 * nodedown — a node manager that goes down by itself, pure logic
 * without I/O (CilkNodeManager(8), "Node-side failures").
 *
 * Every start that fails for a reason of the node's own (the worker's
 * end reported as PROTO_EXIT_NODE_FAULT: the user unknown here, the
 * spool full, a launch pad that does not come up) counts; a start that
 * succeeds sets the count back to 0.  node_fault_limit of them in a row
 * and the node is down: it tells the broker why (NODE_DOWN,
 * proto_health.h), takes no work, and stays down until the broker gives
 * it work again (CilkNodes resume NODE: the broker's first assignment
 * after its answer to our report).  Each time down has a number of its
 * own (nd_gen, from 1 in a node manager's life), so the broker can tell
 * a report it has already resumed from a new one.
 */
#ifndef CILKNOW_NODEDOWN_H
#define CILKNOW_NODEDOWN_H

#include <stddef.h>
#include <stdint.h>

#define ND_LIMIT_DEFAULT	3	/* node_fault_limit's default */
#define ND_REASON_MAX		120	/* PROTO_HEALTH_REASON_MAX */

struct nd_count {
	uint32_t	nd_limit;	/* node_fault_limit, >= 1 */
	uint32_t	nd_run;		/* node faults in a row */
	uint32_t	nd_gen;		/* times down; the current one */
	int		nd_down;
	char		nd_reason[ND_REASON_MAX + 1];
};

/* Up, no fault counted; limit 0 is taken as 1. */
void	nd_init(struct nd_count *, uint32_t limit);
/* node_fault_limit changed (a reload): counts from then on. */
void	nd_set_limit(struct nd_count *, uint32_t limit);
/*
 * A start failed for the node's reason why: counted.  1 if the node
 * goes down now (nd_reason: "WHY (N starts in a row)", printable ASCII,
 * cut to ND_REASON_MAX), else 0 (up and below the limit, or down
 * already: a worker that was starting when it went down).
 */
int	nd_fault(struct nd_count *, const char *why);
/* A worker started: the count is 0 again (down stays down). */
void	nd_started(struct nd_count *);
/* The broker gave us work again: up, count 0.  1 if it was down. */
int	nd_resumed(struct nd_count *);

#endif
