/*
 * contain_ops — a worker's cgroup (or process tree) once it exists:
 * making it, entering it, signalling, killing, freezing and counting
 * what is in it, and the small file helpers cgroupfs wants.
 */
#include "contain_int.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Pids already signalled, sorted after every pass for bsearch. */
struct pidset {
	pid_t	*ps_v;
	size_t	 ps_n;
	size_t	 ps_cap;
	size_t	 ps_sorted;	/* ps_v[0 .. ps_sorted) is sorted */
};

static int	pidcmp(const void *, const void *);
static int	pidset_has(const struct pidset *, pid_t);
static int	pidset_add(struct pidset *, pid_t);
static void	pidset_sort(struct pidset *);
static int	parse_pids(const char *, struct pidset *);
static int	members(const char *, pid_t, struct pidset *);
static int	signal_members(const char *, pid_t, int);
static int	limit_write(const char *, const char *, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
static void	skip_add(char *, size_t, const char *);
static void	pause_ms(long);

int
contain_join(char *buf, size_t bufsz, const char *dir, const char *file)
{
	int n;

	n = snprintf(buf, bufsz, "%s/%s", dir, file);
	if (n < 0 || (size_t)n >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
contain_read(const char *path, char **text, size_t *len)
{
	char *buf = NULL, *nbuf;
	size_t cap = 0, have = 0;
	ssize_t r;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		if (have + 1 >= cap) {
			if (cap >= CONTAIN_FILE_MAX) {
				errno = E2BIG;
				goto fail;
			}
			cap = cap == 0 ? 4096 : cap * 2;
			if ((nbuf = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nbuf;
		}
		r = read(fd, buf + have, cap - have - 1);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			goto fail;
		if (r == 0)
			break;
		have += (size_t)r;
	}
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	buf[have] = '\0';
	*text = buf;
	if (len != NULL)
		*len = have;
	return 0;
fail:
	saved = errno;
	if (fd != -1)
		close(fd);
	free(buf);
	errno = saved;
	return -1;
}

int
contain_read_buf(const char *path, char *buf, size_t bufsz)
{
	size_t have = 0;
	ssize_t r;
	int fd, saved;

	if (bufsz < 2) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		/* one byte more than fits tells a file too long */
		r = read(fd, buf + have, bufsz - have);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			goto fail;
		if (r == 0)
			break;
		have += (size_t)r;
		if (have == bufsz) {
			errno = E2BIG;
			goto fail;
		}
	}
	if (close(fd) == -1)
		return -1;
	buf[have] = '\0';
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
contain_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t w;
	int fd, saved;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	/* cgroupfs takes each value in one write: no partial retries */
	do
		w = write(fd, text, len);
	while (w == -1 && errno == EINTR);
	if (w == -1 || (size_t)w != len) {
		saved = w == -1 ? errno : EIO;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

static int
pidcmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return x < y ? -1 : x > y;
}

static int
pidset_has(const struct pidset *s, pid_t pid)
{
	size_t i;

	if (s->ps_sorted > 0 && bsearch(&pid, s->ps_v, s->ps_sorted,
	    sizeof(pid_t), pidcmp) != NULL)
		return 1;
	for (i = s->ps_sorted; i < s->ps_n; i++)
		if (s->ps_v[i] == pid)
			return 1;
	return 0;
}

static int
pidset_add(struct pidset *s, pid_t pid)
{
	pid_t *nv;
	size_t ncap;

	if (s->ps_n == s->ps_cap) {
		ncap = s->ps_cap == 0 ? 64 : s->ps_cap * 2;
		if ((nv = reallocarray(s->ps_v, ncap, sizeof(pid_t))) == NULL)
			return -1;
		s->ps_v = nv;
		s->ps_cap = ncap;
	}
	s->ps_v[s->ps_n++] = pid;
	return 0;
}

static void
pidset_sort(struct pidset *s)
{
	if (s->ps_n > 1)
		qsort(s->ps_v, s->ps_n, sizeof(pid_t), pidcmp);
	s->ps_sorted = s->ps_n;
}

/* The pids of cgroup.procs text, one a line, into s (unsorted). */
static int
parse_pids(const char *text, struct pidset *s)
{
	const char *p = text;
	char *end;
	long v;

	while (*p != '\0') {
		if (*p == '\n') {
			p++;
			continue;
		}
		if (*p < '0' || *p > '9') {
			errno = EINVAL;
			return -1;
		}
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno != 0 || v <= 0 || v > INT_MAX ||
		    (*end != '\n' && *end != '\0')) {
			errno = EINVAL;
			return -1;
		}
		if (pidset_add(s, (pid_t)v) == -1)
			return -1;
		p = end;
	}
	return 0;
}

/*
 * The worker's processes now: cg's cgroup.procs, or with cg "" the live
 * descendants of root in /proc (the dead cannot be signalled, only
 * reaped, and are not counted).  ENOENT: the cgroup is gone.
 */
static int
members(const char *cg, pid_t root, struct pidset *now)
{
	struct contain_proc *procs;
	unsigned char *desc = NULL;
	char path[PATH_MAX], *text;
	size_t i, n, ndesc;
	int rc = -1, saved;

	memset(now, 0, sizeof(*now));
	if (cg[0] != '\0') {
		if (contain_join(path, sizeof(path), cg, "cgroup.procs") == -1 ||
		    contain_read(path, &text, NULL) == -1)
			return -1;
		if ((rc = parse_pids(text, now)) == -1) {
			saved = errno;
			free(now->ps_v);
			memset(now, 0, sizeof(*now));
			errno = saved;
		}
		free(text);
		return rc;
	}
	if (root <= 1) {
		errno = EINVAL;
		return -1;
	}
	if (contain_proc_scan(&procs, &n) == -1)
		return -1;
	if ((desc = calloc(n == 0 ? 1 : n, 1)) == NULL ||
	    contain_proc_descendants(procs, n, root, desc, &ndesc) == -1)
		goto out;
	for (i = 0; i < n; i++)
		if (desc[i] && !contain_state_dead(procs[i].cp_state) &&
		    pidset_add(now, procs[i].cp_pid) == -1)
			goto out;
	rc = 0;
 out:
	saved = errno;
	free(desc);
	free(procs);
	if (rc == -1) {
		free(now->ps_v);
		memset(now, 0, sizeof(*now));
	}
	errno = saved;
	return rc;
}

/*
 * Signals everyone not signalled before, until a pass finds nobody new:
 * a process forking while we look is caught by the next pass, and one
 * with a fatal signal pending cannot fork.
 */
static int
signal_members(const char *cg, pid_t root, int signo)
{
	struct pidset done = { NULL, 0, 0, 0 }, now;
	size_t i, fresh;
	int pass, count = 0, err = 0, saved;

	for (pass = 0; pass < CONTAIN_PASSES; pass++) {
		if (members(cg, root, &now) == -1) {
			if (pass == 0 || errno != ENOENT)
				goto fail;
			break;		/* gone meanwhile: nobody left */
		}
		for (i = fresh = 0; i < now.ps_n; i++) {
			if (pidset_has(&done, now.ps_v[i]))
				continue;
			if (pidset_add(&done, now.ps_v[i]) == -1) {
				saved = errno;
				free(now.ps_v);
				errno = saved;
				goto fail;
			}
			fresh++;
			if (kill(now.ps_v[i], signo) == 0)
				count++;
			else if (errno != ESRCH && err == 0)
				err = errno;
		}
		free(now.ps_v);
		pidset_sort(&done);
		if (fresh == 0)
			break;
	}
	free(done.ps_v);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return count;
fail:
	saved = errno;
	free(done.ps_v);
	errno = saved;
	return -1;
}

static void
pause_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

int
contain_worker_path(const struct contain_base *cb, const char *worker,
    char *cg, size_t cgsz)
{
	int n;

	if (cb == NULL || cg == NULL || cgsz == 0 || worker == NULL ||
	    !contain_worker_ok(worker)) {
		errno = EINVAL;
		return -1;
	}
	switch (cb->cb_mech) {
	case CONTAIN_TREE:
		cg[0] = '\0';
		return 0;
	case CONTAIN_CGROUP:
		n = snprintf(cg, cgsz, "%s/w-%s", cb->cb_path, worker);
		if (n < 0 || (size_t)n >= cgsz) {
			cg[0] = '\0';
			errno = ENAMETOOLONG;
			return -1;
		}
		return 0;
	default:
		errno = EINVAL;
		return -1;
	}
}

/* Appends a word to the space-separated list of skipped limits. */
static void
skip_add(char *skipped, size_t skippedsz, const char *what)
{
	const char *p;
	size_t len = strlen(what);

	if (skipped == NULL || skippedsz == 0)
		return;
	for (p = skipped; (p = strstr(p, what)) != NULL; p += len)
		if ((p == skipped || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '\0'))
			return;		/* said already */
	if (skipped[0] != '\0')
		strlcat(skipped, " ", skippedsz);
	strlcat(skipped, what, skippedsz);
}

/* Writes one limit file of cg; -1 with errno. */
static int
limit_write(const char *cg, const char *file, const char *fmt, ...)
{
	char path[PATH_MAX], val[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(val)) {
		errno = EINVAL;
		return -1;
	}
	if (contain_join(path, sizeof(path), cg, file) == -1)
		return -1;
	return contain_write(path, val);
}

int
contain_worker_create(const struct contain_base *cb, const char *worker,
    const struct contain_limits *cl, char *cg, size_t cgsz, char *skipped,
    size_t skippedsz)
{
	struct contain_limits none;
	unsigned ctl;
	int saved;

	if (skipped != NULL && skippedsz > 0)
		skipped[0] = '\0';
	if (cl == NULL) {
		memset(&none, 0, sizeof(none));
		none.cl_cpu_idle = -1;
		cl = &none;
	}
	if (cl->cl_cpu_weight > 10000 || cl->cl_io_weight > 10000 ||
	    cl->cl_cpu_idle < -1 || cl->cl_cpu_idle > 1) {
		errno = EINVAL;
		return -1;
	}
	if (contain_worker_path(cb, worker, cg, cgsz) == -1)
		return -1;
	ctl = cb->cb_mech == CONTAIN_CGROUP ? cb->cb_controllers : 0;
	if (cl->cl_memory_high != 0 || cl->cl_memory_max != 0) {
		if (!(ctl & CONTAIN_CTL_MEMORY))
			skip_add(skipped, skippedsz, "memory");
	}
	if (cl->cl_pids_max != 0 && !(ctl & CONTAIN_CTL_PIDS))
		skip_add(skipped, skippedsz, "pids");
	if ((cl->cl_cpu_weight != 0 || cl->cl_cpu_idle != -1 ||
	    cl->cl_cpu_max != 0) && !(ctl & CONTAIN_CTL_CPU))
		skip_add(skipped, skippedsz, "cpu");
	if (cl->cl_io_weight != 0 && !(ctl & CONTAIN_CTL_IO))
		skip_add(skipped, skippedsz, "io");
	if (cb->cb_mech == CONTAIN_TREE)
		return 0;

	/* a worker id is never reused: an existing cgroup is a mistake */
	if (mkdir(cg, 0755) == -1)
		return -1;
	if ((ctl & CONTAIN_CTL_MEMORY) && cl->cl_memory_high != 0 &&
	    limit_write(cg, "memory.high", "%" PRIu64,
	    cl->cl_memory_high) == -1)
		goto fail;
	if ((ctl & CONTAIN_CTL_MEMORY) && cl->cl_memory_max != 0 &&
	    limit_write(cg, "memory.max", "%" PRIu64,
	    cl->cl_memory_max) == -1)
		goto fail;
	if ((ctl & CONTAIN_CTL_PIDS) && cl->cl_pids_max != 0 &&
	    limit_write(cg, "pids.max", "%" PRIu64, cl->cl_pids_max) == -1)
		goto fail;
	if ((ctl & CONTAIN_CTL_CPU) && cl->cl_cpu_weight != 0 &&
	    limit_write(cg, "cpu.weight", "%" PRIu32,
	    cl->cl_cpu_weight) == -1)
		goto fail;
	/* N processors: N periods of run time in every period. */
	if ((ctl & CONTAIN_CTL_CPU) && cl->cl_cpu_max != 0 &&
	    limit_write(cg, "cpu.max", "%" PRIu64 " 100000",
	    (uint64_t)cl->cl_cpu_max * 100000) == -1)
		goto fail;
	if ((ctl & CONTAIN_CTL_CPU) && cl->cl_cpu_idle != -1 &&
	    limit_write(cg, "cpu.idle", "%d", cl->cl_cpu_idle) == -1) {
		/* cpu.idle came with Linux 5.15; older ones lack the file */
		if (errno != ENOENT)
			goto fail;
		skip_add(skipped, skippedsz, "cpu.idle");
	}
	if ((ctl & CONTAIN_CTL_IO) && cl->cl_io_weight != 0 &&
	    limit_write(cg, "io.weight", "default %" PRIu32,
	    cl->cl_io_weight) == -1)
		goto fail;
	return 0;
fail:
	saved = errno;
	rmdir(cg);
	errno = saved;
	return -1;
}

int
contain_enter(const char *cg)
{
	char path[PATH_MAX];

	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0')
		return 0;	/* TREE: the subreaper's tree is enough */
	if (contain_join(path, sizeof(path), cg, "cgroup.procs") == -1)
		return -1;
	/* "0" is the writer itself, whatever its pid in which namespace */
	return contain_write(path, "0");
}

int
contain_signal(const char *cg, pid_t tree_root, int signo)
{
	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	return signal_members(cg, tree_root, signo);
}

int
contain_kill(const char *cg, pid_t tree_root)
{
	char path[PATH_MAX];
	int round, n;

	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] != '\0') {
		if (contain_join(path, sizeof(path), cg, "cgroup.kill") == -1)
			return -1;
		if (contain_write(path, "1") == 0)
			return 0;
		if (errno != ENOENT)
			return -1;
		/* no cgroup.kill before Linux 5.14: is the cgroup there? */
		if (contain_join(path, sizeof(path), cg,
		    "cgroup.procs") == -1)
			return -1;
		if (access(path, F_OK) == -1)
			return -1;
	}
	/*
	 * Signal until nobody is left: what was SIGKILLed but still runs
	 * (exiting, or in uninterruptible sleep) is given a moment.
	 */
	for (round = 0; round < CONTAIN_PASSES; round++) {
		if (contain_signal(cg, tree_root, SIGKILL) == -1)
			return -1;
		if ((n = contain_count(cg, tree_root)) == -1)
			return cg[0] != '\0' && errno == ENOENT ? 0 : -1;
		if (n == 0)
			break;
		pause_ms(1);
	}
	return 0;
}

int
contain_freeze(const char *cg, pid_t tree_root, int freeze)
{
	char path[PATH_MAX];

	if (cg == NULL || (freeze != 0 && freeze != 1)) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0')
		return signal_members(cg, tree_root, freeze ? SIGSTOP :
		    SIGCONT) == -1 ? -1 : 0;
	if (contain_join(path, sizeof(path), cg, "cgroup.freeze") == -1)
		return -1;
	return contain_write(path, freeze ? "1" : "0");
}

int
contain_frozen(const char *cg)
{
	char path[PATH_MAX], buf[1024];
	const char *p;

	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0') {
		errno = ENOTSUP;
		return -1;
	}
	if (contain_join(path, sizeof(path), cg, "cgroup.events") == -1 ||
	    contain_read_buf(path, buf, sizeof(buf)) == -1)
		return -1;
	for (p = buf; *p != '\0'; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (strncmp(p, "frozen ", 7) != 0)
			continue;
		if ((p[7] == '0' || p[7] == '1') &&
		    (p[8] == '\n' || p[8] == '\0'))
			return p[7] - '0';
		break;
	}
	errno = ENOTSUP;	/* a kernel without the v2 freezer (< 5.2) */
	return -1;
}

