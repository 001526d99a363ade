/*
 * nmpriv — the node manager's own messages between its privileged
 * parent and its unprivileged engine (DESIGN.md §9), on the channel
 * that every privilege-separated daemon has (priv.h): one message per
 * SOCK_SEQPACKET packet, the priv header (u16 type, u32 length) and a
 * body whose every field is big-endian (wire.h).  READY, WATCHDOG and
 * RELOAD are priv's own, as for the broker.  The decoder takes exactly
 * the bytes of one body; anything else (short, long, unknown type, a
 * bad worker id or user name, a value out of range) is refused, and
 * the parent treats a refused message from the engine as the engine's
 * end, never as a request to obey.
 *
 * Engine to parent (requests):
 *	SPAWN	u32 req, u8 kind, str tag, u32 desc length, the signed
 *		description (proto_desc_sign's bytes: the user's own
 *		signature, which the parent checks itself)
 *	STOP	str worker, u32 grace in ms
 *	FREEZE	str worker, u8 1 to freeze, 0 to thaw
 *	FORGET	str worker: its output is relayed; the launch pad may go
 *		and take the worker's folder with it
 *	VACATE	str worker, u32 grace in ms, u32 fast in ms (below
 *		grace): a STOP because the owner is back; still there
 *		after fast, the worker is frozen until grace, then
 *		killed (vacate.h)
 *	SENSE	u32 req: look for input devices again, measure, and
 *		answer with MEAS
 *	PIDQ	u32 req, u32 pid, u64 start (ticks since boot; 0: any),
 *		str user: what is process pid?  Answered with PIDA
 * Parent to engine (answers and news):
 *	HELLO	str cgroup base of the workers ("" for the process-tree
 *		fallback), so the engine can tell a worker's process
 *	SPAWNED	u32 req, u8 ok (1; 0 refused, NMPRIV_SPAWN_NODE refused
 *		for a reason of the node's own), str worker, u32 launch
 *		pad pid, str why (when not ok)
 *	WORKER	str worker, u8 kind, u32 job, u32 task, str user,
 *		u32 launch pad pid, u8 state, u8 how, u32 code, u64 CPU
 *		ms, u64 peak memory KiB (LPAD_USAGE_NONE: not measured;
 *		always unless exited): what the parent knows of one
 *		worker, sent for every launch pad found at start and
 *		whenever a worker's state changes
 *	INPUT	u32 devices read, u64 ms since the owner's last input:
 *		sent when input comes after a quiet moment
 *	MEAS	u32 req (SENSE's; 0: sent unasked, at the parent's start),
 *		u8 ok, then if ok the measurement (proto_pred_meas_put:
 *		the system's sensors or the sensor file, and the input
 *		devices; loads still with the node's own workers in),
 *		else str why
 *	PIDA	u32 req (PIDQ's), u8 state (proto_proc.h: of user's
 *		processes), u8 flags: NMPRIV_PID_STARTED (pid runs and
 *		started at start), NMPRIV_PID_WORKER (it is a guest
 *		worker's, not a root the node restarted)
 */
#ifndef CILKNOW_NMPRIV_H
#define CILKNOW_NMPRIV_H

#include <stddef.h>
#include <stdint.h>

#include "lpad.h"
#include "pred.h"
#include "priv.h"

#define NMPRIV_DESC_MAX		65536	/* a signed description */
#define NMPRIV_MSG_MAX		(NMPRIV_DESC_MAX + 512)	/* header included */
#define NMPRIV_WHY_MAX		256
#define NMPRIV_TAG_MAX		32	/* a root's record name */
#define NMPRIV_PATH_MAX		1024

/* priv's types come first (PRIV_M_MAX): ours start at NMPRIV_BASE. */
#define NMPRIV_BASE		16

enum nmpriv_type {
	NMPRIV_UNDEF = 0,
	NMPRIV_SPAWN = NMPRIV_BASE,
	NMPRIV_STOP,
	NMPRIV_FREEZE,
	NMPRIV_FORGET,
	NMPRIV_HELLO,
	NMPRIV_SPAWNED,
	NMPRIV_WORKER,
	NMPRIV_SENSE,		/* engine: look for devices, measure */
	NMPRIV_INPUT,		/* parent: the devices read, time since input */
	NMPRIV_VACATE,		/* engine to parent, like STOP */
	NMPRIV_MEAS,		/* parent: what the sensors measured */
	NMPRIV_PIDQ,		/* engine: what is this process? */
	NMPRIV_PIDA,		/* parent: PIDQ's answer */
	NMPRIV_TYPE_MAX
};

