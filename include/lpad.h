/*
 * lpad — the launch pad: one CilkLaunchPad(8) daemon per worker runs the
 * worker as the job's user, logs its output, delivers signals, records
 * its exit status and outlives the node manager that started it.  This
 * module holds the spec file codec, the control protocol codec, the
 * client side the node manager uses, and the daemon's own machinery.
 *
 * Files, for worker W (see CilkLaunchPad(8)):
 *	RUNDIR/lpad/		mode 0700, the node manager's user's
 *	RUNDIR/lpad/W.sock	control socket (SOCK_SEQPACKET)
 *	RUNDIR/lpad/W.spec	spec written by lpad_spawn(), removed after
 *	STATEDIR/workers/W/	owned by the job's user, mode 0700:
 *	    spec		the spec as the launch pad read it
 *	    out.log, err.log	the worker's stdout and stderr, appended
 *	    pid			the worker's pid
 *	    lpad.pid		the launch pad's pid (removed at exit)
 *	    status		"exited N" or "signal N", "start_ms T",
 *				"end_ms T"; written atomically at exit
 *
 * Spec file: text, one "key value" line each, the key and the value
 * separated by one space; the value is every byte up to the newline,
 * taken literally, except in argvx and envx.  The first line is "cilknow-lpad-spec 1", the last "end";
 * blank lines and lines starting with '#' are skipped.  Keys:
 *	worker W	[a-z0-9][a-z0-9-]*, at most LPAD_WORKER_MAX; required
 *	job N		job id, 0 to 2^32-1; required
 *	task N		task number, 0 to 2^32-1 (default 0)
 *	node NAME	node name for CILKNOW_NODE (default: the host name)
 *	user NAME	[a-z_][a-z0-9_.-]*, at most LPAD_USER_MAX; required
 *	cwd PATH	absolute; required
 *	nice N		-20 to 19 (default 19)
 *	sched idle|nice	SCHED_IDLE, or the normal policy (default nice)
 *	rlimit_cpu N	seconds of CPU (0: not limited by the spec)
 *	rlimit_as N	address space in MB (0: not limited)
 *	rlimit_nofile N	open files (0: not limited)
 *	allow_root 0|1	may the worker run as uid 0 (default 0)
 *	cgroup PATH	the worker's own cgroup v2 folder, made by the node
 *			manager; absent: the launch pad is a subreaper and
 *			the worker is its tree of descendants (contain.h)
 *	log_gid N	the group that may read the worker's folder and
 *			logs (the node manager's engine); absent: none
 *	env NAME=VALUE	one environment entry, repeatable, in order
 *	argv ARG	one argument, repeatable, in order; at least one
 *	argvx ARG	the same for an argument holding a newline, with
 *			"\n" for newline and "\\" for backslash
 *	envx NAME=VALUE	likewise for an environment entry
 *	taskdir 1	the worker runs in STATEDIR/workers/W/task, a folder
 *			of the user's the launch pad makes, not in cwd
 *	stage_in SIZE HASH NAME  a file to put in the task folder before
 *			the worker starts: its size, BLAKE2b-256 hash (64
 *			hex digits) and name (stage.h); repeatable, in the
 *			order of the spool's bytes
 *	stage_spool PATH the stage-in bytes, one file after the other; a
 *			regular file of uid stage_uid with one link
 *	stage_uid N	the node manager engine's uid (it wrote the spool)
 *	stage_out GLOB	files of the task folder to send back when the
 *			worker has exited, into W/stage.out; repeatable
 *	stage_max N, stage_max_task N  bytes a stage-out file, and all,
 *			may have (defaults 64 MiB and 256 MiB)
 * Scalar keys may appear once.  Unknown keys, a missing "end" line,
 * anything after it and files over LPAD_SPEC_MAX bytes are refused.
 *
 * Control protocol: one message per SOCK_SEQPACKET packet, at most
 * LPAD_MSG_LEN bytes, every field big-endian (wire.h): u8 version
 * (LPAD_PROTO_VERSION), u8 type, then the body of that type:
 *	STATUS		(empty)
 *	SIGNAL		u32 signo (LPAD_SIGNAL_OK lists those allowed)
 *	STOP		u32 grace in ms, at most LPAD_GRACE_MAX_MS
 *	QUIT		(empty)
 *	STATUS_REPLY	str worker, u32 job, u32 task, str user,
 *			u32 launch pad pid, u32 worker pid, u32 pgid,
 *			u8 state, u8 stopping, u8 how, u32 code,
 *			u64 start_ms, u64 end_ms, u64 out.log size,
 *			u64 err.log size, then, from launch pads that
 *			measure it: u64 CPU ms, u64 peak memory KiB
 *			(LPAD_USAGE_NONE: not measured; always while
 *			running).  A reply without these 16 bytes (a
 *			launch pad older than its node manager) reads as
 *			not measured; any other length is refused.
 *	RESULT		u8 request type, u32 error (0 or an errno value)
 * (str: u16 length and the bytes.)  A client sends one request and reads
 * one reply: STATUS_REPLY to STATUS, RESULT to the others.  Unknown
 * versions or types, short or long bodies and out-of-range values are
 * refused; the launch pad logs them and closes that connection.
 *
 * STOP sends SIGCONT and SIGQUIT to the worker's process group at once,
 * SIGQUIT again after the grace and SIGKILL after twice the grace
 * (DESIGN.md §4.6); the launch pad keeps the time itself.  A STOP that
 * would end later than one already under way changes nothing.  QUIT
 * makes the launch pad exit once the worker has exited and its status
 * is written; without QUIT it lingers (CilkLaunchPad -L, 1 hour) so a
 * restarted node manager can still read the exit status.
 */
