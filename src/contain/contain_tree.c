/*
 * contain_tree — processes as /proc shows them: who is whose parent,
 * who has ended, and whether a process belongs to a worker (by its
 * cgroup, or by descending from a launch pad that is a subreaper).
 */
#include "contain_int.h"

#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROC_STAT_MAX	4096	/* /proc/PID/stat is about 300 bytes */
#define CHAIN_MAX	4096	/* ancestors walked before giving up */

static int	ppidcmp(const void *, const void *, void *);
static int	pid_parse(const char *, pid_t *);
static int	is_worker_tree(pid_t, const pid_t *, size_t);

int
contain_state_dead(char state)
{
	/* Z zombie, X dead (seldom seen), x dead on kernels 3.x */
	return state == 'Z' || state == 'X' || state == 'x';
}

int
contain_stat_parse(const char *text, pid_t *ppid, char *state)
{
	const char *p;
	char *end;
	long v;

	/* comm may hold anything, ')' too: the last one ends it */
	if ((p = strrchr(text, ')')) == NULL || p[1] != ' ' ||
	    !isalpha((unsigned char)p[2]) || p[3] != ' ' ||
	    p[4] < '0' || p[4] > '9') {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	v = strtol(p + 4, &end, 10);
	if (errno != 0 || v < 0 || v > INT_MAX ||
	    (*end != ' ' && *end != '\n' && *end != '\0')) {
		errno = EINVAL;
		return -1;
	}
	*state = p[2];
	*ppid = (pid_t)v;
	return 0;
}

/* A positive decimal pid, all of s; -1 otherwise. */
static int
pid_parse(const char *s, pid_t *pid)
{
	char *end;
	long v;

	if (*s < '1' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT_MAX)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

int
contain_proc_parent(pid_t pid, pid_t *ppid, char *state)
{
	char path[64], buf[PROC_STAT_MAX];
	int n;

	if (pid <= 0) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (contain_read_buf(path, buf, sizeof(buf)) == -1) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	return contain_stat_parse(buf, ppid, state);
}

int
contain_proc_scan(struct contain_proc **procs, size_t *np)
{
	struct contain_proc *v = NULL, *nv;
	struct dirent *de;
	size_t n = 0, cap = 0, ncap;
	DIR *d;
	pid_t pid, ppid;
	char state;
	int saved;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0)
				goto fail;
			break;
		}
		if (pid_parse(de->d_name, &pid) == -1)
			continue;
		/* gone since readdir, or not ours to read: not there */
		if (contain_proc_parent(pid, &ppid, &state) == -1)
			continue;
		if (n == cap) {
			ncap = cap == 0 ? 256 : cap * 2;
			if ((nv = reallocarray(v, ncap, sizeof(*v))) == NULL)
				goto fail;
			v = nv;
			cap = ncap;
		}
		v[n].cp_pid = pid;
		v[n].cp_ppid = ppid;
		v[n].cp_state = state;
		n++;
	}
	if (closedir(d) == -1) {
		d = NULL;
		goto fail;
	}
	*procs = v;
	*np = n;
	return 0;
fail:
	saved = errno;
	if (d != NULL)
		closedir(d);
	free(v);
	errno = saved;
	return -1;
}

int
contain_end_orphans(int (*keep)(pid_t, void *), void *arg)
{
	struct contain_proc *procs;
	size_t n, i;
	pid_t self = getpid();
	int ended = 0, status;

	if (contain_proc_scan(&procs, &n) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (procs[i].cp_ppid != self || keep(procs[i].cp_pid, arg))
			continue;
		if (contain_state_dead(procs[i].cp_state))
			(void)waitpid(procs[i].cp_pid, &status, WNOHANG);
		else if (kill(procs[i].cp_pid, SIGKILL) == 0)
			ended++;
	}
	free(procs);
	return ended;
}

static int
ppidcmp(const void *a, const void *b, void *arg)
{
	const struct contain_proc *procs = arg;
	pid_t x = procs[*(const size_t *)a].cp_ppid;
	pid_t y = procs[*(const size_t *)b].cp_ppid;

	return x < y ? -1 : x > y;
}

