/*
 * cilkfib — the N-th Fibonacci number as Cilk writes it, with threads
 * that pass values (cilknow(3), "Threads"): fib(n) spawns a successor
 * sum with two empty slots, then fib(n-1) and fib(n-2) whose values go
 * into them; sum sends x + y on to fib(n)'s own continuation.  The
 * answer is the value sent to the root's continuation.  Its serial
 * twin is fib_serial (cilkfib_serial).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

static void	fib(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	sum(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { fib, sum };

static void
sum(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	uint64_t x, y;

	(void)arg;
	(void)len;
	memcpy(&x, cn_slot(c, 0, NULL), sizeof(x));
	memcpy(&y, cn_slot(c, 1, NULL), sizeof(y));
	x += y;
	(void)cn_send(c, k, &x, sizeof(x));
}

static void
fib(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont xy[2];
	uint32_t n;
	uint64_t v;

	if (len != sizeof(n))
		return;
	memcpy(&n, arg, sizeof(n));
	if (n < 2) {
		v = n;
		(void)cn_send(c, k, &v, sizeof(v));
		return;
	}
	if (cn_spawn_next(c, sum, k, NULL, 0, 2, xy) == -1) {
		perror("cilkfib: cn_spawn_next");
		return;
	}
	n--;
	(void)cn_spawn(c, fib, xy[0], &n, sizeof(n));
	n--;
	(void)cn_spawn(c, fib, xy[1], &n, sizeof(n));
}

/* The size argument: lo to hi, else -1 (no libbsd strtonum here). */
static long long
size_arg(const char *s, long long lo, long long hi)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	return errno != 0 || end == s || *end != '\0' || v < lo || v > hi ?
	    -1 : v;
}

int
main(int argc, char *argv[])
{
	struct cn_tprogram p = { "cilkfib", threads, 2 };
	struct cn_stats st;
	uint64_t v;
	uint32_t n;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (v = (uint64_t)size_arg(argv[1], 0, 90)) ==
	    (uint64_t)-1) {
		fprintf(stderr, "usage: cilkfib N    (0 <= N <= 90)\n");
		return 2;
	}
	n = (uint32_t)v;
	if (cn_run_thread(&p, 0, &n, sizeof(n), &st) == -1) {
		perror("cilkfib");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v)) {
		fprintf(stderr, "cilkfib: an answer of %zu bytes\n",
		    st.cs_answer_len);
		return 1;
	}
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%llu\n", (unsigned long long)v);
	return 0;
}