#ifndef CILKNOW_LPAD_H
#define CILKNOW_LPAD_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "stage.h"

#define LPAD_WORKER_MAX		32	/* worker id */
#define LPAD_USER_MAX		32	/* user name */
#define LPAD_NODE_MAX		64	/* node name */
#define LPAD_PATH_MAX		1024	/* cwd, any path we build */
#define LPAD_ARG_MAX		4096	/* one argv or env entry */
#define LPAD_ARGS_MAX		256	/* argv entries; env entries */
#define LPAD_SPEC_MAX		(1024 * 1024)	/* spec file bytes */
#define LPAD_MSG_LEN		512	/* control message bytes */
#define LPAD_PROTO_VERSION	1
#define LPAD_GRACE_MAX_MS	(24U * 3600 * 1000)
#define LPAD_TIMEOUT		5	/* seconds: client waits, spawn */
#define LPAD_LINGER		3600	/* seconds kept after the exit */
#define LPAD_SPEC_MAGIC		"cilknow-lpad-spec 1"
#define LPAD_USAGE_NONE		UINT64_MAX	/* cpu_ms, maxrss_kb */

/* Exit codes of a worker that never ran (reason in its err.log). */
#define LPAD_EXIT_SETUP		126	/* cwd, limits, user, ... */
#define LPAD_EXIT_EXEC		127	/* execvp failed */

enum lpad_sched {
	LPAD_SCHED_UNDEF = 0,
	LPAD_SCHED_NICE,		/* SCHED_OTHER at the nice level */
	LPAD_SCHED_IDLE,		/* SCHED_IDLE, and the nice level */
	LPAD_SCHED_MAX
};

struct lpad_spec {
	char		 ls_worker[LPAD_WORKER_MAX + 1];
	uint32_t	 ls_job;
	uint32_t	 ls_task;
	char		 ls_node[LPAD_NODE_MAX + 1]; /* "": host name */
	char		 ls_user[LPAD_USER_MAX + 1];
	char		 ls_cwd[LPAD_PATH_MAX];
	int		 ls_nice;
	enum lpad_sched	 ls_sched;
	uint64_t	 ls_rlim_cpu;	/* seconds; 0: not limited */
	uint64_t	 ls_rlim_as;	/* MB; 0: not limited */
	uint64_t	 ls_rlim_nofile;	/* 0: not limited */
	int		 ls_allow_root;
	char		 ls_cgroup[LPAD_PATH_MAX]; /* "": process tree */
	long long	 ls_log_gid;	/* may read the logs; -1: none */
	size_t		 ls_argc;
	char		*ls_argv[LPAD_ARGS_MAX + 1]; /* NULL-terminated */
	size_t		 ls_envc;
	char		*ls_env[LPAD_ARGS_MAX + 1];  /* NULL-terminated */
	/* File staging (lpad_stage.c). */
	int		 ls_taskdir;	/* run in W/task, not cwd */
	struct stage_list ls_stage;	/* stage_in, stage_out */
	char		 ls_stage_spool[LPAD_PATH_MAX]; /* stage-in bytes */
	long long	 ls_stage_uid;	/* the spool's owner; -1: none */
	uint64_t	 ls_stage_max;	/* stage-out: a file, at most */
	uint64_t	 ls_stage_max_task;	/* stage-out: in all */
};

