/*
 * bigvalues COUNT — a program of threads whose COUNT children each work
 * a while, then send a value of CN_VALUE_MAX bytes (a pattern of their
 * index); a successor checks every byte of every value and answers how
 * many came whole.  On a cluster the children a thief stole send their
 * values back over the network in chunks: the answer is COUNT only if
 * every chunk arrived, in its place, once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

#define BV_WORK	20000000	/* rounds of work before a value */

static uint8_t
pattern(uint32_t child, size_t at)
{
	return (uint8_t)(child * 31u + at * 7u + (at >> 12));
}

static void
child(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	static uint8_t value[CN_VALUE_MAX];
	volatile uint64_t x = 0;
	uint32_t i, n;
	size_t at;

	if (len != sizeof(i))
		return;
	memcpy(&i, arg, sizeof(i));
	for (n = 0; n < BV_WORK; n++)	/* time for a thief to take it */
		x = x * 6364136223846793005ULL + n;
	for (at = 0; at < sizeof(value); at++)
		value[at] = pattern(i, at);
	if (cn_send(c, k, value, sizeof(value)) == -1)
		perror("bigvalues: cn_send");
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

static cn_thread *const threads[] = { top, child, check };

int
main(int argc, char *argv[])
{
	struct cn_tprogram p = { "bigvalues", threads, 3 };
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
