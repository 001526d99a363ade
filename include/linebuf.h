/*
 * linebuf — whole lines out of a byte stream that arrives in pieces
 * (a worker's output, relayed in chunks that may end mid-line).  The
 * job manager keeps one per task and stream and writes only complete
 * lines, so that lines of tasks running at once never interleave
 * (CilkJobManager(8)).  A line longer than LINEBUF_MAX is given out in
 * pieces of LINEBUF_MAX bytes, each as if it were a line of its own.
 */
#ifndef CILKNOW_LINEBUF_H
#define CILKNOW_LINEBUF_H

#include <stddef.h>

#define LINEBUF_MAX	65536	/* bytes of one line kept, at most */

struct linebuf {
	char	*lb_buf;	/* the partial line; NULL when empty */
	size_t	 lb_len;
	size_t	 lb_cap;
};

/*
 * Called for each line: its bytes without the newline.  Returns 0, or
 * -1 to stop (linebuf_feed() then returns -1).
 */
typedef int	linebuf_fn(void *arg, const char *line, size_t len);

/*
 * Adds n bytes; emit is called for every line they complete, in order.
 * 0, or -1 (ENOMEM, or emit's -1).  Bytes not yet part of a whole line
 * stay in lb.
 */
int	linebuf_feed(struct linebuf *, const void *data, size_t n,
	    linebuf_fn *emit, void *arg);
/* Gives out a partial line (if any) as a line; lb is empty after. */
int	linebuf_flush(struct linebuf *, linebuf_fn *emit, void *arg);
/* Forgets the partial line and frees the memory. */
void	linebuf_clear(struct linebuf *);

#endif
