/*
 * knapsack — the 0/1 knapsack of N items by branch and bound: the most
 * value that fits in half the items' total weight.  main makes the
 * items from N alone, sorted by value per weight, in every process.  A
 * thread decides item i both ways, each a child whose best value comes
 * back into a successor that sends the larger; a branch whose bound
 * (the fractional knapsack of the rest) cannot beat the best value this
 * process has seen is cut.  Only values that were reached are ever
 * sent, so cutting never changes the answer, whatever runs where.  The
 * first KS_SPAWN items branch in parallel, the rest serially.  Its
 * serial twin is knapsack_serial.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

#define KS_SPAWN	14

struct item { int64_t w, v; };
struct node { int64_t i, room, value; };

static struct item *items;
static int64_t	 N, best;	/* best: value reached here, a lower bound */

static void	ks(struct cn_ctx *, struct cn_cont, const void *, size_t);
static void	kmax(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { ks, kmax };

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int
byratio(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	/* x.v / x.w > y.v / y.w first; ties by weight */
	if (x->v * y->w != y->v * x->w)
		return x->v * y->w > y->v * x->w ? -1 : 1;
	return x->w < y->w ? -1 : x->w > y->w;
}

/* The fractional knapsack of items i.. in room: no branch does better. */
static double
bound(int64_t i, int64_t room, int64_t value)
{
	double b = (double)value;

	for (; i < N && items[i].w <= room; i++) {
		room -= items[i].w;
		b += (double)items[i].v;
	}
	if (i < N)
		b += (double)items[i].v * (double)room / (double)items[i].w;
	return b;
}

static int64_t
search(int64_t i, int64_t room, int64_t value)
{
	int64_t a = value, b;

	if (value > best)
		best = value;
	if (i == N || bound(i, room, value) <= (double)best)
		return value;
	if (items[i].w <= room)
		a = search(i + 1, room - items[i].w, value + items[i].v);
	b = search(i + 1, room, value);
	return a > b ? a : b;
}

static void
kmax(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	int64_t a, b;

	(void)arg;
	(void)len;
	memcpy(&a, cn_slot(c, 0, NULL), sizeof(a));
	memcpy(&b, cn_slot(c, 1, NULL), sizeof(b));
	a = a > b ? a : b;
	(void)cn_send(c, k, &a, sizeof(a));
}

static void
ks(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	struct cn_cont kk[2];
	struct node n, m;
	int64_t v;

	if (len != sizeof(n))
		return;
	memcpy(&n, arg, sizeof(n));
	if (n.i < 0 || n.i > N || n.room < 0)
		return;
	if (n.value > best)
		best = n.value;
	if (n.i >= KS_SPAWN || n.i == N ||
	    bound(n.i, n.room, n.value) <= (double)best) {
		v = search(n.i, n.room, n.value);
		if (cn_send(c, k, &v, sizeof(v)) == -1)
			perror("knapsack: cn_send");
		return;
	}
	if (cn_spawn_next(c, kmax, k, NULL, 0, 2, kk) == -1) {
		perror("knapsack: cn_spawn_next");
		return;
	}
	m = n;
	m.i++;
	if (items[n.i].w <= n.room) {
		m.room -= items[n.i].w;
		m.value += items[n.i].v;
		(void)cn_spawn(c, ks, kk[0], &m, sizeof(m));
	} else
		(void)cn_send(c, kk[0], &n.value, sizeof(n.value));
	m = n;
	m.i++;
	(void)cn_spawn(c, ks, kk[1], &m, sizeof(m));
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
	struct cn_tprogram p = { "knapsack", threads, 2 };
	struct cn_stats st;
	struct node root;
	int64_t i, total = 0, v;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (N = size_arg(argv[1], 1, 10000)) == -1) {
		fprintf(stderr, "usage: knapsack N    (1 <= N <= 10000)\n");
		return 2;
	}
	if ((items = calloc((size_t)N, sizeof(*items))) == NULL) {
		perror("knapsack");
		return 1;
	}
	for (i = 0; i < N; i++) {
		items[i].w = 20 + (int64_t)(mix((uint64_t)i * 2) % 80);
		items[i].v = items[i].w + 10;	/* strongly correlated: hard */
		total += items[i].w;
	}
	qsort(items, (size_t)N, sizeof(*items), byratio);
	root.i = 0;
	root.room = total / 2;
	root.value = 0;
	if (cn_run_thread(&p, 0, &root, sizeof(root), &st) == -1) {
		perror("knapsack");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v))
		return 1;
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%lld\n", (long long)v);
	return 0;
}
