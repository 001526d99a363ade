/*
 * log — OpenBSD-style logging (after iked and ntpd log.c): lines go to
 * stderr in the foreground and to syslog (LOG_DAEMON) otherwise.
 *
 * When stderr is systemd's journal stream (JOURNAL_STREAM names its
 * device and inode, systemd.exec(5)), a line starts with its priority
 * as sd-daemon(3) says, "<3>" for an error, "<4>" a warning, "<6>"
 * information, "<7>" debugging, and not with the program name, which
 * the journal records itself; so "journalctl -p warning" finds what it
 * should.  Anything else stderr may be (a terminal, a file, a pipe)
 * keeps "ident: message".  No libsystemd: the prefix is the protocol.
 *
 * Every message is formatted into a bounded buffer; a message that does
 * not fit is cut and its last character replaced by '+'.  Control
 * characters become '?' so that text from the network cannot forge log
 * lines.  Every function preserves errno.
 *
 * The log state below is the one set of mutable globals outside
 * daemons/ (as in OpenBSD): it is static and only touched here.
 */
#include "log.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define LOG_LINE_MAX	1024
#define LOG_IDENT_MAX	64

static int	log_foreground = 1;
static int	log_verbose;
static int	log_syslog_open;
static int	log_journal;	/* stderr is the journal: "<N>" prefixes */
static char	log_ident[LOG_IDENT_MAX];
static int	log_stamps;	/* stderr lines start with the time */
static struct timespec log_wall0, log_mono0;	/* one reading of both */

static void	log_vlog(int, const char *, int, int, const char *, va_list)
		    __attribute__((format(printf, 5, 0)));

/*
 * Whether fd is the stream JOURNAL_STREAM ("DEVICE:INODE", decimal)
 * names.  The variable alone is not enough: it is inherited by children
 * whose stderr went elsewhere (systemd.exec(5) says to compare both).
 */
