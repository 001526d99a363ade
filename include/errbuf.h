/*
 * errbuf — the reason a function failed, into the caller's buffer: what
 * every "char *err, size_t errlen" pair of the libraries fills.
 */
#ifndef CILKNOW_ERRBUF_H
#define CILKNOW_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Like snprintf(3) into buf (truncated to fit), but a NULL buffer or a
 * size of 0 is fine (nothing is written) and errno is kept as it was,
 * so that the caller's errno still says what failed.
 */
void	errbuf_set(char *buf, size_t bufsz, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	errbuf_vset(char *buf, size_t bufsz, const char *fmt, va_list ap)
	    __attribute__((format(printf, 3, 0)));

#endif
