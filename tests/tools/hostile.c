/*
 * hostile — a guest that misbehaves, for tests: run as a cilknow
 * worker (the job's program), it tries to outlive, escape, starve or
 * attack what runs it.
 *   hostile MODE [ARG ...]     (hostile -h lists the modes)
 * It prints "hostile: MODE ready pid=N" once its setup is done, then
 * one line per thing it tried.  Everything it does is bounded: each
 * process it makes kills itself with alarm() after $HOSTILE_ALARM
 * seconds (default and at most 600), and every loop also stops at that
 * deadline, so a stop that fails leaves nothing running for long.
 * The signals it may send never go to pids -1, 0 or 1.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ALARM_MAX	600		/* seconds, longest life */
#define FORK_MAX	20000
#define ALLOC_MAX	(1024 * 1024)	/* MB */
#define ALLOC_STEP	(1024 * 1024)
#define READ_MAX	(64LL * 1024 * 1024)	/* bytes read per path */
#define ENTRIES_MAX	10000		/* entries listed per folder */
#define HEX_MAX		(1024 * 1024)	/* bytes of HEXFILE read */
#define DGRAM_MAX	65507

static const char	*mode;
static unsigned int	 alarm_s = ALARM_MAX;
static double		 t0;		/* when this process started */

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout,
	    "usage: hostile MODE [ARG ...]\n"
	    "  escape             leave a grandchild in a new session\n"
	    "                     (its pid to $HOSTILE_PIDFILE), sleep\n"
	    "  daemon             the same through daemon(0, 0)\n"
	    "  ignore             ignore SIGHUP, SIGINT, SIGQUIT, SIGTERM,\n"
	    "                     SIGUSR1, SIGUSR2; sleep\n"
	    "  spin               burn CPU, print a tick each second\n"
	    "  stop-parent        SIGSTOP the parent and $HOSTILE_TARGET_PID\n"
	    "  kill-parent        SIGKILL the parent and $HOSTILE_TARGET_PID\n"
	    "  signal PID SIG     send SIG (number or name) to PID; sleep\n"
	    "  forkbomb N         fork up to N (<= %d) children that pause\n"
	    "  alloc MB           allocate and touch MB megabytes; sleep\n"
	    "  read PATH ...      read files, list folders; exit\n"
	    "  write PATH TEXT    append TEXT and a newline to PATH; exit\n"
	    "  udp HOST PORT HEXFILE\n"
	    "                     send HEXFILE (hex digits, blanks ignored)\n"
	    "                     as a datagram to HOST in 127.0.0.0/8; exit\n"
	    "  say TEXT           print TEXT on stdout and stderr, sleep\n"
	    "                     $HOSTILE_SLEEP seconds (default 0); exit\n"
	    "  sleep S            sleep S seconds; exit\n"
	    "Each process ends by itself within $HOSTILE_ALARM seconds\n"
	    "(1 to %d, default %d).\n", FORK_MAX, ALARM_MAX, ALARM_MAX);
	exit(status);
}

static const char *
errname(int e)
{
	static const struct {
		int		 e;
		const char	*name;
	} tab[] = {
		{ EPERM, "EPERM" }, { EACCES, "EACCES" }, { ESRCH, "ESRCH" },
		{ ENOENT, "ENOENT" }, { EAGAIN, "EAGAIN" },
		{ ENOMEM, "ENOMEM" }, { EINVAL, "EINVAL" },
		{ EEXIST, "EEXIST" }, { ENOTDIR, "ENOTDIR" },
		{ EISDIR, "EISDIR" }, { EROFS, "EROFS" },
		{ ENOSPC, "ENOSPC" }, { EDQUOT, "EDQUOT" },
		{ EMFILE, "EMFILE" }, { ELOOP, "ELOOP" }, { EPIPE, "EPIPE" },
		{ ECONNREFUSED, "ECONNREFUSED" },
		{ ENETUNREACH, "ENETUNREACH" },
	};
	static char num[16];
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].e == e)
			return tab[i].name;
	(void)snprintf(num, sizeof(num), "%d", e);
	return num;
}