/* Defaults (nice 19, sched nice, no argv); lpad_spec_clear frees. */
void	lpad_spec_init(struct lpad_spec *);
void	lpad_spec_clear(struct lpad_spec *);
/* Appends a copy; -1 (E2BIG, EINVAL for newline, ENOMEM) on error. */
int	lpad_spec_add_arg(struct lpad_spec *, const char *);
int	lpad_spec_add_env(struct lpad_spec *, const char *);
/* 0 if every field is valid, else -1 with the reason in why. */
int	lpad_spec_check(const struct lpad_spec *, char *why, size_t whysz);
/*
 * lpad_stage.c.  _setup (as the launch pad): makes W/task for the user
 * and opens the stage-in spool, checked; _in (in the worker's process,
 * as the user): the spool's files into the task folder, each checked
 * against its hash, what failed in what; _out (the worker has exited):
 * a child as the user writes the stage-out records into W/stage.out.
 */
int	lpad_stage_setup(const struct lpad_spec *, int wfd, uid_t, gid_t,
	    int root, int *taskfd, int *spoolfd, char *why, size_t);
int	lpad_stage_in(const struct lpad_spec *, int taskfd, int spoolfd,
	    char *what, size_t);
int	lpad_stage_out(const struct lpad_spec *, int wfd, int taskfd, uid_t,
	    gid_t, int root, char *why, size_t);
/* The spec's staging keys. */
int	lpad_spec_check_stage(const struct lpad_spec *, char *, size_t);
void	lpad_spec_put_stage(const struct lpad_spec *,
	    void (*)(void *, const char *, const char *), void *);
int	lpad_spec_stage_value(struct lpad_spec *, const char *key,
	    const char *v);

/*
 * The spec as text, in a malloc'ed buffer of *lenp bytes (not
 * NUL-terminated).  NULL with errno EINVAL (invalid spec), E2BIG (over
 * LPAD_SPEC_MAX) or ENOMEM.
 */
char	*lpad_spec_encode(const struct lpad_spec *, size_t *lenp);
/*
 * Parses len bytes into an lpad_spec_init()ed spec.  -1 with
 * "line N: reason" in why; the spec is then cleared.
 */
int	lpad_spec_parse(struct lpad_spec *, const char *buf, size_t len,
	    char *why, size_t whysz);
/*
 * Reads and parses a spec file, refusing symlinks, non-regular files,
 * files group or others may write and files over LPAD_SPEC_MAX.
 */
int	lpad_spec_read(struct lpad_spec *, const char *path,
	    char *why, size_t whysz);
/* Reads and parses a spec from fd to its end (LPAD_SPEC_MAX at most). */
int	lpad_spec_read_fd(struct lpad_spec *, int fd, char *why,
	    size_t whysz);
/*
 * The spec in a sealed memory file (memfd, close-on-exec), at offset 0:
 * what a launch pad is given as its standard input.  -1 with errno.
 */
int	lpad_spec_memfd(const struct lpad_spec *);

int	lpad_worker_ok(const char *);	/* 1 if a valid worker id */
int	lpad_user_ok(const char *);	/* 1 if a valid user name */

/* RUNDIR/lpad, RUNDIR/lpad/W.sock, STATEDIR/workers/W; -1 if too long. */
int	lpad_sock_dir(const char *run_dir, char *buf, size_t bufsz);
int	lpad_sock_path(const char *run_dir, const char *worker, char *buf,
	    size_t bufsz);
int	lpad_worker_dir(const char *state_dir, const char *worker,
	    char *buf, size_t bufsz);

/* Control messages. */
enum lpad_msg_type {
	LPAD_MSG_UNDEF = 0,
	LPAD_MSG_STATUS,
	LPAD_MSG_SIGNAL,
	LPAD_MSG_STOP,
	LPAD_MSG_QUIT,
	LPAD_MSG_STATUS_REPLY,
	LPAD_MSG_RESULT,
	LPAD_MSG_MAX
};

enum lpad_state {
	LPAD_STATE_UNDEF = 0,
	LPAD_STATE_RUNNING,
	LPAD_STATE_EXITED,
	LPAD_STATE_MAX
};

enum lpad_how {
	LPAD_HOW_UNDEF = 0,		/* still running */
	LPAD_HOW_EXITED,		/* code is the exit status */
	LPAD_HOW_SIGNAL,		/* code is the signal number */
	LPAD_HOW_MAX
};