int
contain_count(const char *cg, pid_t tree_root)
{
	struct pidset now;
	size_t n;

	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (members(cg, tree_root, &now) == -1)
		return -1;
	n = now.ps_n;
	free(now.ps_v);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int
contain_cpu_usec(const char *cg, uint64_t *usec)
{
	char path[PATH_MAX], *text, *end;
	const char *p;
	unsigned long long v;
	int saved;

	if (cg == NULL || usec == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0') {
		errno = ENOTSUP;
		return -1;
	}
	if (contain_join(path, sizeof(path), cg, "cpu.stat") == -1 ||
	    contain_read(path, &text, NULL) == -1)
		return -1;
	for (p = text; *p != '\0'; p = strchrnul(p, '\n'), p += *p == '\n') {
		if (strncmp(p, "usage_usec ", 11) != 0)
			continue;
		p += 11;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v = strtoull(p, &end, 10);
		if (errno != 0 || (*end != '\n' && *end != '\0'))
			break;
		free(text);
		*usec = (uint64_t)v;
		return 0;
	}
	saved = ENOTSUP;
	free(text);
	errno = saved;
	return -1;
}

/* memory.peak: one number, the most the cgroup ever charged (5.19+). */
int
contain_mem_peak(const char *cg, uint64_t *bytes)
{
	char path[PATH_MAX], buf[32], *end;
	unsigned long long v;

	if (cg == NULL || bytes == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0') {
		errno = ENOTSUP;
		return -1;
	}
	if (contain_join(path, sizeof(path), cg, "memory.peak") == -1 ||
	    contain_read_buf(path, buf, sizeof(buf)) == -1)
		return -1;
	if (buf[0] < '0' || buf[0] > '9') {
		errno = ENOTSUP;
		return -1;
	}
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0 || (*end != '\n' && *end != '\0') ||
	    (*end == '\n' && end[1] != '\0')) {
		errno = ENOTSUP;
		return -1;
	}
	*bytes = (uint64_t)v;
	return 0;
}

int
contain_remove(const char *cg)
{
	if (cg == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (cg[0] == '\0')
		return 0;
	return rmdir(cg);
}
