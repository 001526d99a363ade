/*
 * contain — every process of a worker, as the kernel knows them: one
 * cgroup v2 per worker under a base the node manager owns, so that
 * stopping a worker reaches what it forked, setsid()ed or daemon()ized
 * (DESIGN.md §4.6, §9), and freezing it stops all of it at once.
 *
 * Where no usable cgroup v2 is there (none mounted, not delegated to
 * us, or `cgroup = none`), the fallback is weaker and says so: the
 * launch pad is a child subreaper (PR_SET_CHILD_SUBREAPER), so orphans
 * of the worker become its children, and "every process of the
 * worker" is every descendant of the launch pad found in /proc.  A
 * process that escapes that tree (it would need help from outside) is
 * not found.
 *
 * Layout under the base B (a folder in a cgroup2 mount):
 *	B/cgroup.subtree_control	controllers enabled for workers
 *	B/daemon/			the node manager itself, when B is
 *					its own (systemd Delegate=yes) cgroup
 *	B/w-W/				worker W: its limits, its processes
 */
#ifndef CILKNOW_CONTAIN_H
#define CILKNOW_CONTAIN_H

#include <sys/types.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

enum contain_mech {
	CONTAIN_UNDEF = 0,
	CONTAIN_CGROUP,		/* cgroup v2, one per worker */
	CONTAIN_TREE,		/* subreaper + /proc descendants */
	CONTAIN_MECH_MAX
};

/* Controllers, as bits of cb_controllers. */
#define CONTAIN_CTL_MEMORY	0x1
#define CONTAIN_CTL_PIDS	0x2
#define CONTAIN_CTL_CPU		0x4
#define CONTAIN_CTL_IO		0x8
#define CONTAIN_CTL_ALL		0xf

struct contain_base {
	enum contain_mech cb_mech;
	char		 cb_path[PATH_MAX];	/* the base B; "" for TREE */
	char		 cb_cgpath[PATH_MAX];	/* B as /proc/PID/cgroup
						   names it; "" for TREE */
	unsigned	 cb_controllers;	/* enabled for workers */
	char		 cb_why[256];		/* why TREE, or "" */
};

/* Limits for one worker; 0 (or -1 for cpu_idle) leaves one unset. */
struct contain_limits {
	uint64_t	cl_memory_high;		/* bytes: memory.high */
	uint64_t	cl_memory_max;		/* bytes: memory.max */
	uint64_t	cl_pids_max;		/* pids.max */
	uint32_t	cl_cpu_weight;		/* 1..10000: cpu.weight */
	uint32_t	cl_cpu_max;		/* processors: cpu.max */
	int		cl_cpu_idle;		/* 1, 0, or -1 unset */
	uint32_t	cl_io_weight;		/* 1..10000: io.weight */
};

/*
 * Chooses the mechanism from setting (the `cgroup` config key):
 *	"none"	TREE, with cb_why saying it was configured;
 *	"auto"	the cgroup2 mount (from /proc/self/mountinfo) and our own
 *		cgroup (the "0::" line of /proc/self/cgroup): if that
 *		cgroup was delegated to us (systemd's trusted.delegate or
 *		user.delegate xattr) it is the base and we move ourselves
 *		into B/daemon; else, as root, B = MOUNT/cilknow/NAME; else
 *		TREE with the reason;
 *	"/PATH"	an absolute folder inside a cgroup2 mount: the base.
 * The base is created if missing (mode 0755) and must be writable;
 * then every controller of memory, pids, cpu and io that B's
 * cgroup.controllers offers is enabled in B/cgroup.subtree_control
 * (those it cannot enable are left out of cb_controllers).  name is
 * what keeps several node managers on one host apart ([A-Za-z0-9._-]).
 * Returns 0 with cb filled in (TREE is a success, with cb_why), or -1
 * with err for a setting that is malformed or names a folder that is
 * not in a cgroup2 mount (fail closed: the administrator asked for it).
 */
int	contain_base_init(struct contain_base *, const char *setting,
	    const char *name, char *err, size_t errlen);
/*
 * The controllers whose limits workers here cannot be held to: those
 * not enabled for them, every one for TREE (CONTAIN_CTL_* bits).
 */
