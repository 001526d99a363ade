/*
 * nodefault — what a job manager says when a node could not start a
 * task for a reason of its own (CilkJobManager(8), "Node-side failures"),
 * pure logic without I/O.
 *
 * A node manager that cannot start a worker because of the node itself
 * (the job's user unknown there, its spool full, a key it lacks, a
 * launch pad that does not come up) reports the task's exit with status
 * PROTO_EXIT_NODE_FAULT and why (proto.h).  The job manager does not
 * count it against the task, gives the whole node up for the job (all
 * its processors: tasktab's tt_give_host_up) and says so in one line,
 * once per node and reason however many tasks or processors fail there:
 *
 *	node 127.0.0.3: no space left in /var/lib/cilknow (0 KiB free,
 *	spool_min_free 1024 KiB); task 0 runs elsewhere
 */
#ifndef CILKNOW_NODEFAULT_H
#define CILKNOW_NODEFAULT_H

#include <stddef.h>
#include <stdint.h>

#define NF_SAID_MAX	256	/* node and reason pairs remembered */

struct nf_said {
	uint64_t	ns_hash[NF_SAID_MAX];
	uint32_t	ns_n;
};

/*
 * The node's part of a processor's name: "ADDR" of "ADDR/3" (slots.c
 * names a node's processors so), into buf.
 */
void	nf_host(const char *node, char *buf, size_t bufsz);
/*
 * 1 the first time the host of node and reason come together (and then
 * remembered), 0 after.  A full table says 1: a line too many rather
 * than a reason not said.
 */
int	nf_first(struct nf_said *, const char *node, const char *reason);
/*
 * The reason as a user reads it: bytes from afar, printable ASCII only
 * (others '?'), len of them at most, the node manager's "not started: "
 * cut.
 */
void	nf_reason(const uint8_t *raw, size_t len, char *buf, size_t bufsz);
/*
 * "node HOST: REASON; task T runs elsewhere", or "... task T waits for
 * another node" when elsewhere is 0 (no other node has it yet).
 */
void	nf_line(const char *node, const char *reason, uint32_t task,
	    int elsewhere, char *buf, size_t bufsz);

#endif
