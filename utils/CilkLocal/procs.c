/*
 * CilkLocal: processes.  A pid read from a file is signalled only when
 * the process is ours: it started before the file was written (so the
 * pid was not reused since) and its command line names a file of DIR,
 * its environment carries CILKNOW_LOCAL=DIR (or CILKNOW_CONF=DIR/
 * cilknow.conf), or its parent or grandparent is ours (a worker under
 * its launch pad).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "local.h"
#include "mono.h"

#define VICTIMS_MAX	4096
#define PROC_READ_MAX	(256 * 1024)	/* of a cmdline or environ */

struct proc_stat {
	char	ps_state;
	pid_t	ps_ppid;
	pid_t	ps_pgrp;
	unsigned long long ps_start;	/* clock ticks after boot */
};

/* What stop signals: a daemon, launch pad or worker, maybe a group. */
struct victim {
	pid_t	 v_pid;
	int	 v_group;	/* the leader of its process group */
	int	 v_daemon;
	char	 v_what[160];
};

struct victims {
	struct victim	*vs_v;
	size_t		 vs_n;
};

/* Reads /proc/PID/name whole (at most PROC_READ_MAX); -1 on error. */
static ssize_t
proc_read(pid_t pid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	size_t len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while (len < cap && (n = read(fd, buf + len, cap - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	return (ssize_t)len;
}

static int
proc_stat(pid_t pid, struct proc_stat *ps)
{
	char buf[1024], *p;
	ssize_t n;
	long long ppid, pgrp;

	if ((n = proc_read(pid, "stat", buf, sizeof(buf) - 1)) <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty tpgid flags ..." */
	if ((p = strrchr(buf, ')')) == NULL)
		return -1;
	if (sscanf(p + 1, " %c %lld %lld %*d %*d %*d %*u %*u %*u %*u %*u "
	    "%*u %*u %*d %*d %*d %*d %*d %*d %llu", &ps->ps_state, &ppid,
	    &pgrp, &ps->ps_start) != 4)
		return -1;
	ps->ps_ppid = (pid_t)ppid;
	ps->ps_pgrp = (pid_t)pgrp;
	return 0;
}

int
local_proc_alive(pid_t pid)
{
	struct proc_stat ps;

	if (pid <= 0 || proc_stat(pid, &ps) == -1)
		return 0;
	return ps.ps_state != 'Z' && ps.ps_state != 'X';
}

/* Some process of group pgid that is not a zombie. */
static int
group_alive(pid_t pgid)
{
	struct proc_stat ps;
	struct dirent *de;
	const char *errstr;
	pid_t pid;
	DIR *d;
	int alive = 0;

	if (kill(-pgid, 0) == -1 && errno == ESRCH)
		return 0;
	if ((d = opendir("/proc")) == NULL)
		return 1;
	while (!alive && (de = readdir(d)) != NULL) {
		pid = (pid_t)strtonum(de->d_name, 1, INT_MAX, &errstr);
		if (errstr == NULL && proc_stat(pid, &ps) == 0 &&
		    ps.ps_pgrp == pgid && ps.ps_state != 'Z' &&
		    ps.ps_state != 'X')
			alive = 1;
	}
	closedir(d);
	return alive;
}

/*
 * 1 if the NUL-separated strings name a file of the cluster: an argument
 * holding DIR/cilknow.conf, DIR/nodes/ or DIR/broker (how CilkLocal
 * starts the daemons and they start launch pads), or, in an
 * environment, CILKNOW_LOCAL=DIR or CILKNOW_CONF=DIR/cilknow.conf.
 */
static int
mentions(const char *buf, size_t len, const char *dir, int env)
{
	static const char *const args[] = { "cilknow.conf", "nodes/",
	    "broker" };
	char pat[PATH_MAX + 32];
	const char *s;
	size_t i = 0, k, slen;

	while (i < len) {
		s = buf + i;
		slen = strnlen(s, len - i);
		if (env) {
			snprintf(pat, sizeof(pat), "%s=%s", LOCAL_ENV, dir);
			if (strcmp(s, pat) == 0)
				return 1;
			snprintf(pat, sizeof(pat),
			    "CILKNOW_CONF=%s/cilknow.conf", dir);
			if (strcmp(s, pat) == 0)
				return 1;
		} else
			for (k = 0; k < sizeof(args) / sizeof(args[0]); k++) {
				snprintf(pat, sizeof(pat), "%s/%s", dir,
				    args[k]);
				if (memmem(s, slen, pat, strlen(pat)) != NULL)
					return 1;
			}
		i += slen + 1;
	}
	return 0;
}

int
local_proc_ours(const struct local *lo, pid_t pid, int depth)
{
	struct proc_stat ps;
	char *buf;
	ssize_t n;
	int ours = 0;

	if (pid <= 1 || pid == getpid() || pid == getppid())
		return 0;
	if ((buf = malloc(PROC_READ_MAX + 1)) == NULL)
		err(CLI_EXIT_FAILURE, "malloc");
	if ((n = proc_read(pid, "cmdline", buf, PROC_READ_MAX)) > 0) {
		buf[n] = '\0';
		ours = mentions(buf, (size_t)n, lo->lo_dir, 0);
	}
	if (!ours && (n = proc_read(pid, "environ", buf,
	    PROC_READ_MAX)) > 0) {
		buf[n] = '\0';
		ours = mentions(buf, (size_t)n, lo->lo_dir, 1);
	}
	free(buf);
	if (!ours && depth > 0 && proc_stat(pid, &ps) == 0)
		ours = local_proc_ours(lo, ps.ps_ppid, depth - 1);
	return ours;
}

/* 1 if pid started no later than path was last written (pid reuse). */
int
local_proc_started_before(pid_t pid, const char *path)
{
	struct proc_stat ps;
	struct timespec now, up;
	struct stat st;
	double started;
	long hz = sysconf(_SC_CLK_TCK);

	if (stat(path, &st) == -1 || proc_stat(pid, &ps) == -1 || hz <= 0 ||
	    clock_gettime(CLOCK_REALTIME, &now) == -1 ||
	    clock_gettime(CLOCK_BOOTTIME, &up) == -1)
		return 0;
	started = (double)now.tv_sec + now.tv_nsec / 1e9 -
	    ((double)up.tv_sec + up.tv_nsec / 1e9) +
	    (double)ps.ps_start / (double)hz;
	/* Tick granularity and clock reads: a second of slack. */
	return started <= (double)st.st_mtim.tv_sec +
	    st.st_mtim.tv_nsec / 1e9 + 1.0;
}

pid_t
local_spawn(const struct local *lo, const char *bin, char *const argv[],
    const char *logpath)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM,
	    SIGPIPE, SIGCHLD, SIGUSR1, SIGUSR2 };
	sigset_t none;
	pid_t pid;
	size_t i;
	int fd, null;

	(void)lo;
	if ((fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
	    O_NOFOLLOW, 0644)) == -1) {
		warn("%s", logpath);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	switch (pid = fork()) {
	case -1:
		warn("fork");
		close(fd);
		return -1;
	case 0:
		/* Its own session: it outlives us and our terminal. */
		(void)setsid();
		sigemptyset(&none);
		(void)sigprocmask(SIG_SETMASK, &none, NULL);
		for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			(void)signal(sigs[i], SIG_DFL);
		if ((null = open("/dev/null", O_RDONLY)) == -1 ||
		    dup2(null, STDIN_FILENO) == -1 ||
		    dup2(fd, STDOUT_FILENO) == -1 ||
		    dup2(fd, STDERR_FILENO) == -1)
			_exit(127);
		closefrom(STDERR_FILENO + 1);
		execv(bin, argv);
		dprintf(STDERR_FILENO, "CilkLocal: exec %s: %s\n", bin,
		    strerror(errno));
		_exit(127);
	}
	close(fd);
	return pid;
}

static int
victim_alive(const struct victim *v)
{
	return v->v_group ? group_alive(v->v_pid) : local_proc_alive(v->v_pid);
}

static void
victim_signal(const struct victim *v, int sig)
{
	if (v->v_group) {
		(void)kill(-v->v_pid, SIGCONT);
		(void)kill(-v->v_pid, sig);
	} else {
		(void)kill(v->v_pid, SIGCONT);
		(void)kill(v->v_pid, sig);
	}
}

static void
victim_add(struct victims *vs, pid_t pid, int daemon, const char *what)
{
	struct victim *v;
	size_t i;

	for (i = 0; i < vs->vs_n; i++)
		if (vs->vs_v[i].v_pid == pid)
			return;
	if (vs->vs_n == VICTIMS_MAX) {
		warnx("more than %d processes to stop; %ld left alone",
		    VICTIMS_MAX, (long)pid);
		return;
	}
	v = &vs->vs_v[vs->vs_n++];
	memset(v, 0, sizeof(*v));
	v->v_pid = pid;
	v->v_daemon = daemon;
	v->v_group = getpgid(pid) == pid;
	strlcpy(v->v_what, what, sizeof(v->v_what));
}

/* A pid file a launch pad or worker left: the pid, if it is ours. */
static void
scan_pidfile(const struct local *lo, struct victims *vs, const char *path,
    const char *what)
{
	char buf[32], label[160];
	const char *errstr;
	ssize_t n;
	pid_t pid;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
	    O_NONBLOCK)) == -1)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	buf[strcspn(buf, " \t\n")] = '\0';
	pid = (pid_t)strtonum(buf, 2, INT_MAX, &errstr);
	if (errstr != NULL || !local_proc_alive(pid))
		return;
	if (!local_proc_started_before(pid, path) ||
	    !local_proc_ours(lo, pid, 2)) {
		if (lo->lo_verbose)
			warnx("%s: pid %ld is not ours, left alone", path,
			    (long)pid);
		return;
	}
	snprintf(label, sizeof(label), "%s %s", what, path +
	    strlen(lo->lo_dir) + 1);
	victim_add(vs, pid, 0, label);
}

