/*
 * knapsack_serial — the serial twin of knapsack: the same items, the
 * same branch and bound, in one recursion.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item { int64_t w, v; };

static struct item *items;
static int64_t	 N, best;

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

int
main(int argc, char *argv[])
{
	long long n = argc == 2 ? atoll(argv[1]) : 0;
	int64_t i, total = 0;

	if (n < 1 || n > 10000) {
		fprintf(stderr, "usage: knapsack_serial N\n");
		return 2;
	}
	N = n;
	if ((items = calloc((size_t)N, sizeof(*items))) == NULL)
		return 1;
	for (i = 0; i < N; i++) {
		items[i].w = 20 + (int64_t)(mix((uint64_t)i * 2) % 80);
		items[i].v = items[i].w + 10;	/* strongly correlated: hard */
		total += items[i].w;
	}
	qsort(items, (size_t)N, sizeof(*items), byratio);
	printf("%lld\n", (long long)search(0, total / 2, 0));
	return 0;
}
