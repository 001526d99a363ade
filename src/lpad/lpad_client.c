/*
 * lpad_client — what the node manager uses to drive its launch pads:
 * spawn one, talk to it over its control socket (one request, one
 * reply, each bounded by LPAD_TIMEOUT), find the live ones again after
 * a restart, and read the worker's logs and exit status from the files
 * the launch pad keeps.  Files in the worker's folder belong to the
 * job's user, so they are opened without following links and checked.
 */
#include "lpad.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mono.h"
#include "errbuf.h"

#define CLIENT_ARGV_MAX	16
#define STATUS_FILE_MAX	256

static int	client_sockaddr(const char *, struct sockaddr_un *);
static int	client_request(int, const struct lpad_msg *,
		    struct lpad_msg *);
static int	client_simple(int, struct lpad_msg *);
static int	client_alive(const char *);
static int	client_open_worker_file(const char *, const char *,
		    const char *);
static void	client_child(const char *, char **, int, int)
		    __attribute__((noreturn));
static int	client_prepare_dir(const char *, char *, size_t);

int
lpad_sock_dir(const char *run_dir, char *buf, size_t bufsz)
{
	if ((size_t)snprintf(buf, bufsz, "%s/lpad", run_dir) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
lpad_sock_path(const char *run_dir, const char *worker, char *buf,
    size_t bufsz)
{
	if (!lpad_worker_ok(worker)) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(buf, bufsz, "%s/lpad/%s.sock", run_dir,
	    worker) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
lpad_worker_dir(const char *state_dir, const char *worker, char *buf,
    size_t bufsz)
{
	if (!lpad_worker_ok(worker)) {
		errno = EINVAL;
		return -1;
	}
	if ((size_t)snprintf(buf, bufsz, "%s/workers/%s", state_dir,
	    worker) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int
client_sockaddr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
lpad_connect(const char *run_dir, const char *worker)
{
	struct sockaddr_un sun;
	struct timeval tv = { LPAD_TIMEOUT, 0 };
	char path[LPAD_PATH_MAX];
	int fd, saved_errno;

	if (lpad_sock_path(run_dir, worker, path, sizeof(path)) == -1 ||
	    client_sockaddr(path, &sun) == -1)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) == -1)
		goto fail;
	while (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		if (errno != EINTR)
			goto fail;
	return fd;

 fail:
	saved_errno = errno;
	close(fd);
	errno = saved_errno;
	return -1;
}

/* Sends req and reads one reply; -1 with errno on any failure. */
static int
client_request(int fd, const struct lpad_msg *req, struct lpad_msg *rep)
{
	uint8_t buf[LPAD_MSG_LEN + 1];
	size_t len;
	ssize_t n;

	if (lpad_msg_encode(req, buf, sizeof(buf), &len) == -1)
		return -1;
	while ((n = send(fd, buf, len, MSG_NOSIGNAL)) == -1 && errno == EINTR)
		;
	if (n == -1) {
		if (errno == EAGAIN)
			errno = ETIMEDOUT;
		return -1;
	}
	while ((n = recv(fd, buf, sizeof(buf), MSG_TRUNC)) == -1 &&
	    errno == EINTR)
		;
	if (n == -1) {
		if (errno == EAGAIN)
			errno = ETIMEDOUT;
		return -1;
	}
	if (n == 0) {
		errno = ECONNRESET;
		return -1;
	}
	if ((size_t)n > LPAD_MSG_LEN) {
		errno = EBADMSG;
		return -1;
	}
	return lpad_msg_decode(rep, buf, (size_t)n);
}

/* A request answered by RESULT; errno is the launch pad's error. */
static int
client_simple(int fd, struct lpad_msg *req)
{
	struct lpad_msg rep;

	if (client_request(fd, req, &rep) == -1)
		return -1;
	if (rep.lm_type != LPAD_MSG_RESULT || rep.lm_req != req->lm_type) {
		errno = EPROTO;
		return -1;
	}
	if (rep.lm_error != 0) {
		errno = rep.lm_error > INT_MAX ? EPROTO : (int)rep.lm_error;
		return -1;
	}
	return 0;
}

int
lpad_status(int fd, struct lpad_status *st)
{
	struct lpad_msg req, rep;

	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_STATUS;
	if (client_request(fd, &req, &rep) == -1)
		return -1;
	if (rep.lm_type == LPAD_MSG_RESULT && rep.lm_req == LPAD_MSG_STATUS &&
	    rep.lm_error != 0 && rep.lm_error <= INT_MAX) {
		errno = (int)rep.lm_error;
		return -1;
	}
	if (rep.lm_type != LPAD_MSG_STATUS_REPLY) {
		errno = EPROTO;
		return -1;
	}
	*st = rep.lm_status;
	return 0;
}

int
lpad_signal(int fd, int signo)
{
	struct lpad_msg req;

	if (!lpad_signal_ok(signo)) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_SIGNAL;
	req.lm_signo = (uint32_t)signo;
	return client_simple(fd, &req);
}

int
lpad_stop(int fd, double grace)
{
	struct lpad_msg req;

	if (!isfinite(grace) || grace < 0 ||
	    grace * 1000 > LPAD_GRACE_MAX_MS) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_STOP;
	req.lm_grace_ms = (uint32_t)lround(grace * 1000);
	return client_simple(fd, &req);
}

int
lpad_quit(int fd)
{
	struct lpad_msg req;

	memset(&req, 0, sizeof(req));
	req.lm_type = LPAD_MSG_QUIT;
	return client_simple(fd, &req);
}

/* 1 if something accepts on path, 0 if nobody listens, -1 if unknown. */
static int
client_alive(const char *path)
{
	struct sockaddr_un sun;
	int fd, rc;

	if (client_sockaddr(path, &sun) == -1)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1)
		return -1;
	while ((rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun))) ==
	    -1 && errno == EINTR)
		;
	if (rc == 0 || errno == EAGAIN)
		rc = 1;		/* EAGAIN: alive, its backlog is full */
	else if (errno == ECONNREFUSED)
		rc = 0;
	else
		rc = -1;
	close(fd);
	return rc;
}

int
lpad_alive(const char *run_dir, const char *worker)
{
	char path[LPAD_PATH_MAX];

	if (lpad_sock_path(run_dir, worker, path, sizeof(path)) == -1)
		return -1;
	if (access(path, F_OK) == -1)
		return errno == ENOENT ? 0 : -1;
	return client_alive(path);
}

int
lpad_list(const char *run_dir, int (*cb)(const char *, void *), void *arg)
{
	char dir[LPAD_PATH_MAX], path[LPAD_PATH_MAX];
	char worker[LPAD_WORKER_MAX + 1];
	struct dirent *de;
	size_t n;
	DIR *d;
	int live = 0, saved_errno;

	if (lpad_sock_dir(run_dir, dir, sizeof(dir)) == -1)
		return -1;
	if ((d = opendir(dir)) == NULL)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 5 || strcmp(de->d_name + n - 5, ".sock") != 0 ||
		    n - 5 > LPAD_WORKER_MAX)
			continue;
		memcpy(worker, de->d_name, n - 5);
		worker[n - 5] = '\0';
		if (!lpad_worker_ok(worker) ||
		    lpad_sock_path(run_dir, worker, path, sizeof(path)) == -1)
			continue;
		switch (client_alive(path)) {
		case 1:
			live++;
			if (cb(worker, arg) != 0)
				goto out;
			break;
		case 0:
			/* Its launch pad is gone (and could not unlink it). */
			unlink(path);
			break;
		default:
			break;
		}
	}
 out:
	saved_errno = errno;
	closedir(d);
	errno = saved_errno;
	return live;
}