/* The pid files in folder ending in suffix, or folder's entries' name. */
static void
scan_dir(const struct local *lo, struct victims *vs, const char *folder,
    const char *suffix, const char *name, const char *what)
{
	char path[PATH_MAX];
	struct dirent *de;
	size_t n, sl = suffix ? strlen(suffix) : 0;
	DIR *d;

	if ((d = opendir(folder)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n = strlen(de->d_name);
		if (suffix != NULL && (n <= sl ||
		    strcmp(de->d_name + n - sl, suffix) != 0))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s%s%s", folder,
		    de->d_name, name ? "/" : "", name ? name : "") >=
		    sizeof(path))
			continue;
		scan_pidfile(lo, vs, path, what);
	}
	closedir(d);
}

/* Launch pads and workers under every DIR/nodes/HOST. */
static void
scan_nodes(const struct local *lo, struct victims *vs)
{
	char nodes[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (local_path(lo, nodes, sizeof(nodes), "nodes") == -1 ||
	    (d = opendir(nodes)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/run/lpad",
		    nodes, de->d_name) < sizeof(path))
			scan_dir(lo, vs, path, ".pid", NULL, "launch pad");
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/state/workers",
		    nodes, de->d_name) < sizeof(path)) {
			scan_dir(lo, vs, path, NULL, "lpad.pid",
			    "launch pad");
			scan_dir(lo, vs, path, NULL, "pid", "worker");
		}
	}
	closedir(d);
}

