/*
 * log — OpenBSD-style logging: stderr in the foreground, syslog otherwise.
 * On systemd's journal stream (JOURNAL_STREAM) a stderr line is "<N>text"
 * (sd-daemon(3) priority, no program name); elsewhere "ident: text".
 */
#ifndef CILKNOW_LOG_H
#define CILKNOW_LOG_H

#include <stdarg.h>

/*
 * foreground: 1 logs to stderr, 0 to syslog (LOG_DAEMON) under ident.
 * verbose: 0 info and up, 1 adds debug.  Safe to call again (re-init);
 * whether stderr is the journal is decided here, not per line.
 */
void	log_init(int foreground, const char *ident, int verbose);
/*
 * A foreground daemon's lines start with an ISO 8601 UTC time to the
 * millisecond ("2026-11-27T19:45:12.345Z "), measured on the monotonic
 * clock from one reading of the wall clock; not on the journal, which
 * stamps lines itself, nor in syslog.  Off until called with 1.
 */
void	log_timestamps(int on);
void	log_setverbose(int verbose);
int	log_getverbose(void);

/*
 * Priorities: log_warn and log_warnx LOG_ERR (log_warn appends
 * ": strerror(errno)"), log_warning LOG_WARNING (something an
 * administrator should act on that is not an error), log_info LOG_INFO,
 * log_debug LOG_DEBUG, fatal and fatalx LOG_CRIT.  Every function
 * preserves errno.
 */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warning(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/*
 * One limit for every line a peer can make repeat (a refused request, a
 * refused description): at most lr_burst lines every lr_interval
 * seconds of `now` (a monotonic clock).  When a new window opens after
 * lines were held back, log_rate first logs, at info priority, "N more
 * WHAT not logged in the last S s".  Returns 1 when the caller may log
 * its line.
 */
struct log_rate {
	double		 lr_interval;
	unsigned	 lr_burst;
	double		 lr_window;	/* start of the current window */
	unsigned	 lr_lines;	/* logged in it */
	unsigned long	 lr_held;	/* not logged since it began */
};
#define LOG_RATE(interval, burst)	{ (interval), (burst), 0, 0, 0 }
#define LOG_RATE_DEFAULT		LOG_RATE(60, 20)

int	log_rate(struct log_rate *, double now, const char *what);

#endif
