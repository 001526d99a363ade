/* log — OpenBSD-style logging: stderr in the foreground, syslog otherwise. */
#ifndef CILKNOW_LOG_H
#define CILKNOW_LOG_H

#include <stdarg.h>

/*
 * foreground: 1 logs to stderr, 0 to syslog (LOG_DAEMON) under ident.
 * verbose: 0 info and up, 1 adds debug.  Safe to call again (re-init).
 */
void	log_init(int foreground, const char *ident, int verbose);
void	log_setverbose(int verbose);
int	log_getverbose(void);

/* log_warn appends ": strerror(errno)"; every function preserves errno. */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

#endif
