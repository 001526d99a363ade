/*
 * bigvalues COUNT — a program of threads whose COUNT children each work
 * a while (fib in threads), then send a value of CN_VALUE_MAX bytes (a
 * pattern of their index); a successor checks every byte of every value
 * and answers how many came whole.  On a cluster the children a thief
 * stole send their values back over the network in chunks: the answer
 * is COUNT only if every chunk arrived, in its place, once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

#define BV_FIB	22	/* the work before a value: fib(22) in threads */

static uint8_t
pattern(uint32_t child, size_t at)
{
	return (uint8_t)(child * 31u + at * 7u + (at >> 12));
}

static void
sum2(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const int64_t *x, *y;
	int64_t v;
	size_t l;

	(void)arg;
	(void)len;
	if ((x = cn_slot(c, 0, &l)) == NULL || l != sizeof(*x) ||
	    (y = cn_slot(c, 1, &l)) == NULL || l != sizeof(*y))
		return;
	v = *x + *y;
	(void)cn_send(c, k, &v, sizeof(v));
}

/*
 * Work in threads, as a program's would be: its spawns are where the
 * runtime looks at the network and a thief is answered.
 */
static void
fibw(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[2];
	int64_t n, m;

	if (len != sizeof(n))
		return;
	memcpy(&n, arg, sizeof(n));
	if (n < 2) {
		(void)cn_send(c, k, &n, sizeof(n));
		return;
	}
	if (cn_spawn_next(c, sum2, k, NULL, 0, 2, kk) == -1)
		return;
	m = n - 1;
	(void)cn_spawn(c, fibw, kk[0], &m, sizeof(m));
	m = n - 2;
	(void)cn_spawn(c, fibw, kk[1], &m, sizeof(m));
}

/* Child i's work done (slot 0): its value of CN_VALUE_MAX bytes. */
static void
fill(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	static uint8_t value[CN_VALUE_MAX];
	uint32_t i;
	size_t at;

	if (len != sizeof(i) || cn_slot(c, 0, &at) == NULL)
		return;
	memcpy(&i, arg, sizeof(i));
	for (at = 0; at < sizeof(value); at++)
		value[at] = pattern(i, at);
	if (cn_send(c, k, value, sizeof(value)) == -1)
		perror("bigvalues: cn_send");
}

static void
child(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	int64_t n = BV_FIB;
	struct cn_cont kk;

	if (len != sizeof(uint32_t) ||
	    cn_spawn_next(c, fill, k, arg, len, 1, &kk) == -1 ||
	    cn_spawn(c, fibw, kk, &n, sizeof(n)) == -1)
		perror("bigvalues: cn_spawn");
}

static void
check(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	const uint8_t *v;
	uint32_t count, i;
	int64_t whole = 0;
	size_t l, at;

	if (len != sizeof(count))
		return;
	memcpy(&count, arg, sizeof(count));
	for (i = 0; i < count; i++) {
		if ((v = cn_slot(c, i, &l)) == NULL || l != CN_VALUE_MAX)
			continue;
		for (at = 0; at < l && v[at] == pattern(i, at); at++)
			continue;
		whole += at == l;
	}
	(void)cn_send(c, k, &whole, sizeof(whole));
}

static void
top(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[64];
	uint32_t count, i;

	if (len != sizeof(count))
		return;
	memcpy(&count, arg, sizeof(count));
	if (cn_spawn_next(c, check, k, &count, sizeof(count), count,
	    kk) == -1) {
		perror("bigvalues: cn_spawn_next");
		return;
	}
	for (i = 0; i < count; i++)
		if (cn_spawn(c, child, kk[i], &i, sizeof(i)) == -1)
			perror("bigvalues: cn_spawn");
}

static cn_thread *const threads[] = { top, child, check, fill, fibw, sum2 };

int
main(int argc, char *argv[])
{
	struct cn_tprogram p = { "bigvalues", threads, 6 };
	struct cn_stats st;
	uint32_t count;
	int64_t v;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (count = (uint32_t)atoi(argv[1])) < 1 || count > 64) {
		fprintf(stderr, "usage: bigvalues COUNT    (1 to 64)\n");
		return 2;
	}
	if (cn_run_thread(&p, 0, &count, sizeof(count), &st) == -1) {
		perror("bigvalues");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v)) {
		fprintf(stderr, "bigvalues: an answer of %zu bytes\n",
		    st.cs_answer_len);
		return 1;
	}
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%lld\n", (long long)v);
	return 0;
}