static const struct {
	int		 sig;
	const char	*name;
} sigtab[] = {
	{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
	{ SIGKILL, "SIGKILL" }, { SIGUSR1, "SIGUSR1" },
	{ SIGUSR2, "SIGUSR2" }, { SIGPIPE, "SIGPIPE" },
	{ SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
	{ SIGCHLD, "SIGCHLD" }, { SIGCONT, "SIGCONT" },
	{ SIGSTOP, "SIGSTOP" }, { SIGTSTP, "SIGTSTP" },
	{ SIGSEGV, "SIGSEGV" }, { SIGXCPU, "SIGXCPU" },
};

static const char *
signame(int sig)
{
	static char num[16];
	size_t i;

	for (i = 0; i < sizeof(sigtab) / sizeof(sigtab[0]); i++)
		if (sigtab[i].sig == sig)
			return sigtab[i].name;
	(void)snprintf(num, sizeof(num), "%d", sig);
	return num;
}

/* A line on stdout, flushed; where nobody reads any more it is lost. */
static void __attribute__((format(printf, 1, 2)))
say(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	(void)vfprintf(stdout, fmt, ap);
	va_end(ap);
	(void)fflush(stdout);
	errno = saved;
}

static void
ready(void)
{
	say("hostile: %s ready pid=%ld\n", mode, (long)getpid());
}

static double
now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts this process's clock: SIGALRM after alarm_s seconds. */
static void
arm(void)
{
	t0 = now();
	(void)alarm(alarm_s);
}

static int
expired(void)
{
	return now() >= t0 + alarm_s + 5;
}

/* Sleeps until SIGALRM ends the process (or, failing that, exits). */
static void __attribute__((noreturn))
linger(void)
{
	while (!expired())
		(void)sleep(1);
	(void)fflush(stdout);
	_exit(0);
}

static void
nap(double s)
{
	struct timespec ts;
	double end = now() + s, left;

	while ((left = end - now()) > 0 && !expired()) {
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		if (nanosleep(&ts, NULL) == -1 && errno != EINTR)
			err(1, "nanosleep");
	}
}

static double
seconds(const char *s, const char *what)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(d) ||
	    d < 0 || d > ALARM_MAX)
		errx(2, "%s: %s: want seconds from 0 to %d", what, s,
		    ALARM_MAX);
	return d;
}

/* A pid we may signal: never -1 (everyone), 0 (our group) or 1. */
static pid_t
pidarg(const char *s, const char *what)
{
	const char *errstr;
	long long n;

	n = strtonum(s, -(long long)INT_MAX, INT_MAX, &errstr);
	if (errstr != NULL || (n >= -1 && n <= 1))
		errx(2, "%s: %s: want a pid other than -1, 0, 1", what, s);
	return (pid_t)n;
}

static void
try_kill(pid_t pid, int sig)
{
	if (pid >= -1 && pid <= 1) {
		say("hostile: kill %ld %s: refused\n", (long)pid, signame(sig));
		return;
	}
	if (kill(pid, sig) == -1)
		say("hostile: kill %ld %s: %s\n", (long)pid, signame(sig),
		    errname(errno));
	else
		say("hostile: kill %ld %s: OK\n", (long)pid, signame(sig));
}

/* --- escape, daemon ---------------------------------------------- */

struct gc_msg {
	pid_t	pid;
	int	err;		/* errno writing the pidfile, or 0 */
};

static int
write_pidfile(const char *path, pid_t pid)
{
	char tmp[PATH_MAX], text[32];
	int fd, len, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path,
	    (long)pid) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	len = snprintf(text, sizeof(text), "%ld\n", (long)pid);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	if (write(fd, text, (size_t)len) != len) {
		saved = errno != 0 ? errno : EIO;
		(void)close(fd);
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1) {
		saved = errno;
		(void)unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

/* The grandchild: says who it is through fd, then stays. */
static void __attribute__((noreturn))
grandchild(int fd, const char *pidfile)
{
	struct gc_msg m;

	arm();
	m.pid = getpid();
	m.err = 0;
	if (pidfile[0] != '\0' && write_pidfile(pidfile, m.pid) == -1)
		m.err = errno;
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m) || m.err != 0)
		_exit(1);
	(void)close(fd);
	linger();
}

