/*
 * proto_proc — before it gives a silent worker up for lost, a
 * clearinghouse asks the worker's node manager whether the worker's
 * process is still there (cilknow(3), CilkChouse(8),
 * cilknow-protocol(7)).  The question travels under the user scheme,
 * signed by the job's user; the node manager answers as @cluster, and
 * only about that user's own processes: another user's, or none, are
 * both "none".
 *
 * PROC_ASK: u32 pid.  PROC: u32 pid, u8 state.
 */
#ifndef CILKNOW_PROTO_PROC_H
#define CILKNOW_PROTO_PROC_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

enum proto_proc_state {
	PROTO_PROC_NONE = 0,	/* no such process of this user */
	PROTO_PROC_RUNNING,	/* running or waiting: it lives */
	PROTO_PROC_STOPPED,	/* stopped by a signal or a debugger */
	PROTO_PROC_MAX
};

struct proto_proc {
	uint32_t	pp_pid;
	uint8_t		pp_state;
};

size_t	proto_proc_ask_enc(uint32_t pid, uint8_t *, size_t);
int	proto_proc_ask_dec(uint32_t *pid, const uint8_t *, size_t);
size_t	proto_proc_enc(const struct proto_proc *, uint8_t *, size_t);
int	proto_proc_dec(struct proto_proc *, const uint8_t *, size_t);
/* What this machine's kernel says of process pid owned by uid. */
enum proto_proc_state proto_proc_state(long pid, uid_t uid);

#endif