struct lpad_status {
	char		 st_worker[LPAD_WORKER_MAX + 1];
	uint32_t	 st_job;
	uint32_t	 st_task;
	char		 st_user[LPAD_USER_MAX + 1];
	uint32_t	 st_lpad_pid;
	uint32_t	 st_pid;
	uint32_t	 st_pgid;
	uint8_t		 st_state;	/* enum lpad_state */
	uint8_t		 st_stopping;	/* a STOP is under way */
	uint8_t		 st_how;	/* enum lpad_how */
	uint32_t	 st_code;
	uint64_t	 st_start_ms;	/* realtime, ms since the epoch */
	uint64_t	 st_end_ms;	/* 0 while running */
	uint64_t	 st_out_size;
	uint64_t	 st_err_size;
	uint64_t	 st_cpu_ms;	/* exited: LPAD_USAGE_NONE or */
	uint64_t	 st_maxrss_kb;	/* lpad_usage_measure()'s */
};

struct lpad_msg {
	uint8_t		 lm_type;	/* enum lpad_msg_type */
	uint32_t	 lm_signo;	/* SIGNAL */
	uint32_t	 lm_grace_ms;	/* STOP */
	uint8_t		 lm_req;	/* RESULT: the request's type */
	uint32_t	 lm_error;	/* RESULT: 0 or an errno value */
	struct lpad_status lm_status;	/* STATUS_REPLY */
};

/* 1 if SIGNAL may deliver signo. */
int	lpad_signal_ok(int signo);
/* Encodes into buf; -1 (EINVAL) for an invalid message or no room. */
int	lpad_msg_encode(const struct lpad_msg *, uint8_t *buf, size_t bufsz,
	    size_t *lenp);
/* Validates and decodes exactly len bytes; -1 (EBADMSG) if malformed. */
int	lpad_msg_decode(struct lpad_msg *, const uint8_t *buf, size_t len);

/* "running", "exited 3", "signal 9", into buf. */
const char *lpad_status_str(const struct lpad_status *, char *buf,
	    size_t bufsz);

/*
 * lpad_usage.c: what a worker that has exited used, once every process
 * of it is reaped (CilkLaunchPad(8), Usage).  CPU time (user and
 * system) from its cgroup's cpu.stat usage_usec and peak memory from
 * its memory.peak, where it has a cgroup and the file is there; else
 * from getrusage(RUSAGE_CHILDREN) of the launch pad, whose children
 * and (as their subreaper) orphaned descendants it reaped: ru_utime +
 * ru_stime, and ru_maxrss, the peak of its largest single process.
 * lu_from says which: LPAD_USAGE_CG_* bits for the cgroup's.
 */
#define LPAD_USAGE_CG_CPU	0x1
#define LPAD_USAGE_CG_MEM	0x2
struct lpad_usage {
	uint64_t	lu_cpu_ms;	/* LPAD_USAGE_NONE: unknown */
	uint64_t	lu_maxrss_kb;
	unsigned	lu_from;
};
void	lpad_usage_measure(const char *cg, struct lpad_usage *);
/* "CPU 1.23 s, peak 204800 KiB (cgroup)" into buf. */
const char *lpad_usage_str(const struct lpad_usage *, char *buf,
	    size_t bufsz);

/*
 * Client side, for the node manager.  Every call is bounded by
 * LPAD_TIMEOUT seconds (ETIMEDOUT / EAGAIN).
 */
struct lpad_paths {
	const char	*lpp_run_dir;	/* config run_dir */
	const char	*lpp_state_dir;	/* config state_dir */
	const char	*lpp_conf;	/* -c for the launch pad, or NULL */
	int		 lpp_linger;	/* -L seconds; < 0: default */
	int		 lpp_verbose;	/* -v */
};

/*
 * Writes RUNDIR/lpad/W.spec and starts "launchpad_binary -p -s spec".
 * The launch pad detaches into its own session (it is not our child
 * and survives us) and reports back through a pipe once its socket
 * accepts connections and the worker is started; this waits for that,
 * at most LPAD_TIMEOUT seconds, and puts the launch pad's pid in *pidp.
 * -1 on error with a reason in why: EEXIST when a launch pad for W is
 * alive, ECANCELED when the launch pad refused (its words in why),
 * ETIMEDOUT.  The spec file is removed before returning.  The child's
 * signal mask and dispositions are reset before exec; the caller must
 * not reap children it did not start (we waitpid() our own).
 */
int	lpad_spawn(const struct lpad_spec *, const struct lpad_paths *,
	    const char *launchpad_binary, pid_t *pidp, char *why,
	    size_t whysz);
/*
 * lpad_spawn in steps, for an event loop that must not wait: _begin
 * writes the spec and starts the launch pad (0, or -1 with why); then
 * _poll whenever lst_fd is readable or a child has ended (SIGCHLD), and
 * at least once after lst_deadline: 1 while it starts, 0 with the
 * launch pad's pid, -1 with why as lpad_spawn.  Either end removes the
 * spec and closes lst_fd.  _abort gives up: the starting process is
 * killed and reaped.
 */