/* Opens STATEDIR/workers/W/name read-only: a lone regular file. */
static int
client_open_worker_file(const char *state_dir, const char *worker,
    const char *name)
{
	char dir[LPAD_PATH_MAX], path[LPAD_PATH_MAX];
	struct stat st;
	int fd;

	if (lpad_worker_dir(state_dir, worker, dir, sizeof(dir)) == -1)
		return -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

ssize_t
lpad_read_log(const char *state_dir, const char *worker,
    enum lpad_stream stream, uint64_t offset, void *buf, size_t len)
{
	struct stat sb;
	ssize_t n;
	int fd, saved_errno;

	if ((stream != LPAD_STREAM_OUT && stream != LPAD_STREAM_ERR &&
	    stream != LPAD_STREAM_STAGE) || offset > INT64_MAX) {
		errno = EINVAL;
		return -1;
	}
	if ((fd = client_open_worker_file(state_dir, worker,
	    stream == LPAD_STREAM_OUT ? "out.log" : stream ==
	    LPAD_STREAM_ERR ? "err.log" : STAGE_OUT_FILE)) == -1)
		return -1;
	while ((n = pread(fd, buf, len, (off_t)offset)) == -1 &&
	    errno == EINTR)
		;
	/* Nothing past offset, and less than offset there: truncated. */
	if (n == 0 && fstat(fd, &sb) == 0 && (uint64_t)sb.st_size < offset) {
		n = -1;
		errno = ERANGE;
	}
	saved_errno = errno;
	close(fd);
	errno = saved_errno;
	return n;
}

int
lpad_read_exit(const char *state_dir, const char *worker,
    struct lpad_status *st)
{
	char buf[STATUS_FILE_MAX + 1], canon[STATUS_FILE_MAX + 1], how[8];
	unsigned int code;
	unsigned long long start, end;
	ssize_t n;
	int fd;

	if ((fd = client_open_worker_file(state_dir, worker, "status")) == -1)
		return -1;
	while ((n = read(fd, buf, sizeof(buf) - 1)) == -1 && errno == EINTR)
		;
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	/* Exactly what the launch pad writes, and nothing else. */
	if ((size_t)n == sizeof(buf) - 1 ||
	    sscanf(buf, "%7[a-z] %3u\nstart_ms %20llu\nend_ms %20llu\n",
	    how, &code, &start, &end) != 4 ||
	    (size_t)snprintf(canon, sizeof(canon),
	    "%s %u\nstart_ms %llu\nend_ms %llu\n", how, code, start, end) >=
	    sizeof(canon) || strcmp(canon, buf) != 0) {
		errno = EBADMSG;
		return -1;
	}
	if (strcmp(how, "exited") == 0 && code <= 255)
		st->st_how = LPAD_HOW_EXITED;
	else if (strcmp(how, "signal") == 0 && code >= 1 && code < 128)
		st->st_how = LPAD_HOW_SIGNAL;
	else {
		errno = EBADMSG;
		return -1;
	}
	st->st_state = LPAD_STATE_EXITED;
	st->st_code = code;
	st->st_start_ms = start;
	st->st_end_ms = end;
	return 0;
}

/* Creates run_dir (if missing) and RUNDIR/lpad, ours and mode 0700. */
static int
client_prepare_dir(const char *run_dir, char *why, size_t whysz)
{
	char dir[LPAD_PATH_MAX];
	struct stat st;

	if (lpad_sock_dir(run_dir, dir, sizeof(dir)) == -1) {
		errbuf_set(why, whysz, "run_dir too long");
		return -1;
	}
	if ((mkdir(run_dir, 0755) == -1 && errno != EEXIST) ||
	    (mkdir(dir, 0700) == -1 && errno != EEXIST)) {
		errbuf_set(why, whysz, "mkdir %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) == -1) {
		errbuf_set(why, whysz, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		errbuf_set(why, whysz, "%s must be a folder of uid %lu "
		    "with mode 0700", dir, (unsigned long)geteuid());
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * In the forked child: clean signals and descriptors, then exec, the
 * spec as standard input.
 */
static void
client_child(const char *binary, char **argv, int specfd, int errfd)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(specfd, 0) == -1 || dup2(errfd, 1) == -1 ||
	    dup2(errfd, 2) == -1) {
		dprintf(errfd, "dup2: %s\n", strerror(errno));
		_exit(127);
	}
	closefrom(3);
	execv(binary, argv);
	dprintf(2, "exec %s: %s\n", binary, strerror(errno));
	_exit(127);
}

/* The starting process's last word: its launch pad's pid, or why not. */
static int
start_result(struct lpad_start *st, pid_t *lpid, char *why, size_t whysz)
{
	char *p, *text = st->lst_text;
	const char *errstr;
	long long n64;

	if (WIFEXITED(st->lst_status) && WEXITSTATUS(st->lst_status) == 0 &&
	    (p = strchr(text, '\n')) != NULL && p[1] == '\0') {
		*p = '\0';
		n64 = strtonum(text, 1, INT32_MAX, &errstr);
		if (errstr == NULL) {
			*lpid = (pid_t)n64;
			return 0;
		}
		*p = '\n';
	}
	/* Its messages, one line. */
	for (p = text; *p != '\0'; p++)
		if (*p == '\n')
			*p = *(p + 1) != '\0' ? ';' : '\0';
	errbuf_set(why, whysz, "%s", st->lst_len > 0 ? text :
	    "the launch pad failed to start");
	errno = ECANCELED;
	return -1;
}

static void
start_close(struct lpad_start *st)
{
	int saved = errno;

	if (st->lst_fd != -1)
		close(st->lst_fd);
	st->lst_fd = -1;
	errno = saved;
}

void
lpad_spawn_abort(struct lpad_start *st)
{
	if (st->lst_child > 0 && !st->lst_reaped) {
		(void)kill(st->lst_child, SIGKILL);
		(void)waitpid(st->lst_child, &st->lst_status, 0);
		st->lst_reaped = 1;
	}
	start_close(st);
}

int
lpad_spawn_poll(struct lpad_start *st, pid_t *lpid, char *why, size_t whysz)
{
	ssize_t n;
	pid_t w;

	while (st->lst_fd != -1 && !st->lst_eof) {
		n = read(st->lst_fd, st->lst_text + st->lst_len,
		    sizeof(st->lst_text) - 1 - st->lst_len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n > 0) {
			st->lst_len += (size_t)n;
			st->lst_text[st->lst_len] = '\0';
		}
		if (n <= 0 || st->lst_len == sizeof(st->lst_text) - 1)
			st->lst_eof = 1;
	}
	if (st->lst_eof && !st->lst_reaped) {
		w = waitpid(st->lst_child, &st->lst_status, WNOHANG);
		if (w == st->lst_child || (w == -1 && errno == ECHILD)) {
			st->lst_reaped = 1;	/* ECHILD: someone else's */
			if (w == -1)
				st->lst_status = 0;
		}
	}
	if (st->lst_eof && st->lst_reaped) {
		start_close(st);
		return start_result(st, lpid, why, whysz);
	}
	if (now_mono() < st->lst_deadline)
		return 1;
	lpad_spawn_abort(st);
	errbuf_set(why, whysz, "the launch pad did not start within %d s",
	    LPAD_TIMEOUT);
	errno = ETIMEDOUT;
	return -1;
}

int
lpad_spawn_begin(struct lpad_start *st, const struct lpad_spec *sp,
    const struct lpad_paths *pp, const char *binary, char *why, size_t whysz)
{
	char sock[LPAD_PATH_MAX];
	char o_run[LPAD_PATH_MAX + 16], o_state[LPAD_PATH_MAX + 16];
	char linger[16], sub[256];
	char *argv[CLIENT_ARGV_MAX];
	int ep[2], specfd, i = 0;

	memset(st, 0, sizeof(*st));
	st->lst_fd = -1;
	st->lst_deadline = now_mono() + LPAD_TIMEOUT;
	if (lpad_spec_check(sp, sub, sizeof(sub)) == -1) {
		errbuf_set(why, whysz, "invalid spec: %s", sub);
		errno = EINVAL;
		return -1;
	}
	if (client_prepare_dir(pp->lpp_run_dir, why, whysz) == -1)
		return -1;
	if (lpad_sock_path(pp->lpp_run_dir, sp->ls_worker, sock,
	    sizeof(sock)) == -1 ||
	    (size_t)snprintf(o_run, sizeof(o_run), "run_dir=%s",
	    pp->lpp_run_dir) >= sizeof(o_run) ||
	    (size_t)snprintf(o_state, sizeof(o_state), "state_dir=%s",
	    pp->lpp_state_dir) >= sizeof(o_state)) {
		errbuf_set(why, whysz, "path too long");
		errno = ENAMETOOLONG;
		return -1;
	}
	if (client_alive(sock) == 1) {
		errbuf_set(why, whysz, "a launch pad for worker %s is "
		    "already running", sp->ls_worker);
		errno = EEXIST;
		return -1;
	}
	if ((specfd = lpad_spec_memfd(sp)) == -1) {
		errbuf_set(why, whysz, "the spec in memory: %s",
		    strerror(errno));
		return -1;
	}
	argv[i++] = (char *)(uintptr_t)binary;
	argv[i++] = (char *)(uintptr_t)"-p";
	argv[i++] = (char *)(uintptr_t)"-s";
	argv[i++] = (char *)(uintptr_t)"-";
	argv[i++] = (char *)(uintptr_t)"-o";
	argv[i++] = o_run;
	argv[i++] = (char *)(uintptr_t)"-o";
	argv[i++] = o_state;
	if (pp->lpp_conf != NULL) {
		argv[i++] = (char *)(uintptr_t)"-c";
		argv[i++] = (char *)(uintptr_t)pp->lpp_conf;
	}
	if (pp->lpp_linger >= 0) {
		snprintf(linger, sizeof(linger), "%d", pp->lpp_linger);
		argv[i++] = (char *)(uintptr_t)"-L";
		argv[i++] = linger;
	}
	if (pp->lpp_verbose)
		argv[i++] = (char *)(uintptr_t)"-v";
	argv[i] = NULL;

	if (pipe2(ep, O_CLOEXEC) == -1) {
		errbuf_set(why, whysz, "pipe: %s", strerror(errno));
		close(specfd);
		return -1;
	}
	if ((st->lst_child = fork()) == -1) {
		errbuf_set(why, whysz, "fork: %s", strerror(errno));
		close(ep[0]);
		close(ep[1]);
		close(specfd);
		return -1;
	}
	if (st->lst_child == 0)
		client_child(binary, argv, specfd, ep[1]);
	close(ep[1]);
	close(specfd);
	st->lst_fd = ep[0];
	if (fcntl(st->lst_fd, F_SETFL, O_NONBLOCK) == -1) {
		errbuf_set(why, whysz, "pipe: %s", strerror(errno));
		lpad_spawn_abort(st);
		return -1;
	}
	return 0;
}

int
lpad_spawn(const struct lpad_spec *sp, const struct lpad_paths *pp,
    const char *binary, pid_t *pidp, char *why, size_t whysz)
{
	struct lpad_start st;
	struct pollfd pfd;
	double left;
	int rc;

	if (lpad_spawn_begin(&st, sp, pp, binary, why, whysz) == -1)
		return -1;
	while ((rc = lpad_spawn_poll(&st, pidp, why, whysz)) == 1) {
		left = st.lst_deadline - now_mono();
		if (st.lst_eof) {	/* its exit, next */
			usleep(10000);
			continue;
		}
		pfd.fd = st.lst_fd;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, left > 0 ? (int)(left * 1000) + 1 : 0);
	}
	return rc;
}

int
lpad_remove_folder(const char *state_dir, const char *worker)
{
	static const char *const files[] = { "spec", "pid", "status",
	    "out.log", "err.log", "lpad.pid", ".spec.tmp", ".pid.tmp",
	    ".status.tmp", ".lpad.pid.tmp", STAGE_OUT_FILE };
	char path[LPAD_PATH_MAX + 16];
	size_t i;
	int wsfd, wfd, rc = 0, saved;

	if (!lpad_worker_ok(worker) || (size_t)snprintf(path, sizeof(path),
	    "%s/workers", state_dir) >= sizeof(path)) {
		errno = EINVAL;
		return -1;
	}
	if ((wsfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((wfd = openat(wsfd, worker, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		saved = errno;
		close(wsfd);
		errno = saved;
		return -1;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (unlinkat(wfd, files[i], 0) == -1 && errno != ENOENT)
			rc = -1;
	/* A staged task's folder: never through a link (stage.h). */
	if (stage_rmtree(wfd, STAGE_TASK_DIR) == -1)
		rc = -1;
	close(wfd);
	if (unlinkat(wsfd, worker, AT_REMOVEDIR) == -1)
		rc = -1;
	saved = errno;
	close(wsfd);
	errno = saved;
	return rc;
}
