/* errbuf — a failure's reason into the caller's buffer. */
#include "errbuf.h"

#include <errno.h>
#include <stdio.h>

void
errbuf_vset(char *buf, size_t bufsz, const char *fmt, va_list ap)
{
	int saved = errno;

	if (buf != NULL && bufsz > 0)
		(void)vsnprintf(buf, bufsz, fmt, ap);
	errno = saved;
}

void
errbuf_set(char *buf, size_t bufsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(buf, bufsz, fmt, ap);
	va_end(ap);
}
