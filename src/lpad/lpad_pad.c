/*
 * lpad_pad — the launch pad daemon's machinery (CilkLaunchPad's main
 * drives it): check the spec against who we are, make the worker's
 * folder, files and control socket, fork the worker into its own
 * session as the job's user, then serve the control socket, reap the
 * worker, keep STOP's timing and record the exit status.
 *
 * Files in STATEDIR/workers/W are reached through a descriptor of that
 * folder opened before any privilege drop, with O_NOFOLLOW, so neither
 * the user (who owns the folder) nor a dropped launch pad needs to
 * traverse STATEDIR.  The socket is bound under a temporary name and
 * renamed into place once it listens, so a client never finds a socket
 * nobody listens on while we start.
 */
#include "lpad.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

/*
 * <sched.h> is shadowed by our own include/sched.h (-Iinclude), so the
 * policy constant and the parameter come from the kernel's headers and
 * the call goes through syscall(2).
 */
#include <linux/sched.h>
#include <linux/sched/types.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "contain.h"
#include "evloop.h"
#include "log.h"
#include "mono.h"
#include "errbuf.h"

#define PAD_CLIENTS_MAX		16
#define PAD_EXEC_WAIT		2	/* s to learn if exec worked */
#define PAD_BAD_LOG_EVERY	60	/* s between malformed reports */
#define PAD_GONE_WAIT		2	/* s for leftovers to die */
#define PAD_SUN_PATH	sizeof(((struct sockaddr_un *)NULL)->sun_path)

struct lpad_pad {
	struct lpad_spec	 pd_spec;
	char			 pd_node[LPAD_NODE_MAX + 1];
	char			 pd_home[LPAD_PATH_MAX];
	char			 pd_sock_dir[LPAD_PATH_MAX];
	char			 pd_sock[LPAD_PATH_MAX];
	char			 pd_sock_tmp[LPAD_PATH_MAX + 16];
	char			 pd_state_dir[LPAD_PATH_MAX];
	uid_t			 pd_uid;	/* the job's user */
	gid_t			 pd_gid;
	uid_t			 pd_manager;	/* our euid at start */
	int			 pd_root;	/* we started as root */
	double			 pd_stop_grace;
	double			 pd_linger;

	int			 pd_wfd;	/* STATEDIR/workers/W */
	int			 pd_taskfd;	/* W/task (lpad_stage.c) */
	int			 pd_spoolfd;	/* the stage-in bytes */
	int			 pd_outfd;
	int			 pd_errfd;
	int			 pd_nullfd;
	int			 pd_lfd;	/* listening socket */
	int			 pd_sock_placed;
	int			 pd_pidfile;	/* lpad.pid is ours */
	int			 pd_wdir_made;	/* we made workers/W */
	int			 pd_relayed;	/* QUIT: W may go with us */
	int			 pd_clients[PAD_CLIENTS_MAX];
	int			 pd_nclients;
	struct evloop		*pd_el;

	pid_t			 pd_pid;	/* worker, and its pgid */
	uint64_t		 pd_start_ms;
	uint64_t		 pd_end_ms;
	int			 pd_state;	/* enum lpad_state */
	int			 pd_how;	/* enum lpad_how */
	int			 pd_code;
	struct lpad_usage	 pd_usage;	/* once EXITED (lpad_usage.c) */
	int			 pd_quit;	/* exit when the worker has */
	int			 pd_stopping;
	int			 pd_stop_stage;	/* next: 1 QUIT, 2 KILL */
	double			 pd_stop_grace_now;
	double			 pd_stop_end;
	struct evtimer		*pd_stop_tmr;
	struct evtimer		*pd_linger_tmr;
	unsigned long		 pd_bad;	/* malformed messages */
	double			 pd_bad_logged;
};

static int	pad_mkdir(const char *, mode_t);
static int	pad_write_file(struct lpad_pad *, const char *, const char *,
		    size_t);
static int	pad_open_log(struct lpad_pad *, const char *, char *,
		    size_t);
static int	pad_socket(struct lpad_pad *, char *, size_t);
static int	pad_sock_dir(struct lpad_pad *, char *, size_t);
static int	pad_worker_dir(struct lpad_pad *, char *, size_t);
static int	pad_files(struct lpad_pad *, char *, size_t);
static void	pad_child(struct lpad_pad *, int) __attribute__((noreturn));
static void	pad_child_fail(struct lpad_pad *, int, int, const char *)
		    __attribute__((noreturn));
static void	pad_child_limit(struct lpad_pad *, int, int, uint64_t,
		    uint64_t, const char *);
static void	pad_exec_wait(struct lpad_pad *, int);
static void	pad_sigchld(struct evloop *, int, void *);
static void	pad_sigterm(struct evloop *, int, void *);
static void	pad_sighup(struct evloop *, int, void *);
static void	pad_accept(struct evloop *, int, short, void *);
static void	pad_client(struct evloop *, int, short, void *);
static void	pad_client_close(struct lpad_pad *, int);
static void	pad_bad(struct lpad_pad *, int, const char *);
static int	pad_kill(struct lpad_pad *, int);
static void	pad_stop(struct lpad_pad *, double);
static void	pad_stop_tick(struct evloop *, void *);
static void	pad_exited(struct lpad_pad *, int);
static void	pad_linger_over(struct evloop *, void *);
static void	pad_fill_status(struct lpad_pad *, struct lpad_status *);
static void	pad_reap_rest(struct lpad_pad *);
static void	pad_tell_clients(struct lpad_pad *);
static void	pad_remove_folder(struct lpad_pad *);
static void	pad_file_reason(const struct lpad_pad *, char *, size_t,
		    const char *, int);