/* PIDA's nm_flag. */
#define NMPRIV_PID_STARTED	0x01
#define NMPRIV_PID_WORKER	0x02

/* SPAWNED's nm_flag: refused for the node's own reason (nodefault.h). */
#define NMPRIV_SPAWN_NODE	2

enum nmpriv_kind {
	NMPRIV_KIND_UNDEF = 0,
	NMPRIV_KIND_WORKER,	/* a guest worker of a job */
	NMPRIV_KIND_ROOT,	/* a restarted root (roots.c) */
	NMPRIV_KIND_MAX
};

enum nmpriv_wstate {
	NMPRIV_W_UNDEF = 0,
	NMPRIV_W_RUNNING,
	NMPRIV_W_FROZEN,
	NMPRIV_W_EXITED,	/* how and code say how */
	NMPRIV_W_MAX
};

struct nmpriv_msg {
	uint16_t	 nm_type;		/* enum nmpriv_type */
	uint32_t	 nm_req;		/* SPAWN, SPAWNED, SENSE, MEAS,
						   PIDQ, PIDA */
	uint8_t		 nm_kind;		/* SPAWN, WORKER */
	char		 nm_tag[NMPRIV_TAG_MAX + 1];	/* SPAWN */
	const uint8_t	*nm_desc;		/* SPAWN: points into the
						   decoded buffer */
	uint32_t	 nm_desclen;
	char		 nm_worker[LPAD_WORKER_MAX + 1];
	uint32_t	 nm_grace_ms;		/* STOP, VACATE */
	uint32_t	 nm_fast_ms;		/* VACATE */
	uint8_t		 nm_flag;		/* FREEZE: 1/0; SPAWNED: ok,
						   or NMPRIV_SPAWN_NODE;
						   MEAS: ok; PIDA: flags */
	char		 nm_why[NMPRIV_WHY_MAX];	/* SPAWNED, MEAS */
	char		 nm_path[NMPRIV_PATH_MAX];	/* HELLO */
	uint32_t	 nm_job, nm_task;	/* WORKER */
	char		 nm_user[LPAD_USER_MAX + 1];	/* WORKER, PIDQ */
	uint32_t	 nm_lpad;		/* SPAWNED, WORKER */
	uint8_t		 nm_state;		/* WORKER: enum nmpriv_wstate;
						   PIDA: enum proto_proc_state */
	uint8_t		 nm_how;		/* WORKER: enum lpad_how */
	uint32_t	 nm_code;
	uint64_t	 nm_cpu_ms;		/* WORKER, exited: its usage */
	uint64_t	 nm_maxrss_kb;
	uint32_t	 nm_devices;		/* INPUT: devices read */
	uint64_t	 nm_idle_ms;		/* INPUT: since the last input */
	struct pred_meas nm_meas;		/* MEAS, if ok */
	uint32_t	 nm_pid;		/* PIDQ */
	uint64_t	 nm_start;		/* PIDQ */
};

/*
 * A whole message (priv header and body) into buf; -1 (EINVAL) for an
 * invalid message or no room.
 */
int	nmpriv_encode(const struct nmpriv_msg *, uint8_t *buf, size_t bufsz,
	    size_t *lenp);
/* Validates and decodes exactly len bytes; -1 (EBADMSG) if malformed. */
int	nmpriv_decode(struct nmpriv_msg *, const uint8_t *buf, size_t len);
/* The body of a message of this type, as priv_recv split it off. */
int	nmpriv_decode_body(struct nmpriv_msg *, uint16_t type,
	    const uint8_t *body, size_t len);
/* Sends one on the channel (priv_send): 0, or -1 with errno. */
int	nmpriv_send(struct priv_chan *, const struct nmpriv_msg *);
const char *nmpriv_type_name(uint16_t);

#endif
