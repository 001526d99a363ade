/*
 * proto_root — the messages by which a checkpointing root leaves its
 * job with its home node manager, which restarts it in recovery mode
 * if the root dies before the job ends (cilknow(3), CilkNodeManager(8),
 * cilknow-protocol(7)).  Both travel under the user scheme.
 *
 * ROOT_BACKUP: u32 pid, u64 start (the pid's start time in clock ticks
 * since boot, /proc/PID/stat field 22: a pid reused is another
 * process), u32 length, a signed job description (proto_desc_sign)
 * whose argv is the recovery command: PROG -Recover=CHECKPOINT ARGS,
 * and whose job number is the pid (so the signature covers it).
 * ROOT_DONE: u32 pid, u64 start, str checkpoint: the job ended.
 */
#ifndef CILKNOW_PROTO_ROOT_H
#define CILKNOW_PROTO_ROOT_H

#include <stddef.h>
#include <stdint.h>

#include "proto.h"

#define PROTO_RECOVER_FLAG	"-Recover="

struct proto_root_backup {
	uint32_t	 rb_pid;
	uint64_t	 rb_start;
	const uint8_t	*rb_desc;	/* signed; points into the message */
	size_t		 rb_desclen;
};

struct proto_root_done {
	uint32_t	rd_pid;
	uint64_t	rd_start;
	char		rd_ckpt[PROTO_PATH_MAX];
};

size_t	proto_root_backup_enc(const struct proto_root_backup *, uint8_t *,
	    size_t);
int	proto_root_backup_dec(struct proto_root_backup *, const uint8_t *,
	    size_t);
size_t	proto_root_done_enc(const struct proto_root_done *, uint8_t *,
	    size_t);
int	proto_root_done_dec(struct proto_root_done *, const uint8_t *,
	    size_t);
/*
 * The checkpoint a recovery description names: argv[1] must be
 * "-Recover=" and an absolute path.  0, or -1 if it is no recovery
 * command.
 */
int	proto_root_ckpt(const struct proto_desc *, char *, size_t);
/*
 * The start time of process pid on this machine (clock ticks since
 * boot, /proc/PID/stat field 22): 0, or -1 if there is no such process.
 */
int	proto_root_pid_start(long pid, uint64_t *);

#endif