int
contain_proc_descendants(const struct contain_proc *procs, size_t n,
    pid_t root, unsigned char *desc, size_t *count)
{
	size_t *byppid, *queue, head = 0, tail = 0, lo, hi, mid, i, j;
	pid_t parent;

	*count = 0;
	if (n == 0)
		return 0;
	memset(desc, 0, n);
	if ((byppid = reallocarray(NULL, n, sizeof(size_t))) == NULL)
		return -1;
	if ((queue = reallocarray(NULL, n, sizeof(size_t))) == NULL) {
		free(byppid);
		return -1;
	}
	for (i = 0; i < n; i++)
		byppid[i] = i;
	qsort_r(byppid, n, sizeof(size_t), ppidcmp, (void *)(uintptr_t)procs);

	/*
	 * Breadth first from root.  A snapshot taken while pids are reused
	 * could hold a cycle: marking before queueing visits each once.
	 */
	parent = root;
	for (;;) {
		lo = 0;
		hi = n;
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (procs[byppid[mid]].cp_ppid < parent)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < n && procs[byppid[j]].cp_ppid == parent;
		    j++) {
			i = byppid[j];
			if (desc[i] || procs[i].cp_pid == root)
				continue;
			desc[i] = 1;
			queue[tail++] = i;
			(*count)++;
		}
		if (head == tail)
			break;
		parent = procs[queue[head++]].cp_pid;
	}
	free(queue);
	free(byppid);
	return 0;
}

int
contain_cgroup_line(const char *text, char *path, size_t pathsz)
{
	const char *p, *nl;
	size_t len;

	for (p = text; *p != '\0'; p = nl + (*nl == '\n')) {
		nl = strchrnul(p, '\n');
		if (strncmp(p, "0::", 3) != 0)
			continue;
		p += 3;
		len = (size_t)(nl - p);
		if (len == 0 || *p != '/') {
			errno = EINVAL;
			return -1;
		}
		if (len >= pathsz) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(path, p, len);
		path[len] = '\0';
		return 0;
	}
	errno = ENOENT;
	return -1;
}

int
contain_cgpath_is_worker(const char *base, const char *path)
{
	size_t len = strlen(base);

	while (len > 0 && base[len - 1] == '/')
		len--;		/* the base "/" is the empty prefix */
	if (strncmp(path, base, len) != 0)
		return 0;
	path += len;
	if (strncmp(path, "/w-", 3) != 0)
		return 0;
	path += 3;
	return *path != '\0' && *path != '/';
}

/* Does pid descend from one of roots?  Walks its parents up to init. */
static int
is_worker_tree(pid_t pid, const pid_t *roots, size_t n)
{
	pid_t p;
	size_t i, steps;
	char state;
	int tries;

	/* an ancestor ending while we walk breaks the chain: walk again */
	for (tries = 0; tries < 3; tries++) {
		if (contain_proc_parent(pid, &p, &state) == -1)
			return -1;
		for (steps = 0; steps < CHAIN_MAX; steps++) {
			for (i = 0; i < n; i++)
				if (roots[i] == p)
					return 1;
			if (p <= 1)
				return 0;
			if (contain_proc_parent(p, &p, &state) == -1)
				break;
		}
		if (steps == CHAIN_MAX)
			return 0;
	}
	return 0;
}

int
contain_pid_is_worker(const struct contain_base *cb, pid_t pid,
    const pid_t *roots, size_t n)
{
	char path[64], *text, cgpath[PATH_MAX];
	int len, saved;

	if (cb == NULL || pid <= 0 || (n > 0 && roots == NULL)) {
		errno = EINVAL;
		return -1;
	}
	switch (cb->cb_mech) {
	case CONTAIN_TREE:
		return is_worker_tree(pid, roots, n);
	case CONTAIN_CGROUP:
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	len = snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
	if (len < 0 || (size_t)len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (contain_read(path, &text, NULL) == -1) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	if (contain_cgroup_line(text, cgpath, sizeof(cgpath)) == -1) {
		saved = errno;
		free(text);
		errno = saved;
		return -1;
	}
	free(text);
	return contain_cgpath_is_worker(cb->cb_cgpath, cgpath);
}
