/*
 * pi — pi as the integral of 4 / (1 + x^2) over [0, 1) by the midpoint
 * rule with STEPS steps, a parallel loop (cn_for) whose pieces of
 * PI_GRAIN steps are summed in halves: the same tree whatever runs
 * where, so the answer is the same to the last bit, and the same as
 * its serial twin pi_serial's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

#define PI_GRAIN	65536

static void	pi(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { pi };

static void
piece(struct cn_ctx *c, int64_t lo, int64_t hi, const void *arg,
    size_t len, void *val)
{
	double h, s = 0, x;
	int64_t i, steps;

	(void)c;
	if (len != sizeof(steps))
		return;
	memcpy(&steps, arg, sizeof(steps));
	h = 1.0 / (double)steps;
	for (i = lo; i < hi; i++) {
		x = ((double)i + 0.5) * h;
		s += 4.0 / (1.0 + x * x);
	}
	s *= h;
	memcpy(val, &s, sizeof(s));
}

static void
add(void *into, const void *from, size_t vlen)
{
	double a, b;

	(void)vlen;
	memcpy(&a, into, sizeof(a));
	memcpy(&b, from, sizeof(b));
	a += b;
	memcpy(into, &a, sizeof(a));
}

static void
pi(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	int64_t steps;

	if (len != sizeof(steps))
		return;
	memcpy(&steps, arg, sizeof(steps));
	if (cn_for(c, k, 0, steps, PI_GRAIN, piece, add, sizeof(double), &steps,
	    sizeof(steps)) == -1)
		perror("pi: cn_for");
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
	struct cn_tprogram p = { "pi", threads, 1 };
	struct cn_stats st;
	int64_t steps;
	double v;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (steps = size_arg(argv[1], 1, 1LL << 40)) == -1) {
		fprintf(stderr, "usage: pi STEPS\n");
		return 2;
	}
	if (cn_run_thread(&p, 0, &steps, sizeof(steps), &st) == -1) {
		perror("pi");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v))
		return 1;
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%.15f\n", v);
	return 0;
}
