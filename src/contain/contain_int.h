/*
 * contain_int — what the files of src/contain share, and the parsers
 * the unit test reaches directly (they take text, not /proc).
 */
#ifndef CILKNOW_CONTAIN_INT_H
#define CILKNOW_CONTAIN_INT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "contain.h"

#define CONTAIN_WORKER_MAX	32	/* characters of a worker id */
#define CONTAIN_NAME_MAX	64	/* characters of a base's name */
#define CONTAIN_FILE_MAX	(16u << 20)	/* bytes read of one file */
#define CONTAIN_PASSES		64	/* rounds of read-and-signal */

/* One process of /proc: its parent and its state letter. */
struct contain_proc {
	pid_t	cp_pid;
	pid_t	cp_ppid;
	char	cp_state;
};

/*
 * The cgroup2 mount of mountinfo text: with under NULL the first one,
 * else the one whose mount point holds the path under (the longest).
 * mnt gets the mount point, root the folder of the cgroup2 hierarchy
 * mounted there (usually "/").  -1 ENOENT if none, EINVAL if garbled,
 * ENAMETOOLONG.
 */
int	contain_mountinfo_cgroup2(const char *text, const char *under,
	    char *mnt, size_t mntsz, char *root, size_t rootsz);
/* The path of the "0::" line of /proc/PID/cgroup text; -1 ENOENT. */
int	contain_cgroup_line(const char *text, char *path, size_t pathsz);
/*
 * Is the cgroup path (as /proc/PID/cgroup names it) a worker's of the
 * base whose path is base: base/w-ID, or below it?  1 or 0.
 */
int	contain_cgpath_is_worker(const char *base, const char *path);
/* The parent and state of /proc/PID/stat text; -1 EINVAL. */
int	contain_stat_parse(const char *text, pid_t *ppid, char *state);
/* [a-z0-9][a-z0-9-]*, at most CONTAIN_WORKER_MAX: 1 or 0. */
int	contain_worker_ok(const char *worker);
/* Is the state letter one of a process that has ended (Z, X)? */
int	contain_state_dead(char state);

/* Whole small files: NUL-terminated, -1 with errno (E2BIG if over). */
int	contain_read(const char *path, char **text, size_t *len);
int	contain_read_buf(const char *path, char *buf, size_t bufsz);
/* One write(2) of text, as cgroup files want; -1 with errno. */
int	contain_write(const char *path, const char *text);
/* dir + "/" + file into buf; -1 ENAMETOOLONG. */
int	contain_join(char *buf, size_t bufsz, const char *dir,
	    const char *file);

/* Every process of /proc, in *procs (free it); -1 with errno. */
int	contain_proc_scan(struct contain_proc **procs, size_t *n);
/*
 * Marks in desc[i] (n bytes) every process of procs descending from
 * root, not root itself, and counts them (the dead too); -1 ENOMEM.
 */
int	contain_proc_descendants(const struct contain_proc *procs, size_t n,
	    pid_t root, unsigned char *desc, size_t *count);
/* The parent and state of a live pid, from /proc; -1 with errno. */
int	contain_proc_parent(pid_t pid, pid_t *ppid, char *state);

#endif