struct lpad_pad *
lpad_pad_new(const struct lpad_spec *sp, const struct lpad_pad_args *pa,
    char *why, size_t whysz)
{
	struct lpad_pad *pd;
	struct passwd *pw;
	char sub[256];
	size_t i;
	int saved_errno;

	if (lpad_spec_check(sp, sub, sizeof(sub)) == -1) {
		errbuf_set(why, whysz, "invalid spec: %s", sub);
		errno = EINVAL;
		return NULL;
	}
	if ((pd = calloc(1, sizeof(*pd))) == NULL) {
		errbuf_set(why, whysz, "out of memory");
		return NULL;
	}
	pd->pd_wfd = pd->pd_outfd = pd->pd_errfd = pd->pd_nullfd = -1;
	pd->pd_lfd = -1;
	pd->pd_taskfd = pd->pd_spoolfd = -1;
	pd->pd_pid = -1;
	pd->pd_usage.lu_cpu_ms = pd->pd_usage.lu_maxrss_kb = LPAD_USAGE_NONE;
	pd->pd_stop_grace = pa->pa_stop_grace;
	pd->pd_linger = pa->pa_linger;
	pd->pd_manager = geteuid();
	pd->pd_root = pd->pd_manager == 0;

	/* Copy the spec, argv and env included. */
	pd->pd_spec = *sp;
	pd->pd_spec.ls_argc = pd->pd_spec.ls_envc = 0;
	pd->pd_spec.ls_argv[0] = pd->pd_spec.ls_env[0] = NULL;
	for (i = 0; i < sp->ls_argc; i++)
		if (lpad_spec_add_arg(&pd->pd_spec, sp->ls_argv[i]) == -1)
			goto nomem;
	for (i = 0; i < sp->ls_envc; i++)
		if (lpad_spec_add_env(&pd->pd_spec, sp->ls_env[i]) == -1)
			goto nomem;

	if (lpad_sock_dir(pa->pa_run_dir, pd->pd_sock_dir,
	    sizeof(pd->pd_sock_dir)) == -1 ||
	    lpad_sock_path(pa->pa_run_dir, sp->ls_worker, pd->pd_sock,
	    sizeof(pd->pd_sock)) == -1 ||
	    (size_t)snprintf(pd->pd_sock_tmp, sizeof(pd->pd_sock_tmp),
	    "%s.%ld", pd->pd_sock, (long)getpid()) >= PAD_SUN_PATH ||
	    strlcpy(pd->pd_state_dir, pa->pa_state_dir,
	    sizeof(pd->pd_state_dir)) >= sizeof(pd->pd_state_dir)) {
		errbuf_set(why, whysz, "run_dir or state_dir too long for "
		    "worker %s", sp->ls_worker);
		errno = ENAMETOOLONG;
		goto fail;
	}

	if (sp->ls_node[0] != '\0')
		strlcpy(pd->pd_node, sp->ls_node, sizeof(pd->pd_node));
	else if (gethostname(pd->pd_node, sizeof(pd->pd_node)) == -1)
		strlcpy(pd->pd_node, "localhost", sizeof(pd->pd_node));
	pd->pd_node[sizeof(pd->pd_node) - 1] = '\0';

	errno = 0;
	if ((pw = getpwnam(sp->ls_user)) == NULL) {
		errbuf_set(why, whysz, "refusing worker %s: no user \"%s\"%s%s",
		    sp->ls_worker, sp->ls_user, errno ? ": " : "",
		    errno ? strerror(errno) : "");
		errno = ENOENT;
		goto fail;
	}
	pd->pd_uid = pw->pw_uid;
	pd->pd_gid = pw->pw_gid;
	strlcpy(pd->pd_home, pw->pw_dir ? pw->pw_dir : "/",
	    sizeof(pd->pd_home));
	if (pd->pd_root && pd->pd_uid == 0 && !sp->ls_allow_root) {
		errbuf_set(why, whysz, "refusing worker %s: user %s has uid 0 "
		    "and the spec does not allow root workers (allow_root)",
		    sp->ls_worker, sp->ls_user);
		errno = EPERM;
		goto fail;
	}
	if (!pd->pd_root && (pd->pd_uid != getuid() ||
	    pd->pd_uid != pd->pd_manager)) {
		errbuf_set(why, whysz, "refusing worker %s: this launch pad "
		    "runs as uid %lu, not as root, so it can only run workers "
		    "as that uid, not as %s (uid %lu)", sp->ls_worker,
		    (unsigned long)pd->pd_manager, sp->ls_user,
		    (unsigned long)pd->pd_uid);
		errno = EPERM;
		goto fail;
	}
	return pd;

 nomem:
	errbuf_set(why, whysz, "out of memory");
 fail:
	saved_errno = errno;
	lpad_pad_free(pd);
	errno = saved_errno;
	return NULL;
}

void
lpad_pad_free(struct lpad_pad *pd)
{
	int i;

	if (pd == NULL)
		return;
	if (pd->pd_el != NULL) {
		for (i = 0; i < pd->pd_nclients; i++)
			evloop_del_fd(pd->pd_el, pd->pd_clients[i]);
		if (pd->pd_lfd != -1)
			evloop_del_fd(pd->pd_el, pd->pd_lfd);
		evloop_timer_cancel(pd->pd_el, pd->pd_stop_tmr);
		evloop_timer_cancel(pd->pd_el, pd->pd_linger_tmr);
	}
	for (i = 0; i < pd->pd_nclients; i++)
		close(pd->pd_clients[i]);
	if (pd->pd_lfd != -1)
		close(pd->pd_lfd);
	if (pd->pd_wfd != -1)
		close(pd->pd_wfd);
	if (pd->pd_taskfd != -1)
		close(pd->pd_taskfd);
	if (pd->pd_spoolfd != -1)
		close(pd->pd_spoolfd);
	if (pd->pd_outfd != -1)
		close(pd->pd_outfd);
	if (pd->pd_errfd != -1)
		close(pd->pd_errfd);
	if (pd->pd_nullfd != -1)
		close(pd->pd_nullfd);
	lpad_spec_clear(&pd->pd_spec);
	free(pd);
}

uid_t
lpad_pad_uid(const struct lpad_pad *pd)
{
	return pd->pd_uid;
}

gid_t
lpad_pad_gid(const struct lpad_pad *pd)
{
	return pd->pd_gid;
}

const char *
lpad_pad_user(const struct lpad_pad *pd)
{
	return pd->pd_spec.ls_user;
}