struct lpad_start {
	pid_t		 lst_child;	/* the starting process: ours */
	int		 lst_fd;	/* its report, non-blocking; -1 */
	int		 lst_eof, lst_reaped, lst_status;
	double		 lst_deadline;	/* now_mono() */
	char		 lst_text[512];
	size_t		 lst_len;
};
int	lpad_spawn_begin(struct lpad_start *, const struct lpad_spec *,
	    const struct lpad_paths *, const char *launchpad_binary,
	    char *why, size_t whysz);
int	lpad_spawn_poll(struct lpad_start *, pid_t *pidp, char *why,
	    size_t whysz);
void	lpad_spawn_abort(struct lpad_start *);
/* A connected control socket (close(2) it), or -1 (ENOENT, ...). */
int	lpad_connect(const char *run_dir, const char *worker);
/* 1 if W's launch pad listens, 0 if no socket or nobody listens, -1. */
int	lpad_alive(const char *run_dir, const char *worker);
int	lpad_status(int fd, struct lpad_status *);
/* These return -1 with errno set to the launch pad's error, if any. */
int	lpad_signal(int fd, int signo);
int	lpad_stop(int fd, double grace_seconds);
int	lpad_quit(int fd);
/*
 * Calls cb for each live launch pad under RUNDIR/lpad (one whose socket
 * accepts a connection), in no order; a socket nobody listens on any
 * more is removed.  Stops early when cb returns non-zero.  Returns the
 * number of live launch pads passed to cb, or -1.
 */
int	lpad_list(const char *run_dir,
	    int (*cb)(const char *worker, void *arg), void *arg);

enum lpad_stream {
	LPAD_STREAM_UNDEF = 0,
	LPAD_STREAM_OUT,
	LPAD_STREAM_ERR,
	LPAD_STREAM_STAGE,	/* stage.out, once the worker has exited */
	LPAD_STREAM_MAX
};

/*
 * Reads up to len bytes of the worker's out.log or err.log from
 * offset: the number read, 0 at the end, -1 on error (ERANGE: the
 * file is shorter than offset, as after logrotate's copytruncate).
 * Refuses symlinks, non-regular files and files with more than one
 * link, as the worker's user owns that folder.
 */
ssize_t	lpad_read_log(const char *state_dir, const char *worker,
	    enum lpad_stream, uint64_t offset, void *buf, size_t len);
/*
 * Removes STATEDIR/workers/W and the files a launch pad makes in it,
 * without following links; -1 with errno (ENOTEMPTY: something else).
 */
int	lpad_remove_folder(const char *state_dir, const char *worker);
/*
 * The worker's status file, once it has exited: st_state, st_how,
 * st_code, st_start_ms and st_end_ms are set, the rest left alone.
 * -1 with ENOENT while it runs, EBADMSG if the file is malformed.
 */
int	lpad_read_exit(const char *state_dir, const char *worker,
	    struct lpad_status *);

/*
 * The daemon side, for CilkLaunchPad's main: new (validates the spec
 * against who we are), setup (folders, files, socket), attach (signals
 * and socket on the loop), start (fork the worker), then the loop; the
 * loop is broken when the launch pad is done.
 */
struct lpad_pad;
struct evloop;

struct lpad_pad_args {
	const char	*pa_run_dir;
	const char	*pa_state_dir;
	double		 pa_stop_grace;	/* for SIGTERM */
	double		 pa_linger;
};

struct lpad_pad	*lpad_pad_new(const struct lpad_spec *,
		    const struct lpad_pad_args *, char *why, size_t whysz);
void		 lpad_pad_free(struct lpad_pad *);
int		 lpad_pad_setup(struct lpad_pad *, char *why, size_t whysz);
int		 lpad_pad_attach(struct lpad_pad *, struct evloop *);
int		 lpad_pad_start(struct lpad_pad *, char *why, size_t whysz);
/* The job's user: uid, gid and name, for the caller's privilege drop. */
uid_t		 lpad_pad_uid(const struct lpad_pad *);
gid_t		 lpad_pad_gid(const struct lpad_pad *);
const char	*lpad_pad_user(const struct lpad_pad *);
/* Removes the socket (if we still may) and lpad.pid. */
void		 lpad_pad_cleanup(struct lpad_pad *);
/* Startup failed after start: SIGKILL the worker's group, clean up. */
void		 lpad_pad_abort(struct lpad_pad *);

#endif
