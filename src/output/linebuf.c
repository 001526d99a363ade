/* linebuf — whole lines out of a stream in pieces; see linebuf.h. */
#include "linebuf.h"

#include <stdlib.h>
#include <string.h>

static int
keep(struct linebuf *lb, const char *p, size_t n)
{
	size_t cap;
	char *nb;

	if (lb->lb_len + n > lb->lb_cap) {
		cap = lb->lb_cap ? lb->lb_cap : 256;
		while (cap < lb->lb_len + n)
			cap *= 2;
		if (cap > LINEBUF_MAX)
			cap = LINEBUF_MAX;
		if ((nb = realloc(lb->lb_buf, cap)) == NULL)
			return -1;
		lb->lb_buf = nb;
		lb->lb_cap = cap;
	}
	memcpy(lb->lb_buf + lb->lb_len, p, n);
	lb->lb_len += n;
	return 0;
}

int
linebuf_feed(struct linebuf *lb, const void *data, size_t n,
    linebuf_fn *emit, void *arg)
{
	const char *p = data, *nl;
	size_t k, room;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		room = LINEBUF_MAX - lb->lb_len;
		if (k > room) {
			/* Too long to keep: a piece of LINEBUF_MAX goes. */
			if (keep(lb, p, room) == -1 ||
			    linebuf_flush(lb, emit, arg) == -1)
				return -1;
			p += room;
			n -= room;
			continue;
		}
		if (nl == NULL)
			return keep(lb, p, k);
		if (lb->lb_len == 0) {
			/* The common case: no copy. */
			if (emit(arg, p, k) == -1)
				return -1;
		} else if (keep(lb, p, k) == -1 ||
		    linebuf_flush(lb, emit, arg) == -1)
			return -1;
		p += k + 1;
		n -= k + 1;
	}
	return 0;
}

int
linebuf_flush(struct linebuf *lb, linebuf_fn *emit, void *arg)
{
	size_t len = lb->lb_len;

	if (len == 0)
		return 0;
	lb->lb_len = 0;
	return emit(arg, lb->lb_buf, len);
}

void
linebuf_clear(struct linebuf *lb)
{
	free(lb->lb_buf);
	memset(lb, 0, sizeof(*lb));
}