/* mkdir that accepts an existing folder. */
static int
pad_mkdir(const char *path, mode_t mode)
{
	if (mkdir(path, mode) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

/* Writes name in the worker's folder atomically, mode 0600. */
static int
pad_write_file(struct lpad_pad *pd, const char *name, const char *data,
    size_t len)
{
	char tmp[64];
	size_t off = 0;
	ssize_t n;
	int fd, saved_errno;

	snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
	(void)unlinkat(pd->pd_wfd, tmp, 0);
	if ((fd = openat(pd->pd_wfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return -1;
	while (off < len) {
		n = write(fd, data + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		off += (size_t)n;
	}
	if (close(fd) == -1) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(pd->pd_wfd, tmp, pd->pd_wfd, name) == -1)
		goto fail;
	return 0;

 fail:
	saved_errno = errno;
	if (fd != -1)
		close(fd);
	(void)unlinkat(pd->pd_wfd, tmp, 0);
	errno = saved_errno;
	return -1;
}

/* Opens a log for appending: a lone regular file, the user's. */
static int
pad_open_log(struct lpad_pad *pd, const char *name, char *why,
    size_t whysz)
{
	struct stat st;
	int fd;

	if ((fd = openat(pd->pd_wfd, name, O_WRONLY | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600)) == -1) {
		pad_file_reason(pd, why, whysz, name, errno);
		return -1;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_nlink != 1) {
		errbuf_set(why, whysz, "%s: not a regular file with one "
		    "link", name);
		close(fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_WRONLY | O_APPEND) == -1 ||
	    (pd->pd_spec.ls_log_gid >= 0 && (fchown(fd, (uid_t)-1,
	    (gid_t)pd->pd_spec.ls_log_gid) == -1 || fchmod(fd, 0640) == -1))) {
		errbuf_set(why, whysz, "%s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Binds W.sock.PID, listens, and renames it to W.sock. */
static int
pad_socket(struct lpad_pad *pd, char *why, size_t whysz)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	if (lstat(pd->pd_sock, &st) == 0) {
		if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0)) == -1) {
			errbuf_set(why, whysz, "socket: %s", strerror(errno));
			return -1;
		}
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		strlcpy(sun.sun_path, pd->pd_sock, sizeof(sun.sun_path));
		/* EAGAIN: alive, with a full backlog. */
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0 ||
		    errno == EAGAIN) {
			close(fd);
			errbuf_set(why, whysz, "a launch pad for worker %s is "
			    "already running (%s)", pd->pd_spec.ls_worker,
			    pd->pd_sock);
			errno = EEXIST;
			return -1;
		}
		close(fd);
		log_info("%s: removing the stale socket %s", __func__,
		    pd->pd_sock);
	}
	if ((pd->pd_lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		errbuf_set(why, whysz, "socket: %s", strerror(errno));
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, pd->pd_sock_tmp, sizeof(sun.sun_path));
	(void)unlink(pd->pd_sock_tmp);
	if (bind(pd->pd_lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(pd->pd_sock_tmp, 0600) == -1 ||
	    listen(pd->pd_lfd, PAD_CLIENTS_MAX) == -1 ||
	    rename(pd->pd_sock_tmp, pd->pd_sock) == -1) {
		errbuf_set(why, whysz, "%s: %s", pd->pd_sock, strerror(errno));
		(void)unlink(pd->pd_sock_tmp);
		return -1;
	}
	pd->pd_sock_placed = 1;
	return 0;
}

/* RUNDIR (if missing) and RUNDIR/lpad: ours alone, mode 0700. */
static int
pad_sock_dir(struct lpad_pad *pd, char *why, size_t whysz)
{
	char run[LPAD_PATH_MAX];
	struct stat st;

	strlcpy(run, pd->pd_sock_dir, sizeof(run));
	*strrchr(run, '/') = '\0';
	if (pad_mkdir(run, 0755) == -1 ||
	    pad_mkdir(pd->pd_sock_dir, 0700) == -1) {
		errbuf_set(why, whysz, "mkdir %s: %s", pd->pd_sock_dir,
		    strerror(errno));
		return -1;
	}
	if (lstat(pd->pd_sock_dir, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != pd->pd_manager || (st.st_mode & 077) != 0) {
		errbuf_set(why, whysz, "%s must be a folder of uid %lu with "
		    "mode 0700", pd->pd_sock_dir,
		    (unsigned long)pd->pd_manager);
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* STATEDIR/workers/W: the user's, kept open as pd_wfd. */
static int
pad_worker_dir(struct lpad_pad *pd, char *why, size_t whysz)
{
	const char *w = pd->pd_spec.ls_worker;
	struct stat st;
	int sfd = -1, wsfd = -1, saved_errno;

	/*
	 * A worker folder is never reused: an old one (a worker id seen
	 * before) is refused, so nothing one job wrote reaches another.
	 * It is ours, not the job's user's: the worker writes only through
	 * the log descriptors it is given, and only the log group (the
	 * node manager's engine) may read it.  workers/ is 0711 so that
	 * group can reach its folders without listing them.
	 */
	if (pad_mkdir(pd->pd_state_dir, 0755) == -1 ||
	    (sfd = open(pd->pd_state_dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 ||
	    (mkdirat(sfd, "workers", 0711) == -1 && errno != EEXIST) ||
	    (wsfd = openat(sfd, "workers", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fstat(wsfd, &st) == -1 || st.st_uid != pd->pd_manager ||
	    (st.st_mode & 022) != 0 || fchmod(wsfd, 0711) == -1 ||
	    mkdirat(wsfd, w, 0700) == -1 ||
	    (pd->pd_wfd = openat(wsfd, w, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		goto fail;
	pd->pd_wdir_made = 1;
	if (pd->pd_spec.ls_log_gid >= 0 && (fchown(pd->pd_wfd, (uid_t)-1,
	    (gid_t)pd->pd_spec.ls_log_gid) == -1 ||
	    fchmod(pd->pd_wfd, 0750) == -1))
		goto fail;
	close(wsfd);
	close(sfd);
	return 0;

 fail:
	saved_errno = errno;
	errbuf_set(why, whysz, "%s/workers/%s: %s", pd->pd_state_dir, w,
	    strerror(saved_errno));
	if (wsfd != -1)
		close(wsfd);
	if (sfd != -1)
		close(sfd);
	errno = saved_errno;
	return -1;
}

/* "STATEDIR/workers/W/NAME: strerror": where, for an ENOSPC. */
static void
pad_file_reason(const struct lpad_pad *pd, char *why, size_t whysz,
    const char *name, int err)
{
	errbuf_set(why, whysz, "%s/workers/%s/%s: %s", pd->pd_state_dir,
	    pd->pd_spec.ls_worker, name, strerror(err));
}

/* The spec record, lpad.pid, the logs, and no stale status. */
static int
pad_files(struct lpad_pad *pd, char *why, size_t whysz)
{
	char text[32], *enc;
	size_t len;
	int rc;

	if (unlinkat(pd->pd_wfd, "status", 0) == -1 && errno != ENOENT) {
		pad_file_reason(pd, why, whysz, "status", errno);
		return -1;
	}
	if ((enc = lpad_spec_encode(&pd->pd_spec, &len)) == NULL) {
		errbuf_set(why, whysz, "spec: %s", strerror(errno));
		return -1;
	}
	rc = pad_write_file(pd, "spec", enc, len);
	free(enc);
	if (rc == -1) {
		pad_file_reason(pd, why, whysz, "spec", errno);
		return -1;
	}
	snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	if (pad_write_file(pd, "lpad.pid", text, strlen(text)) == -1) {
		pad_file_reason(pd, why, whysz, "lpad.pid", errno);
		return -1;
	}
	pd->pd_pidfile = 1;
	if ((pd->pd_outfd = pad_open_log(pd, "out.log", why, whysz)) == -1 ||
	    (pd->pd_errfd = pad_open_log(pd, "err.log", why, whysz)) == -1)
		return -1;
	if ((pd->pd_nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) ==
	    -1) {
		errbuf_set(why, whysz, "/dev/null: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The socket comes first: it refuses a second launch pad for W before
 * anything of the first one's is touched.
 */
int
lpad_pad_setup(struct lpad_pad *pd, char *why, size_t whysz)
{
	int saved_errno;

	umask(077);
	if (pad_sock_dir(pd, why, whysz) == -1 ||
	    pad_socket(pd, why, whysz) == -1 ||
	    pad_worker_dir(pd, why, whysz) == -1 ||
	    pad_files(pd, why, whysz) == -1 ||
	    lpad_stage_setup(&pd->pd_spec, pd->pd_wfd, pd->pd_uid, pd->pd_gid,
	    pd->pd_root, &pd->pd_taskfd, &pd->pd_spoolfd, why, whysz) == -1) {
		saved_errno = errno;
		lpad_pad_cleanup(pd);
		errno = saved_errno;
		return -1;
	}
	return 0;
}

int
lpad_pad_attach(struct lpad_pad *pd, struct evloop *el)
{
	pd->pd_el = el;
	if (evloop_signal(el, SIGCHLD, pad_sigchld, pd) == -1 ||
	    evloop_signal(el, SIGTERM, pad_sigterm, pd) == -1 ||
	    evloop_signal(el, SIGINT, pad_sigterm, pd) == -1 ||
	    evloop_signal(el, SIGHUP, pad_sighup, pd) == -1 ||
	    evloop_add_fd(el, pd->pd_lfd, POLLIN, pad_accept, pd) == -1)
		return -1;
	return 0;
}

/* In the child: report why the worker cannot run, and give up. */
static void
pad_child_fail(struct lpad_pad *pd, int epfd, int code, const char *what)
{
	int saved_errno = errno;

	dprintf(2, "CilkLaunchPad: worker %s: %s: %s\n",
	    pd->pd_spec.ls_worker, what, strerror(saved_errno));
	/*
	 * The launch pad may have stopped listening (PAD_EXEC_WAIT passed
	 * on a loaded machine): the code, not SIGPIPE, is the worker's end.
	 */
	(void)signal(SIGPIPE, SIG_IGN);
	dprintf(epfd, "%s: %s", what, strerror(saved_errno));
	_exit(code);
}

/* The nice level of the worker's autogroup (Linux, best effort). */
static void
pad_child_autogroup(int nice)
{
	char num[16];
	int fd, len;

	if ((fd = open("/proc/self/autogroup", O_WRONLY | O_CLOEXEC)) == -1)
		return;
	len = snprintf(num, sizeof(num), "%d", nice);
	(void)!write(fd, num, (size_t)len);
	close(fd);
}

/* In the child: one resource limit; 0 keeps the inherited one. */
static void
pad_child_limit(struct lpad_pad *pd, int epfd, int res, uint64_t value,
    uint64_t extra, const char *what)
{
	struct rlimit rl;
	rlim_t want = (rlim_t)value;

	if (value == 0)
		return;
	if (getrlimit(res, &rl) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, what);
	/* Without root a hard limit can only go down. */
	if (rl.rlim_max == RLIM_INFINITY || want + extra <= rl.rlim_max ||
	    pd->pd_root)
		rl.rlim_max = want + extra;
	rl.rlim_cur = want < rl.rlim_max ? want : rl.rlim_max;
	if (setrlimit(res, &rl) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, what);
}

/* The worker, after fork: never returns. */
static void
pad_child(struct lpad_pad *pd, int epfd)
{
	const struct lpad_spec *sp = &pd->pd_spec;
	struct sigaction sa;
	struct sched_param prm;
	sigset_t none;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	char num[16], what[LPAD_ARG_MAX + 8];
	size_t i;
	int sig, saved_errno, tfd = -1, sfd = -1;

	/* Into its cgroup before anything else: all it starts is in it. */
	if (sp->ls_cgroup[0] != '\0' && contain_enter(sp->ls_cgroup) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, sp->ls_cgroup);
	/* The task folder and the spool, out of the way of 0 to 3. */
	if ((pd->pd_taskfd != -1 && (tfd = fcntl(pd->pd_taskfd,
	    F_DUPFD_CLOEXEC, 64)) == -1) || (pd->pd_spoolfd != -1 &&
	    (sfd = fcntl(pd->pd_spoolfd, F_DUPFD_CLOEXEC, 64)) == -1))
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "task folder");
	if (setsid() == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "setsid");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "sigprocmask");
	if (dup2(pd->pd_nullfd, 0) == -1 || dup2(pd->pd_outfd, 1) == -1 ||
	    dup2(pd->pd_errfd, 2) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "dup2");
	if (epfd != 3) {
		if (dup3(epfd, 3, O_CLOEXEC) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "dup3");
		epfd = 3;
	}
	if ((tfd != -1 && dup3(tfd, 4, O_CLOEXEC) == -1) ||
	    (sfd != -1 && dup3(sfd, 5, O_CLOEXEC) == -1))
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "task folder");
	closefrom(tfd == -1 ? 4 : sfd == -1 ? 5 : 6);
	umask(022);

	/* What needs root comes before dropping it. */
	errno = 0;
	if (setpriority(PRIO_PROCESS, 0, sp->ls_nice) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "setpriority");
	/*
	 * setsid() put the worker in an autogroup of its own, which the
	 * kernel weighs against the owner's session as an equal, whatever
	 * the worker's nice level or SCHED_IDLE: give the group the
	 * worker's nice level too.  Best effort: kernels without
	 * autogroups have no such file, and then the per-task settings
	 * below decide alone.
	 */
	pad_child_autogroup(sp->ls_nice);
	if (sp->ls_sched == LPAD_SCHED_IDLE) {
		memset(&prm, 0, sizeof(prm));
		if (syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &prm) ==
		    -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP,
			    "sched_setscheduler SCHED_IDLE");
	}
	pad_child_limit(pd, epfd, RLIMIT_CPU, sp->ls_rlim_cpu, 5,
	    "setrlimit cpu");
	pad_child_limit(pd, epfd, RLIMIT_AS, sp->ls_rlim_as << 20, 0,
	    "setrlimit as");
	pad_child_limit(pd, epfd, RLIMIT_NOFILE, sp->ls_rlim_nofile, 0,
	    "setrlimit nofile");
	if (pd->pd_root) {
		if (initgroups(sp->ls_user, pd->pd_gid) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP,
			    "initgroups");
		if (setresgid(pd->pd_gid, pd->pd_gid, pd->pd_gid) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP,
			    "setresgid");
		if (setresuid(pd->pd_uid, pd->pd_uid, pd->pd_uid) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP,
			    "setresuid");
	}
	if (getresuid(&ru, &eu, &su) == -1 || getresgid(&rg, &eg, &sg) ==
	    -1 || ru != pd->pd_uid || eu != pd->pd_uid || su != pd->pd_uid ||
	    rg != pd->pd_gid || eg != pd->pd_gid || sg != pd->pd_gid) {
		errno = EPERM;
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP,
		    "privileges not dropped");
	}
	if (pd->pd_uid != 0 && setuid(0) != -1) {
		errno = EPERM;
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "could regain root");
	}
	/*
	 * A staged task runs in its own folder, whose files it gets here,
	 * as the user: lpad_stage.c.
	 */
	if (tfd != -1) {
		if (fchdir(4) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, sp->ls_cwd);
		if (sfd != -1 && lpad_stage_in(sp, 4, 5, what,
		    sizeof(what)) == -1)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, what);
		close(4);
		if (sfd != -1)
			close(5);
	} else if (chdir(sp->ls_cwd) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, sp->ls_cwd);

	if (clearenv() != 0)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "clearenv");
	for (i = 0; i < sp->ls_envc; i++)
		if (putenv(sp->ls_env[i]) != 0)
			pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "putenv");
	snprintf(num, sizeof(num), "%u", sp->ls_job);
	if (setenv("CILKNOW_JOB", num, 1) == -1)
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "setenv");
	snprintf(num, sizeof(num), "%u", sp->ls_task);
	if (setenv("CILKNOW_TASK", num, 1) == -1 ||
	    setenv("CILKNOW_NODE", pd->pd_node, 1) == -1 ||
	    setenv("CILKNOW_WORKER", sp->ls_worker, 1) == -1 ||
	    setenv("HOME", pd->pd_home, 0) == -1 ||
	    setenv("USER", sp->ls_user, 0) == -1 ||
	    setenv("LOGNAME", sp->ls_user, 0) == -1 ||
	    (tfd != -1 && setenv("PWD", sp->ls_cwd, 1) == -1))
		pad_child_fail(pd, epfd, LPAD_EXIT_SETUP, "setenv");

	execvp(sp->ls_argv[0], sp->ls_argv);
	saved_errno = errno;
	snprintf(what, sizeof(what), "exec %s", sp->ls_argv[0]);
	errno = saved_errno;
	pad_child_fail(pd, epfd, LPAD_EXIT_EXEC, what);
}

/* Waits (bounded) until the worker has exec'd or said why it cannot. */
static void
pad_exec_wait(struct lpad_pad *pd, int fd)
{
	char text[512];
	struct pollfd pfd;
	double deadline = now_mono() + PAD_EXEC_WAIT, left;
	size_t len = 0;
	ssize_t n;

	for (;;) {
		left = deadline - now_mono();
		if (left <= 0) {
			log_warnx("%s: worker %s: no word from the worker in "
			    "%d s", __func__, pd->pd_spec.ls_worker,
			    PAD_EXEC_WAIT);
			return;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		n = read(fd, text + len, sizeof(text) - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == sizeof(text) - 1)
			break;
	}
	text[len] = '\0';
	if (len > 0)
		log_warnx("worker %s cannot run: %s", pd->pd_spec.ls_worker,
		    text);
}

int
lpad_pad_start(struct lpad_pad *pd, char *why, size_t whysz)
{
	const struct lpad_spec *sp = &pd->pd_spec;
	char text[32];
	int ep[2];
	pid_t pid;

	if (pipe2(ep, O_CLOEXEC) == -1) {
		errbuf_set(why, whysz, "pipe: %s", strerror(errno));
		return -1;
	}
	/*
	 * Orphans of the worker (setsid and a double fork) become our
	 * children: without a cgroup, so that its tree can still be found;
	 * with one too, for the node manager's parent, the subreaper above
	 * us, ends every process that comes to it (a dead launch pad's).
	 */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1) {
		errbuf_set(why, whysz, "PR_SET_CHILD_SUBREAPER: %s",
		    strerror(errno));
		close(ep[0]);
		close(ep[1]);
		return -1;
	}
	pd->pd_start_ms = now_real_ms();
	if ((pid = fork()) == -1) {
		errbuf_set(why, whysz, "fork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		return -1;
	}
	if (pid == 0) {
		close(ep[0]);
		pad_child(pd, ep[1]);
	}
	close(ep[1]);
	pd->pd_pid = pid;
	pd->pd_state = LPAD_STATE_RUNNING;
	pad_exec_wait(pd, ep[0]);
	close(ep[0]);
	snprintf(text, sizeof(text), "%ld\n", (long)pid);
	if (pad_write_file(pd, "pid", text, strlen(text)) == -1)
		log_warn("%s: pid file", __func__);
	log_info("worker %s: job %u task %u, pid %ld as %s in %s: %s%s",
	    sp->ls_worker, sp->ls_job, sp->ls_task, (long)pid, sp->ls_user,
	    sp->ls_cwd, sp->ls_argv[0], sp->ls_argc > 1 ? " ..." : "");
	return 0;
}

void
lpad_pad_cleanup(struct lpad_pad *pd)
{
	if (pd->pd_sock_placed && unlink(pd->pd_sock) == -1 &&
	    errno != ENOENT)
		log_debug("%s: unlink %s: %s (left for the node manager)",
		    __func__, pd->pd_sock, strerror(errno));
	pd->pd_sock_placed = 0;
	if (pd->pd_pidfile)
		(void)unlinkat(pd->pd_wfd, "lpad.pid", 0);
	pd->pd_pidfile = 0;
	/*
	 * QUIT says the worker's output has reached its job manager: its
	 * folder goes.  Without it (a linger ran out, SIGTERM) the folder
	 * stays for a restarted node manager or a person to read.
	 */
	if ((pd->pd_state == LPAD_STATE_EXITED && pd->pd_relayed) ||
	    pd->pd_pid <= 0)
		pad_remove_folder(pd);
}

void
lpad_pad_abort(struct lpad_pad *pd)
{
	if (pd->pd_pid > 0 && pd->pd_state == LPAD_STATE_RUNNING) {
		(void)kill(-pd->pd_pid, SIGKILL);
		(void)waitpid(pd->pd_pid, NULL, 0);
		pd->pd_state = LPAD_STATE_EXITED;
		pad_reap_rest(pd);
	}
	lpad_pad_cleanup(pd);
}

/*
 * Every process of the worker gets signo: its cgroup, or our tree of
 * descendants; its process group too, for a kernel that lost track.
 */
static int
pad_kill(struct lpad_pad *pd, int signo)
{
	const char *cg = pd->pd_spec.ls_cgroup;
	int n;

	if (pd->pd_pid <= 0 || pd->pd_state != LPAD_STATE_RUNNING) {
		errno = ESRCH;
		return -1;
	}
	if (signo == SIGCONT || signo == SIGQUIT || signo == SIGKILL)
		(void)contain_freeze(cg, getpid(), 0);
	(void)kill(-pd->pd_pid, signo);
	n = signo == SIGKILL ? contain_kill(cg, getpid()) :
	    contain_signal(cg, getpid(), signo);
	if (n == -1) {
		log_warn("%s: worker %s: signal %d", __func__,
		    pd->pd_spec.ls_worker, signo);
		return -1;
	}
	return 0;
}

/*
 * The worker's main process is gone: what it left behind (a setsid()
 * child, a daemon) goes with it, and its cgroup once empty.  Bounded;
 * a process that will not die within PAD_GONE_WAIT is logged.  What
 * it used is measured once all is reaped, before the cgroup goes (and
 * before anything else is forked: stage-out's child is not the
 * worker's).
 */
static void
pad_reap_rest(struct lpad_pad *pd)
{
	const char *cg = pd->pd_spec.ls_cgroup;
	double deadline = now_mono() + PAD_GONE_WAIT;
	int n, killed = 0;

	for (;;) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if ((n = contain_count(cg, getpid())) <= 0)
			break;
		if (!killed++)
			log_info("worker %s: killing the %d process%s it left "
			    "behind", pd->pd_spec.ls_worker, n,
			    n == 1 ? "" : "es");
		(void)contain_kill(cg, getpid());
		if (now_mono() > deadline) {
			log_warning("worker %s: %d process%s still there after "
			    "%d s", pd->pd_spec.ls_worker, n,
			    n == 1 ? "" : "es", PAD_GONE_WAIT);
			break;
		}
		usleep(2000);
	}
	lpad_usage_measure(cg, &pd->pd_usage);
	if (n > 0)
		return;
	if (cg[0] != '\0' && contain_remove(cg) == -1 && errno != ENOENT)
		log_warn("%s: rmdir %s", __func__, cg);
}

/* SIGQUIT (and SIGCONT) now, SIGQUIT after grace, SIGKILL after 2x. */
static void
pad_stop(struct lpad_pad *pd, double grace)
{
	double end = now_mono() + 2 * grace;

	if (pd->pd_state != LPAD_STATE_RUNNING)
		return;
	if (pd->pd_stopping && end >= pd->pd_stop_end)
		return;
	log_info("worker %s: stopping, grace %.3f s", pd->pd_spec.ls_worker,
	    grace);
	evloop_timer_cancel(pd->pd_el, pd->pd_stop_tmr);
	pd->pd_stop_tmr = NULL;
	pd->pd_stopping = 1;
	pd->pd_stop_end = end;
	pd->pd_stop_grace_now = grace;
	pd->pd_stop_stage = 1;
	(void)pad_kill(pd, SIGQUIT);	/* thaws it first */
	(void)pad_kill(pd, SIGCONT);
	if ((pd->pd_stop_tmr = evloop_timer_add(pd->pd_el, grace,
	    pad_stop_tick, pd)) == NULL) {
		log_warn("%s: timer; killing worker %s now", __func__,
		    pd->pd_spec.ls_worker);
		(void)pad_kill(pd, SIGKILL);
	}
}

/*
 * 1 if the worker is frozen: the node manager froze it because its
 * owner is back (stop_grace_fast), its cgroup, or where there is none
 * its main process, stopped.  A second SIGQUIT would thaw it.
 */
static int
pad_frozen(const struct lpad_pad *pd)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	if (pd->pd_spec.ls_cgroup[0] != '\0')
		return contain_frozen(pd->pd_spec.ls_cgroup) == 1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pd->pd_pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (p = strrchr(buf, ')')) != NULL && p[1] == ' ' && p[2] == 'T';
}

static void
pad_stop_tick(struct evloop *el, void *arg)
{
	struct lpad_pad *pd = arg;

	(void)el;
	pd->pd_stop_tmr = NULL;
	if (pd->pd_stop_stage == 1 && pad_frozen(pd))
		log_info("worker %s: frozen since its owner came back, still "
		    "there after %.3f s", pd->pd_spec.ls_worker,
		    pd->pd_stop_grace_now);
	else if (pd->pd_stop_stage == 1) {
		log_info("worker %s: still there after %.3f s, SIGQUIT again",
		    pd->pd_spec.ls_worker, pd->pd_stop_grace_now);
		(void)pad_kill(pd, SIGQUIT);
		pd->pd_stop_stage = 2;
		if ((pd->pd_stop_tmr = evloop_timer_add(pd->pd_el,
		    pd->pd_stop_grace_now, pad_stop_tick, pd)) != NULL)
			return;
		log_warn("%s: timer", __func__);
	}
	log_info("worker %s: SIGKILL", pd->pd_spec.ls_worker);
	(void)pad_kill(pd, SIGKILL);
}

static void
pad_linger_over(struct evloop *el, void *arg)
{
	struct lpad_pad *pd = arg;

	pd->pd_linger_tmr = NULL;
	log_info("worker %s: nobody came for the status in %.0f s; exiting",
	    pd->pd_spec.ls_worker, pd->pd_linger);
	evloop_break(el);
}

/* The worker is gone: record how, then linger or leave. */
static void
pad_exited(struct lpad_pad *pd, int status)
{
	char text[128], how[32], used[96];
	struct lpad_status st;
	int n;

	pd->pd_end_ms = now_real_ms();
	if (WIFSIGNALED(status)) {
		pd->pd_how = LPAD_HOW_SIGNAL;
		pd->pd_code = WTERMSIG(status);
	} else {
		pd->pd_how = LPAD_HOW_EXITED;
		pd->pd_code = WEXITSTATUS(status);
	}
	if (pd->pd_stopping) {
		evloop_timer_cancel(pd->pd_el, pd->pd_stop_tmr);
		pd->pd_stop_tmr = NULL;
		pd->pd_stopping = 0;
	}
	pd->pd_state = LPAD_STATE_EXITED;
	pad_reap_rest(pd);
	/*
	 * Before the status: whoever reads it finds stage.out whole.  Only
	 * from a worker that exited 0: a failed attempt's files would
	 * collide with those of the retry (CilkLaunchPad(8), STAGING).
	 */
	if (pd->pd_how == LPAD_HOW_EXITED && pd->pd_code == 0 &&
	    lpad_stage_out(&pd->pd_spec, pd->pd_wfd, pd->pd_taskfd,
	    pd->pd_uid, pd->pd_gid, pd->pd_root, text, sizeof(text)) == -1)
		log_warnx("worker %s: %s", pd->pd_spec.ls_worker, text);
	pad_fill_status(pd, &st);
	lpad_status_str(&st, how, sizeof(how));
	n = snprintf(text, sizeof(text), "%s\nstart_ms %llu\nend_ms %llu\n",
	    how, (unsigned long long)pd->pd_start_ms,
	    (unsigned long long)pd->pd_end_ms);
	if (pad_write_file(pd, "status", text, (size_t)n) == -1)
		log_warn("%s: worker %s: status", __func__,
		    pd->pd_spec.ls_worker);
	log_info("worker %s: %s; %s", pd->pd_spec.ls_worker, how,
	    lpad_usage_str(&pd->pd_usage, used, sizeof(used)));
	pad_tell_clients(pd);
	if (pd->pd_quit) {
		evloop_break(pd->pd_el);
		return;
	}
	if ((pd->pd_linger_tmr = evloop_timer_add(pd->pd_el, pd->pd_linger,
	    pad_linger_over, pd)) == NULL) {
		log_warn("%s: linger timer", __func__);
		evloop_break(pd->pd_el);
	}
}

static void
pad_sigchld(struct evloop *el, int signo, void *arg)
{
	struct lpad_pad *pd = arg;
	pid_t pid;
	int status;

	(void)el;
	(void)signo;
	for (;;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		if (pid == pd->pd_pid && pd->pd_state == LPAD_STATE_RUNNING &&
		    (WIFEXITED(status) || WIFSIGNALED(status)))
			pad_exited(pd, status);
	}
}

static void
pad_sigterm(struct evloop *el, int signo, void *arg)
{
	struct lpad_pad *pd = arg;

	log_info("got signal %d: stopping worker %s, then exiting", signo,
	    pd->pd_spec.ls_worker);
	pd->pd_quit = 1;
	if (pd->pd_state != LPAD_STATE_RUNNING)
		evloop_break(el);
	else
		pad_stop(pd, pd->pd_stop_grace);
}

static void
pad_sighup(struct evloop *el, int signo, void *arg)
{
	(void)el;
	(void)signo;
	(void)arg;
	log_info("SIGHUP: nothing to reload");
}

static void
pad_accept(struct evloop *el, int lfd, short revents, void *arg)
{
	struct lpad_pad *pd = arg;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd;

	(void)revents;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) == -1 && errno == EINTR)
		;
	if (fd == -1) {
		if (errno != EAGAIN)
			log_warn("%s: accept", __func__);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1 ||
	    (cred.uid != 0 && cred.uid != pd->pd_manager)) {
		log_warnx("%s: refusing a connection from uid %ld", __func__,
		    clen == sizeof(cred) ? (long)cred.uid : -1L);
		close(fd);
		return;
	}
	if (pd->pd_nclients == PAD_CLIENTS_MAX) {
		log_debug("%s: %d connections already; refusing another",
		    __func__, PAD_CLIENTS_MAX);
		close(fd);
		return;
	}
	if (evloop_add_fd(el, fd, POLLIN, pad_client, pd) == -1) {
		log_warn("%s: evloop_add_fd", __func__);
		close(fd);
		return;
	}
	pd->pd_clients[pd->pd_nclients++] = fd;
}

static void
pad_client_close(struct lpad_pad *pd, int fd)
{
	int i;

	for (i = 0; i < pd->pd_nclients; i++)
		if (pd->pd_clients[i] == fd) {
			pd->pd_clients[i] = pd->pd_clients[--pd->pd_nclients];
			break;
		}
	evloop_del_fd(pd->pd_el, fd);
	close(fd);
}

/* A malformed message: counted, reported (rate-limited), dropped. */
static void
pad_bad(struct lpad_pad *pd, int fd, const char *what)
{
	double now = now_mono();

	pd->pd_bad++;
	if (pd->pd_bad == 1 || now - pd->pd_bad_logged >= PAD_BAD_LOG_EVERY) {
		log_warnx("worker %s: %s on the control socket; closing that "
		    "connection (%lu so far)", pd->pd_spec.ls_worker, what,
		    pd->pd_bad);
		pd->pd_bad_logged = now;
	}
	pad_client_close(pd, fd);
}

static void
pad_fill_status(struct lpad_pad *pd, struct lpad_status *st)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	strlcpy(st->st_worker, pd->pd_spec.ls_worker, sizeof(st->st_worker));
	strlcpy(st->st_user, pd->pd_spec.ls_user, sizeof(st->st_user));
	st->st_job = pd->pd_spec.ls_job;
	st->st_task = pd->pd_spec.ls_task;
	st->st_lpad_pid = (uint32_t)getpid();
	st->st_pid = (uint32_t)pd->pd_pid;
	st->st_pgid = (uint32_t)pd->pd_pid;
	st->st_state = (uint8_t)pd->pd_state;
	st->st_stopping = (uint8_t)pd->pd_stopping;
	if (pd->pd_state == LPAD_STATE_EXITED) {
		st->st_how = (uint8_t)pd->pd_how;
		st->st_code = (uint32_t)pd->pd_code;
		st->st_end_ms = pd->pd_end_ms;
		st->st_cpu_ms = pd->pd_usage.lu_cpu_ms;
		st->st_maxrss_kb = pd->pd_usage.lu_maxrss_kb;
	} else
		st->st_cpu_ms = st->st_maxrss_kb = LPAD_USAGE_NONE;
	st->st_start_ms = pd->pd_start_ms;
	if (fstat(pd->pd_outfd, &sb) == 0)
		st->st_out_size = (uint64_t)sb.st_size;
	if (fstat(pd->pd_errfd, &sb) == 0)
		st->st_err_size = (uint64_t)sb.st_size;
}

static void
pad_client(struct evloop *el, int fd, short revents, void *arg)
{
	struct lpad_pad *pd = arg;
	uint8_t buf[LPAD_MSG_LEN + 1];
	struct lpad_msg req, rep;
	size_t len;
	ssize_t n;
	int quit_now = 0;

	(void)revents;
	while ((n = recv(fd, buf, sizeof(buf), MSG_TRUNC | MSG_DONTWAIT)) ==
	    -1 && errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return;
	if (n <= 0) {
		pad_client_close(pd, fd);	/* closed, or an error */
		return;
	}
	if ((size_t)n > LPAD_MSG_LEN) {
		pad_bad(pd, fd, "an oversized message");
		return;
	}
	if (lpad_msg_decode(&req, buf, (size_t)n) == -1) {
		pad_bad(pd, fd, "a malformed message");
		return;
	}
	memset(&rep, 0, sizeof(rep));
	rep.lm_type = LPAD_MSG_RESULT;
	rep.lm_req = req.lm_type;
	switch (req.lm_type) {
	case LPAD_MSG_STATUS:
		rep.lm_type = LPAD_MSG_STATUS_REPLY;
		pad_fill_status(pd, &rep.lm_status);
		break;
	case LPAD_MSG_SIGNAL:
		log_info("worker %s: signal %u requested",
		    pd->pd_spec.ls_worker, req.lm_signo);
		if (pad_kill(pd, (int)req.lm_signo) == -1)
			rep.lm_error = (uint32_t)errno;
		break;
	case LPAD_MSG_STOP:
		pad_stop(pd, req.lm_grace_ms / 1000.0);
		break;
	case LPAD_MSG_QUIT:
		log_info("worker %s: asked to quit%s", pd->pd_spec.ls_worker,
		    pd->pd_state == LPAD_STATE_RUNNING ?
		    " once the worker exits" : "");
		pd->pd_quit = 1;
		pd->pd_relayed = 1;
		quit_now = pd->pd_state != LPAD_STATE_RUNNING;
		break;
	default:
		/* A reply sent to us: well-formed, but not a request. */
		pad_bad(pd, fd, "a reply instead of a request");
		return;
	}
	if (lpad_msg_encode(&rep, buf, sizeof(buf), &len) == -1) {
		log_warnx("%s: cannot encode our own reply", __func__);
		pad_client_close(pd, fd);
		if (quit_now)
			evloop_break(el);
		return;
	}
	while ((n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1) {
		log_debug("%s: send: %s", __func__, strerror(errno));
		pad_client_close(pd, fd);
	}
	if (quit_now)
		evloop_break(el);
}

/*
 * The exit, told at once to every connected client (the node manager
 * keeps one connection open), so nobody polls for it.
 */
static void
pad_tell_clients(struct lpad_pad *pd)
{
	uint8_t buf[LPAD_MSG_LEN];
	struct lpad_msg m;
	size_t len;
	int i;

	memset(&m, 0, sizeof(m));
	m.lm_type = LPAD_MSG_STATUS_REPLY;
	pad_fill_status(pd, &m.lm_status);
	if (lpad_msg_encode(&m, buf, sizeof(buf), &len) == -1)
		return;
	for (i = 0; i < pd->pd_nclients; i++)
		if (send(pd->pd_clients[i], buf, len, MSG_NOSIGNAL |
		    MSG_DONTWAIT) == -1)
			log_debug("%s: send: %s", __func__, strerror(errno));
}

/* An ended worker's folder, once its output is relayed: disk is bounded. */
static void
pad_remove_folder(struct lpad_pad *pd)
{
	if (!pd->pd_wdir_made)
		return;
	if (lpad_remove_folder(pd->pd_state_dir, pd->pd_spec.ls_worker) == -1)
		log_warn("%s: worker %s", __func__, pd->pd_spec.ls_worker);
	else
		log_debug("worker %s: folder removed", pd->pd_spec.ls_worker);
	pd->pd_wdir_made = 0;
}