static void
escape(int use_daemon)
{
	char pidfile[PATH_MAX], cwd[PATH_MAX];
	struct gc_msg m;
	const char *env;
	pid_t mid;
	ssize_t n;
	int fds[2], status;

	/* Absolute: daemon() moves to /. */
	pidfile[0] = '\0';
	if ((env = getenv("HOSTILE_PIDFILE")) != NULL && env[0] != '\0') {
		if (env[0] == '/')
			cwd[0] = '\0';
		else if (getcwd(cwd, sizeof(cwd)) == NULL)
			err(1, "getcwd");
		if (snprintf(pidfile, sizeof(pidfile), "%s%s%s", cwd,
		    cwd[0] != '\0' ? "/" : "", env) >= (int)sizeof(pidfile))
			errx(1, "%s: path too long", env);
	}
	if (pipe2(fds, O_CLOEXEC) == -1)
		err(1, "pipe2");
	switch ((mid = fork())) {
	case -1:
		err(1, "fork");
	case 0:
		(void)close(fds[0]);
		if (use_daemon) {
			/* Its parent half calls _exit(0). */
			if (daemon(0, 0) == -1) {
				warn("daemon");
				_exit(1);
			}
		} else {
			if (setsid() == -1) {
				warn("setsid");
				_exit(1);
			}
			switch (fork()) {
			case -1:
				warn("fork");
				_exit(1);
			case 0:
				break;
			default:
				_exit(0);
			}
		}
		grandchild(fds[1], pidfile);
	}
	(void)close(fds[1]);
	while (waitpid(mid, &status, 0) == -1)
		if (errno != EINTR)
			err(1, "waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		errx(1, "the middle child failed");
	while ((n = read(fds[0], &m, sizeof(m))) == -1 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(m))
		errx(1, "the grandchild did not report");
	(void)close(fds[0]);
	if (m.err != 0)
		errx(1, "pidfile %s: %s", pidfile, errname(m.err));
	ready();
	say("hostile: grandchild pid=%ld\n", (long)m.pid);
	linger();
}

/* --- ignore, spin ------------------------------------------------ */

static void
ignore(void)
{
	static const int sigs[] = { SIGQUIT, SIGTERM, SIGHUP, SIGINT,
	    SIGUSR1, SIGUSR2 };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	if (sigemptyset(&sa.sa_mask) == -1)
		err(1, "sigemptyset");
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL) == -1)
			err(1, "sigaction %s", signame(sigs[i]));
	ready();
	linger();
}