/*
 * Signals the victims from index first on (TERM, then KILL when they
 * outlast LOCAL_STOP_WAIT) and waits for them.  The number still alive.
 */
static size_t
stop_victims(struct victims *vs, size_t first, int quiet)
{
	double deadline = now_mono() + LOCAL_STOP_WAIT;
	size_t i, left;
	int killed = 0;

	for (i = first; i < vs->vs_n; i++)
		victim_signal(&vs->vs_v[i], SIGTERM);
	for (;;) {
		left = 0;
		for (i = first; i < vs->vs_n; i++)
			if (victim_alive(&vs->vs_v[i]))
				left++;
		if (left == 0)
			break;
		if (now_mono() >= deadline) {
			if (killed)
				break;
			for (i = first; i < vs->vs_n; i++)
				if (victim_alive(&vs->vs_v[i])) {
					if (!quiet)
						printf("%s (pid %ld) did not "
						    "stop within %g s: "
						    "SIGKILL\n",
						    vs->vs_v[i].v_what,
						    (long)vs->vs_v[i].v_pid,
						    LOCAL_STOP_WAIT);
					victim_signal(&vs->vs_v[i], SIGKILL);
				}
			killed = 1;
			deadline = now_mono() + 2;
		}
		/* Our own children (a failed start) must be reaped. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		usleep(50000);
	}
	for (i = first; i < vs->vs_n; i++) {
		if (victim_alive(&vs->vs_v[i]))
			warnx("%s (pid %ld) is still alive",
			    vs->vs_v[i].v_what, (long)vs->vs_v[i].v_pid);
		else if (!quiet)
			printf("stopped %s (pid %ld)\n", vs->vs_v[i].v_what,
			    (long)vs->vs_v[i].v_pid);
	}
	return left;
}

/*
 * Stops the daemons of lo->lo_d first (so no node manager starts new
 * work), then every launch pad and worker their folders name.  -1 if
 * anything is still alive afterwards.
 */
int
local_stop_all(struct local *lo, int quiet)
{
	struct victims vs;
	struct local_daemon *d;
	struct stat st;
	char what[160], pids[PATH_MAX];
	size_t i, ndaemons, left;

	memset(&vs, 0, sizeof(vs));
	if ((vs.vs_v = calloc(VICTIMS_MAX, sizeof(*vs.vs_v))) == NULL)
		err(CLI_EXIT_FAILURE, "calloc");
	/* A failed start may not have written it: its daemons are ours. */
	if (local_path(lo, pids, sizeof(pids), "pids") == -1 ||
	    stat(pids, &st) == -1)
		pids[0] = '\0';
	for (i = 0; i < lo->lo_nd; i++) {
		d = &lo->lo_d[i];
		if (d->ld_pid <= 0 || !local_proc_alive(d->ld_pid))
			continue;
		if ((pids[0] != '\0' &&
		    !local_proc_started_before(d->ld_pid, pids)) ||
		    !local_proc_ours(lo, d->ld_pid, 0)) {
			if (lo->lo_verbose)
				warnx("pid %ld (%s %s) is not ours any more, "
				    "left alone", (long)d->ld_pid,
				    local_role_name(d->ld_role), d->ld_addr);
			continue;
		}
		snprintf(what, sizeof(what), "%s %s",
		    local_role_name(d->ld_role), d->ld_addr);
		victim_add(&vs, d->ld_pid, 1, what);
	}
	/* Before the daemons go: a worker is known by its launch pad. */
	scan_nodes(lo, &vs);
	ndaemons = 0;
	for (i = 0; i < vs.vs_n; i++)
		if (vs.vs_v[i].v_daemon) {
			struct victim t = vs.vs_v[ndaemons];

			vs.vs_v[ndaemons++] = vs.vs_v[i];
			vs.vs_v[i] = t;
		}
	left = 0;
	if (ndaemons > 0) {
		struct victims dv = { vs.vs_v, ndaemons };

		left += stop_victims(&dv, 0, quiet);
	}
	/* What the node managers started while they were going. */
	scan_nodes(lo, &vs);
	if (vs.vs_n > ndaemons)
		left += stop_victims(&vs, ndaemons, quiet);
	if (!quiet && vs.vs_n == 0)
		printf("nothing was running in %s\n", lo->lo_dir);
	free(vs.vs_v);
	return left == 0 ? 0 : -1;
}