unsigned	 contain_unenforced(const struct contain_base *);
/* The names of the controllers in bits, "memory pids"; "" for none. */
const char	*contain_ctl_names(unsigned bits, char *buf, size_t bufsz);
/* "cgroup v2 at B (memory pids)" or "process tree (no cgroup: why)". */
const char *contain_base_describe(const struct contain_base *, char *buf,
	    size_t bufsz);

/*
 * A worker's cgroup B/w-W: cg gets its path.  Creating refuses an
 * existing one (EEXIST: a worker id is never reused) and writes the
 * limits the base's controllers allow; limits it cannot apply are
 * skipped and named in skipped (may be NULL), e.g. "memory pids".
 * TREE: nothing to make, cg is set to "".
 */
int	contain_worker_path(const struct contain_base *, const char *worker,
	    char *cg, size_t cgsz);
int	contain_worker_create(const struct contain_base *, const char *worker,
	    const struct contain_limits *, char *cg, size_t cgsz,
	    char *skipped, size_t skippedsz);
/* In the forked child, before dropping root: move ourselves into cg. */
int	contain_enter(const char *cg);

/*
 * Signals every process of the worker: those in cg (cgroup.procs,
 * read until a pass finds nobody new, bounded), or with cg "" every
 * descendant of tree_root (its /proc children, recursively).  Returns
 * how many processes were signalled, or -1 with errno.
 */
int	contain_signal(const char *cg, pid_t tree_root, int signo);
/*
 * SIGKILL to all: cgroup.kill where the kernel has it, else signal.
 * 0 once every process was sent it (contain_count says when they are
 * gone), or -1 with errno.
 */
int	contain_kill(const char *cg, pid_t tree_root);
/*
 * Freezes (1) or thaws (0): cgroup.freeze, or SIGSTOP / SIGCONT to
 * every process (tree).  A frozen cgroup's processes stop at once and
 * use no CPU; contain_frozen says whether the kernel reports it done.
 */
int	contain_freeze(const char *cg, pid_t tree_root, int freeze);
/* 1 frozen, 0 not (yet), -1 error (cgroup only; TREE: -1 ENOTSUP). */
int	contain_frozen(const char *cg);
/*
 * For a subreaper (PR_SET_CHILD_SUBREAPER) of launch pads: when one
 * dies, the processes it policed become this process's children.
 * Sends SIGKILL to each child that keep(pid, arg) does not claim and
 * reaps each unclaimed one that has ended; how many were signalled, or
 * -1 with errno.  Their own children come next, as they die.
 */
int	contain_end_orphans(int (*keep)(pid_t, void *), void *arg);
/* How many processes the worker has now (cgroup.procs or the tree). */
int	contain_count(const char *cg, pid_t tree_root);
/* CPU used by the worker's processes, microseconds: cpu.stat (not TREE). */
int	contain_cpu_usec(const char *cg, uint64_t *usec);
/*
 * The most memory the worker's cgroup was ever charged, bytes:
 * memory.peak (Linux 5.19, the memory controller); -1 ENOENT without
 * it, ENOTSUP for TREE or a malformed file.
 */
int	contain_mem_peak(const char *cg, uint64_t *bytes);
/* Removes an empty worker cgroup; -1 EBUSY while processes remain. */
int	contain_remove(const char *cg);

/*
 * 1 if pid is in one of the base's worker cgroups (its /proc/PID/cgroup
 * names B/w-*), 0 if not, -1 if it cannot be told (no such process).
 * For TREE: 1 if pid descends from a process of `roots` (n of them).
 */
int	contain_pid_is_worker(const struct contain_base *, pid_t pid,
	    const pid_t *roots, size_t n);

/*
 * Parses a limit value: a size "512M", "2G", "1048576", "50%" (of
 * physical memory, from sysconf), or "none" (0).  -1 if malformed.
 */
int	contain_parse_size(const char *text, uint64_t *bytes);
/*
 * The processors cgroup v2 cpu.max quotas allow this process: the
 * least, rounded up, over its cgroup and every ancestor below the
 * mount (a systemd CPUQuota= is on the unit's, above the daemon's);
 * 0 if none sets one or there is no cgroup v2.  _dir walks from the
 * folder dir up to top.
 */
uint32_t contain_cpu_quota(void);
uint32_t contain_cpu_quota_dir(const char *top, const char *dir);

#endif