static void
spin(void)
{
	volatile uint64_t x = 1;
	uint64_t loops = 0;
	double next;
	long tick = 0;
	int i;

	ready();
	next = now() + 1;
	while (!expired()) {
		for (i = 0; i < (1 << 20); i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		loops++;
		if (now() >= next) {
			say("hostile: spin tick=%ld loops=%llu\n", ++tick,
			    (unsigned long long)loops);
			next = now() + 1;
		}
	}
	_exit(0);
}

/* --- stop-parent, kill-parent, signal ---------------------------- */

static void
attack_parent(int sig)
{
	const char *env;
	pid_t target = 0, parent;

	parent = getppid();
	if ((env = getenv("HOSTILE_TARGET_PID")) != NULL && env[0] != '\0')
		target = pidarg(env, "HOSTILE_TARGET_PID");
	ready();
	try_kill(parent, sig);
	if (target != 0)
		try_kill(target, sig);
	linger();
}

static void
send_signal(const char *pidtext, const char *sigtext)
{
	const char *errstr, *s = sigtext;
	size_t i;
	pid_t pid;
	int sig = -1;

	pid = pidarg(pidtext, "PID");
	if (isdigit((unsigned char)sigtext[0])) {
		sig = (int)strtonum(sigtext, 0, 64, &errstr);
		if (errstr != NULL)
			errx(2, "%s: bad signal number", sigtext);
	} else {
		if (strncasecmp(s, "SIG", 3) == 0)
			s += 3;
		for (i = 0; i < sizeof(sigtab) / sizeof(sigtab[0]); i++)
			if (strcasecmp(s, sigtab[i].name + 3) == 0)
				sig = sigtab[i].sig;
		if (sig == -1)
			errx(2, "%s: unknown signal", sigtext);
	}
	ready();
	try_kill(pid, sig);
	linger();
}

/* --- forkbomb, alloc --------------------------------------------- */

static void
forkbomb(const char *ntext)
{
	const char *errstr;
	long n, k;
	int first = 0;
	pid_t pid;

	n = (long)strtonum(ntext, 0, FORK_MAX, &errstr);
	if (errstr != NULL)
		errx(2, "%s: want N from 0 to %d", ntext, FORK_MAX);
	ready();
	for (k = 0; k < n; k++) {
		if ((pid = fork()) == -1) {
			first = errno;
			break;
		}
		if (pid == 0) {
			arm();
			while (!expired())
				(void)pause();
			_exit(0);
		}
	}
	say("hostile: forked %ld of %ld (first error: %s)\n", k, n,
	    first != 0 ? errname(first) : "none");
	linger();
}

static void
alloc(const char *mbtext)
{
	const char *errstr;
	long mb, k;
	void *p;

	mb = (long)strtonum(mbtext, 0, ALLOC_MAX, &errstr);
	if (errstr != NULL)
		errx(2, "%s: want MB from 0 to %d", mbtext, ALLOC_MAX);
	ready();
	/* mmap, not malloc: ASan's malloc aborts where it should fail. */
	for (k = 0; k < mb && !expired(); k++) {
		p = mmap(NULL, ALLOC_STEP, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			say("hostile: alloc failed after %ld MB: %s\n", k,
			    errname(errno));
			linger();
		}
		memset(p, 0xa5, ALLOC_STEP);
		if ((k + 1) % 64 == 0)
			say("hostile: alloc %ld MB\n", k + 1);
	}
	say("hostile: alloc done %ld MB\n", k);
	linger();
}

/* --- read, write, udp -------------------------------------------- */

static void
read_dir(const char *path, int fd)
{
	struct dirent *de;
	DIR *d;
	long n = 0;

	if ((d = fdopendir(fd)) == NULL) {
		say("hostile: read %s: %s\n", path, errname(errno));
		(void)close(fd);
		return;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (n++ >= ENTRIES_MAX)
			break;
		say("hostile: read %s: entry %s\n", path, de->d_name);
	}
	if (de == NULL && errno != 0)
		say("hostile: read %s: %s\n", path, errname(errno));
	else
		say("hostile: read %s: OK (%ld entries%s)\n", path,
		    n > ENTRIES_MAX ? (long)ENTRIES_MAX : n,
		    n > ENTRIES_MAX ? ", cut" : "");
	(void)closedir(d);
}

static void
read_path(const char *path)
{
	static char buf[65536];
	struct stat st;
	long long total = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		say("hostile: read %s: %s\n", path, errname(errno));
		return;
	}
	if (fstat(fd, &st) == -1) {
		say("hostile: read %s: %s\n", path, errname(errno));
		(void)close(fd);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		read_dir(path, fd);
		return;
	}
	while (total < READ_MAX && !expired()) {
		if ((n = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			say("hostile: read %s: %s\n", path, errname(errno));
			(void)close(fd);
			return;
		}
		if (n == 0)
			break;
		total += n;
	}
	say("hostile: read %s: OK (%lld bytes%s)\n", path, total,
	    total >= READ_MAX ? ", cut" : "");
	(void)close(fd);
}

static void
write_path(const char *path, const char *text)
{
	struct iovec iov[2];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	ready();
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1) {
		say("hostile: write %s: %s\n", path, errname(errno));
		return;
	}
	iov[0].iov_base = (void *)(uintptr_t)text;
	iov[0].iov_len = len;
	iov[1].iov_base = (void *)(uintptr_t)"\n";
	iov[1].iov_len = 1;
	if ((n = writev(fd, iov, 2)) == -1)
		say("hostile: write %s: %s\n", path, errname(errno));
	else if ((size_t)n != len + 1)
		say("hostile: write %s: short (%zd of %zu bytes)\n", path, n,
		    len + 1);
	else
		say("hostile: write %s: OK (%zd bytes)\n", path, n);
	if (close(fd) == -1)
		say("hostile: write %s: close: %s\n", path, errname(errno));
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* HEXFILE's hex digits, blanks ignored, as bytes in dgram. */
static size_t
read_hex(const char *path, uint8_t *dgram)
{
	static char text[HEX_MAX];
	size_t len = 0, i, nd = 0;
	ssize_t n;
	int fd, v, hi = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		err(2, "%s", path);
	while (len < sizeof(text)) {
		if ((n = read(fd, text + len, sizeof(text) - len)) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "%s", path);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (close(fd) == -1)
		err(2, "%s", path);
	if (len == sizeof(text))
		errx(2, "%s: more than %d bytes of text", path, HEX_MAX - 1);
	for (i = 0; i < len; i++) {
		if (isspace((unsigned char)text[i]))
			continue;
		if ((v = hexval((unsigned char)text[i])) == -1)
			errx(2, "%s: not hex at byte %zu", path, i);
		if (nd / 2 >= DGRAM_MAX)
			errx(2, "%s: more than %d bytes", path, DGRAM_MAX);
		if (nd % 2 == 0)
			hi = v;
		else
			dgram[nd / 2] = (uint8_t)(hi << 4 | v);
		nd++;
	}
	if (nd % 2 != 0)
		errx(2, "%s: odd number of hex digits", path);
	return nd / 2;
}

static void
udp(const char *host, const char *porttext, const char *hexfile)
{
	static uint8_t dgram[DGRAM_MAX];
	struct sockaddr_in sin;
	const char *errstr;
	size_t len;
	ssize_t n;
	int s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		errx(2, "%s: want a numeric IPv4 address", host);
	if ((ntohl(sin.sin_addr.s_addr) >> 24) != 127)
		errx(2, "%s: refused: only 127.0.0.0/8", host);
	sin.sin_port = htons((uint16_t)strtonum(porttext, 1, 65535, &errstr));
	if (errstr != NULL)
		errx(2, "%s: bad port", porttext);
	len = read_hex(hexfile, dgram);
	ready();
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		say("hostile: udp %s:%s: %s\n", host, porttext, errname(errno));
		return;
	}
	if ((n = sendto(s, dgram, len, 0, (struct sockaddr *)&sin,
	    sizeof(sin))) == -1)
		say("hostile: udp %s:%s: %s\n", host, porttext, errname(errno));
	else
		say("hostile: udp %s:%s: OK (%zd bytes)\n", host, porttext, n);
	if (close(s) == -1)
		warn("close");
}

/* --- say, sleep ------------------------------------------------- */

static void
say_text(const char *text)
{
	const char *env;
	double s = 0;

	if ((env = getenv("HOSTILE_SLEEP")) != NULL && env[0] != '\0')
		s = seconds(env, "HOSTILE_SLEEP");
	ready();
	say("%s\n", text);
	(void)fprintf(stderr, "%s\n", text);
	(void)fflush(stderr);
	nap(s);
}

static void
sleep_for(const char *text)
{
	double s;

	s = seconds(text, "sleep");
	ready();
	nap(s);
}

/* --- main -------------------------------------------------------- */

static void
setup(void)
{
	struct sigaction sa;
	sigset_t set;
	const char *env, *errstr;

	if ((env = getenv("HOSTILE_ALARM")) != NULL && env[0] != '\0') {
		alarm_s = (unsigned int)strtonum(env, 1, ALARM_MAX, &errstr);
		if (errstr != NULL)
			errx(2, "HOSTILE_ALARM=%s: want 1 to %d", env,
			    ALARM_MAX);
	}
	/*
	 * Whatever we inherited: SIGALRM must kill us, SIGPIPE must not
	 * (a parent we killed no longer reads our stdout).
	 */
	memset(&sa, 0, sizeof(sa));
	if (sigemptyset(&sa.sa_mask) == -1)
		err(1, "sigemptyset");
	sa.sa_handler = SIG_DFL;
	if (sigaction(SIGALRM, &sa, NULL) == -1)
		err(1, "sigaction SIGALRM");
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) == -1)
		err(1, "sigaction SIGPIPE");
	if (sigemptyset(&set) == -1 || sigaddset(&set, SIGALRM) == -1 ||
	    sigprocmask(SIG_UNBLOCK, &set, NULL) == -1)
		err(1, "sigprocmask");
	arm();
}

