/*
 * log_test — the OpenBSD-style logger: format, errno preservation,
 * strerror on log_warn, the truncation marker, debug gating, fatal exit
 * status, and the journal's "<N>" priority prefixes when (and only when)
 * JOURNAL_STREAM names stderr.  stderr is redirected to a temporary file
 * to read the lines.
 */
#include "log.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static char	cap_dir[256];
static char	cap_path[PATH_MAX];
static char	cap_buf[16384];
static int	cap_saved = -1;

static void	cap_start(void);
static const char *cap_end(void);
static int	line_ends_with_plus(const char *);
static void	journal_env(const char *);

static void
cap_start(void)
{
	int fd;

	fflush(stderr);
	if ((cap_saved = dup(STDERR_FILENO)) == -1)
		abort();
	fd = open(cap_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || dup2(fd, STDERR_FILENO) == -1)
		abort();
	close(fd);
}

/* Restores stderr and returns what was written to it. */
static const char *
cap_end(void)
{
	ssize_t n;
	size_t len = 0;
	int fd;

	fflush(stderr);
	if (dup2(cap_saved, STDERR_FILENO) == -1)
		abort();
	close(cap_saved);
	cap_saved = -1;
	if ((fd = open(cap_path, O_RDONLY | O_CLOEXEC)) == -1)
		abort();
	while (len < sizeof(cap_buf) - 1 &&
	    (n = read(fd, cap_buf + len, sizeof(cap_buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	cap_buf[len] = '\0';
	return cap_buf;
}

/* One line, whose last character before the newline is '+'. */
static int
line_ends_with_plus(const char *s)
{
	size_t len = strlen(s);

	return len >= 2 && s[len - 1] == '\n' && s[len - 2] == '+' &&
	    strchr(s, '\n') == s + len - 1;
}

/* JOURNAL_STREAM naming path's device and inode, as systemd sets it. */
static void
journal_env(const char *path)
{
	struct stat st;
	char v[64];

	if (stat(path, &st) == -1)
		abort();
	snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
	    (unsigned long long)st.st_ino);
	if (setenv("JOURNAL_STREAM", v, 1) == -1)
		abort();
}

int
main(void)
{
	char big[5000], want[256];
	const char *out;
	pid_t pid;
	int status, e;

	snprintf(cap_dir, sizeof(cap_dir), "%s/log_test.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(cap_dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(cap_path, sizeof(cap_path), "%s/stderr", cap_dir);

	log_init(1, "logtest", 0);
	is_int(log_getverbose(), 0, "verbose starts at 0");

	/* log_warn: strerror appended, errno preserved. */
	cap_start();
	errno = ENOENT;
	log_warn("%s: open %s", "main", "/nonexistent");
	e = errno;
	out = cap_end();
	is_int(e, ENOENT, "log_warn preserves errno");
	snprintf(want, sizeof(want), "logtest: main: open /nonexistent: %s\n",
	    strerror(ENOENT));
	is_str(out, want, "log_warn appends strerror");

	cap_start();
	errno = EACCES;
	log_warnx("%s: no strerror here", "main");
	e = errno;
	out = cap_end();
	is_int(e, EACCES, "log_warnx preserves errno");
	is_str(out, "logtest: main: no strerror here\n", "log_warnx text");

	cap_start();
	errno = EPERM;
	log_info("%s: %d jobs", "main", 3);
	e = errno;
	out = cap_end();
	is_int(e, EPERM, "log_info preserves errno");
	is_str(out, "logtest: main: 3 jobs\n", "log_info text");

	/* Debug only with verbose. */
	cap_start();
	errno = EINTR;
	log_debug("hidden %d", 1);
	e = errno;
	out = cap_end();
	is_str(out, "", "log_debug silent when not verbose");
	is_int(e, EINTR, "log_debug preserves errno when silent");
	log_setverbose(1);
	is_int(log_getverbose(), 1, "log_setverbose(1)");
	cap_start();
	errno = EINTR;
	log_debug("shown %d", 2);
	e = errno;
	out = cap_end();
	is_str(out, "logtest: shown 2\n", "log_debug shown when verbose");
	is_int(e, EINTR, "log_debug preserves errno");
	log_setverbose(0);

	/* Truncation: one bounded line ending in '+'. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cap_start();
	log_info("%s", big);
	out = cap_end();
	ok(line_ends_with_plus(out), "overlong message marked with '+'");
	ok(strlen(out) < 1100, "overlong message bounded (%zu bytes)",
	    strlen(out));
	ok(strncmp(out, "logtest: aaaa", 13) == 0, "truncated line keeps "
	    "its start");

	cap_start();
	errno = ENOENT;
	log_warn("%s", big);
	e = errno;
	out = cap_end();
	ok(line_ends_with_plus(out), "overlong log_warn marked with '+'");
	is_int(e, ENOENT, "overlong log_warn preserves errno");

	/* Exactly at the edge: strerror pushes it over. */
	memset(big, 'b', 1015);
	big[1015] = '\0';
	cap_start();
	errno = ENOENT;
	log_warn("%s", big);
	out = cap_end();
	ok(line_ends_with_plus(out), "strerror overflowing the buffer "
	    "marked with '+'");

	/* A short message is not marked. */
	cap_start();
	log_info("short+");
	out = cap_end();
	is_str(out, "logtest: short+\n", "short message unchanged");

	/* Control characters cannot forge a second line. */
	cap_start();
	log_info("a\nb\tc");
	out = cap_end();
	is_str(out, "logtest: a?b?c\n", "control characters replaced");

	/* Re-init with another ident. */
	log_init(1, "other", 0);
	cap_start();
	log_info("x");
	out = cap_end();
	is_str(out, "other: x\n", "log_init again changes the ident");

	/* log_warning: a warning, formatted like the others. */
	log_init(1, "logtest", 0);
	cap_start();
	errno = EPERM;
	log_warning("%s: needs a restart", "listen");
	e = errno;
	out = cap_end();
	is_str(out, "logtest: listen: needs a restart\n", "log_warning text");
	is_int(e, EPERM, "log_warning preserves errno");

	/*
	 * stderr is the journal's stream: sd-daemon priority prefixes, no
	 * program name.  Decided at log_init, with stderr already there.
	 */
	cap_start();
	journal_env(cap_path);
	log_init(1, "logtest", 1);
	log_warnx("an error %d", 1);
	log_warning("a warning");
	log_info("news");
	log_debug("detail");
	errno = ENOENT;
	log_warn("open x");
	fflush(stdout);
	if ((pid = fork()) == 0)
		fatalx("broken");
	waitpid(pid, &status, 0);
	out = cap_end();
	snprintf(want, sizeof(want), "<3>an error 1\n<4>a warning\n<6>news\n"
	    "<7>detail\n<3>open x: %s\n<2>fatal: broken\n", strerror(ENOENT));
	is_str(out, want, "journal stream: '<N>' priority prefixes, no ident");
	cap_start();
	log_info("a\nb");
	out = cap_end();
	is_str(out, "<6>a?b\n", "journal stream: no forged second line "
	    "(or priority)");

	/* The variable alone is not enough: it must name stderr. */
	journal_env(cap_dir);
	cap_start();
	log_init(1, "logtest", 0);
	log_warning("w");
	out = cap_end();
	is_str(out, "logtest: w\n", "JOURNAL_STREAM naming another file: "
	    "plain lines");
	{
		static const char *const bad[] = { "", "12", "a:b", "1:",
		    ":1", "1:2x", "-1:-1", "99999999999999999999999:1" };
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			setenv("JOURNAL_STREAM", bad[i], 1);
			cap_start();
			log_init(1, "logtest", 0);
			log_info("i");
			out = cap_end();
			is_str(out, "logtest: i\n", "JOURNAL_STREAM='%s': "
			    "plain lines", bad[i]);
		}
	}
	unsetenv("JOURNAL_STREAM");
	cap_start();
	log_init(1, "logtest", 0);
	log_info("i");
	out = cap_end();
	is_str(out, "logtest: i\n", "no JOURNAL_STREAM: plain lines");

	/* Time stamps: ISO 8601 UTC to the millisecond, then the line. */
	{
		struct timespec before;
		struct tm tm;
		char today[16];
		regex_t re;
		int m;

		log_timestamps(1);
		clock_gettime(CLOCK_REALTIME, &before);
		gmtime_r(&before.tv_sec, &tm);
		strftime(today, sizeof(today), "%Y-%m-%dT", &tm);
		cap_start();
		log_info("stamped");
		out = cap_end();
		regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
		    "[0-9]{2}\\.[0-9]{3}Z logtest: stamped\n$", REG_EXTENDED);
		m = regexec(&re, out, 0, NULL, 0);
		regfree(&re);
		ok(m == 0, "log_timestamps(1): \"%.40s\" is stamped", out);
		ok(strncmp(out, today, strlen(today)) == 0,
		    "the stamp is today's date in UTC (%s)", today);
		journal_env(cap_path);
		cap_start();
		log_init(1, "logtest", 0);
		log_info("j");
		out = cap_end();
		is_str(out, "<6>j\n", "no stamp on the journal, which has its own");
		unsetenv("JOURNAL_STREAM");
		log_init(1, "logtest", 0);
		log_timestamps(0);
		cap_start();
		log_info("plain");
		out = cap_end();
		is_str(out, "logtest: plain\n", "log_timestamps(0): no stamp");
	}

	/* syslog mode writes nothing to stderr. */
	log_init(0, "logtest", 0);
	cap_start();
	errno = ENOENT;
	log_info("to syslog");
	e = errno;
	out = cap_end();
	is_str(out, "", "syslog mode leaves stderr alone");
	is_int(e, ENOENT, "errno preserved in syslog mode");
	log_init(1, "logtest", 0);

	/* fatalx and fatal log, then exit 1. */
	cap_start();
	fflush(stdout);
	if ((pid = fork()) == 0)
		fatalx("%s: broken invariant %d", "main", 7);
	waitpid(pid, &status, 0);
	out = cap_end();
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 1, "fatalx exits 1");
	is_str(out, "logtest: fatal: main: broken invariant 7\n",
	    "fatalx text");

	cap_start();
	fflush(stdout);
	if ((pid = fork()) == 0) {
		errno = EBADF;
		fatal("%s: read", "main");
	}
	waitpid(pid, &status, 0);
	out = cap_end();
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 1, "fatal exits 1");
	snprintf(want, sizeof(want), "logtest: fatal: main: read: %s\n",
	    strerror(EBADF));
	is_str(out, want, "fatal appends strerror");

	/* The one rate limiter: 3 lines a 10 s window, then a count. */
	{
		struct log_rate lr = LOG_RATE(10, 3);
		int let = 0, i;

		log_init(1, "logtest", 0);
		cap_start();
		for (i = 0; i < 1000; i++)
			if (log_rate(&lr, 100.0 + i * 0.001, "refusals"))
				let++;
		out = cap_end();
		is_int(let, 3, "1000 lines in 1 s: 3 let through");
		is_str(out, "", "and log_rate itself said nothing yet");
		cap_start();
		ok(log_rate(&lr, 110.5, "refusals"), "a new window lets one "
		    "through");
		out = cap_end();
		is_str(out, "logtest: 997 more refusals not logged in the last "
		    "10 s\n", "after saying how many were held back");
		cap_start();
		ok(log_rate(&lr, 110.6, "refusals") &&
		    log_rate(&lr, 110.7, "refusals") &&
		    !log_rate(&lr, 110.8, "refusals"),
		    "then 2 more, then none");
		ok(log_rate(&lr, 121.0, "refusals"), "the next window");
		out = cap_end();
		is_str(out, "logtest: 1 more refusals not logged in the last "
		    "10 s\n", "with its count");
	}

	unlink(cap_path);
	rmdir(cap_dir);
	return tap_done();
}