static int
log_is_journal(int fd)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char *end;

	if (env == NULL || *env < '0' || *env > '9')
		return 0;
	errno = 0;
	dev = strtoull(env, &end, 10);
	if (errno != 0 || *end != ':' || end[1] < '0' || end[1] > '9')
		return 0;
	ino = strtoull(end + 1, &end, 10);
	if (errno != 0 || *end != '\0' || fstat(fd, &st) == -1)
		return 0;
	return (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

void
log_init(int foreground, const char *ident, int verbose)
{
	int saved_errno = errno;

	if (ident == NULL || *ident == '\0')
		ident = getprogname();
	if (ident == NULL)
		ident = "cilknow";
	if (log_syslog_open) {
		closelog();
		log_syslog_open = 0;
	}
	/* openlog(3) keeps the pointer, so ident lives in our own copy. */
	strlcpy(log_ident, ident, sizeof(log_ident));
	log_foreground = foreground;
	log_journal = foreground && log_is_journal(STDERR_FILENO);
	log_verbose = verbose;
	if (!foreground) {
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_syslog_open = 1;
	}
	/* Load the time zone now: after chroot it can no longer be read. */
	tzset();
	errno = saved_errno;
}

/*
 * The time of a line is the wall clock read once plus the monotonic time
 * since: intervals between lines stay exact when the clock is stepped,
 * which is what a stall hunted in a log needs.
 */
void
log_timestamps(int on)
{
	int saved_errno = errno;

	log_stamps = on;
	if (on && clock_gettime(CLOCK_REALTIME, &log_wall0) == -1)
		log_stamps = 0;
	if (on && clock_gettime(CLOCK_MONOTONIC, &log_mono0) == -1)
		log_stamps = 0;
	errno = saved_errno;
}

/* "2026-11-27T19:45:12.345Z " into buf (at least LOG_STAMP_LEN bytes). */
static void
log_stamp(char *buf, size_t size)
{
	struct timespec now;
	struct tm tm;
	long long ms;
	time_t sec;

	buf[0] = '\0';
	if (clock_gettime(CLOCK_MONOTONIC, &now) == -1)
		return;
	ms = (long long)(now.tv_sec - log_mono0.tv_sec) * 1000 +
	    (now.tv_nsec - log_mono0.tv_nsec) / 1000000 +
	    (long long)log_wall0.tv_sec * 1000 + log_wall0.tv_nsec / 1000000;
	sec = (time_t)(ms / 1000);
	if (gmtime_r(&sec, &tm) == NULL)
		return;
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

/*
 * Formats prefix (if not NULL), fmt, and ": strerror(errnum)" when
 * with_errno, and writes one line at priority pri.  Preserves errno.
 */
static void
log_vlog(int pri, const char *prefix, int with_errno, int errnum,
    const char *fmt, va_list ap)
{
	char	 buf[LOG_LINE_MAX];
	size_t	 len;
	int	 n, trunc = 0;
	int	 saved_errno = errno;
	char	*p;

	len = 0;
	if (prefix != NULL)
		len = strlcpy(buf, prefix, sizeof(buf));
	if (len >= sizeof(buf))
		trunc = 1;
	else {
		n = vsnprintf(buf + len, sizeof(buf) - len, fmt, ap);
		if (n < 0) {
			/* Encoding error: log the format, not nothing. */
			if (strlcpy(buf + len, fmt, sizeof(buf) - len) >=
			    sizeof(buf) - len)
				trunc = 1;
		} else if ((size_t)n >= sizeof(buf) - len)
			trunc = 1;
	}
	if (!trunc && with_errno) {
		len = strlen(buf);
		n = snprintf(buf + len, sizeof(buf) - len, ": %s",
		    strerror(errnum));
		if (n < 0 || (size_t)n >= sizeof(buf) - len)
			trunc = 1;
	}
	if (trunc)
		buf[sizeof(buf) - 2] = '+';

	for (p = buf; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';

	if (log_foreground) {
		char stamp[32] = "";

		if (log_stamps && !log_journal)
			log_stamp(stamp, sizeof(stamp));
		if (log_journal)
			fprintf(stderr, "<%d>%s\n", pri, buf);
		else if (log_ident[0] != '\0')
			fprintf(stderr, "%s%s: %s\n", stamp, log_ident, buf);
		else
			fprintf(stderr, "%s%s\n", stamp, buf);
		fflush(stderr);
	} else
		syslog(pri, "%s", buf);
	errno = saved_errno;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	va_start(ap, fmt);
	log_vlog(LOG_ERR, NULL, 1, saved_errno, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	va_start(ap, fmt);
	log_vlog(LOG_ERR, NULL, 0, 0, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_warning(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	va_start(ap, fmt);
	log_vlog(LOG_WARNING, NULL, 0, 0, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_info(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	va_start(ap, fmt);
	log_vlog(LOG_INFO, NULL, 0, 0, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	log_vlog(LOG_DEBUG, NULL, 0, 0, fmt, ap);
	va_end(ap);
	errno = saved_errno;
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	int saved_errno = errno;

	va_start(ap, fmt);
	log_vlog(LOG_CRIT, "fatal: ", 1, saved_errno, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_CRIT, "fatal: ", 0, 0, fmt, ap);
	va_end(ap);
	exit(1);
}

int
log_rate(struct log_rate *lr, double now, const char *what)
{
	if (lr->lr_lines == 0 && lr->lr_held == 0)
		lr->lr_window = now;
	if (now - lr->lr_window >= lr->lr_interval) {
		if (lr->lr_held > 0)
			log_info("%lu more %s not logged in the last %.0f s",
			    lr->lr_held, what, now - lr->lr_window);
		lr->lr_window = now;
		lr->lr_lines = 0;
		lr->lr_held = 0;
	}
	if (lr->lr_lines < lr->lr_burst) {
		lr->lr_lines++;
		return 1;
	}
	lr->lr_held++;
	return 0;
}