int
main(int argc, char *argv[])
{
	int ch, i, nargs;

	while ((ch = getopt(argc, argv, "+h")) != -1) {
		switch (ch) {
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage(2);
	mode = argv[0];
	nargs = argc - 1;
	setup();

	if (strcmp(mode, "escape") == 0 && nargs == 0)
		escape(0);
	else if (strcmp(mode, "daemon") == 0 && nargs == 0)
		escape(1);
	else if (strcmp(mode, "ignore") == 0 && nargs == 0)
		ignore();
	else if (strcmp(mode, "spin") == 0 && nargs == 0)
		spin();
	else if (strcmp(mode, "stop-parent") == 0 && nargs == 0)
		attack_parent(SIGSTOP);
	else if (strcmp(mode, "kill-parent") == 0 && nargs == 0)
		attack_parent(SIGKILL);
	else if (strcmp(mode, "signal") == 0 && nargs == 2)
		send_signal(argv[1], argv[2]);
	else if (strcmp(mode, "forkbomb") == 0 && nargs == 1)
		forkbomb(argv[1]);
	else if (strcmp(mode, "alloc") == 0 && nargs == 1)
		alloc(argv[1]);
	else if (strcmp(mode, "read") == 0 && nargs >= 1) {
		ready();
		for (i = 1; i < argc; i++)
			read_path(argv[i]);
	} else if (strcmp(mode, "write") == 0 && nargs == 2)
		write_path(argv[1], argv[2]);
	else if (strcmp(mode, "udp") == 0 && nargs == 3)
		udp(argv[1], argv[2], argv[3]);
	else if (strcmp(mode, "say") == 0 && nargs == 1)
		say_text(argv[1]);
	else if (strcmp(mode, "sleep") == 0 && nargs == 1)
		sleep_for(argv[1]);
	else
		usage(2);
	if (fflush(stdout) == EOF && errno != EPIPE)
		err(1, "stdout");
	return 0;
}
