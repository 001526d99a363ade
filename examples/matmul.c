/*
 * matmul — C = A B for N x N matrices of doubles, in blocks of MM_B x
 * MM_B: a parallel loop (cn_for) over C's blocks, each computed into a
 * buffer of its own.  A and B are functions of N alone, made where they
 * are used, a block row of A or a block column of B when a block first
 * needs it: a worker joins at once and makes only what its blocks read,
 * where making both in main (which runs everywhere, cilknow(3)) held
 * every worker back by its share of 92 MB for N = 2400.  Their
 * entries are small integers, so every product and sum is exact and
 * the checksum, the sum of C's entries each weighted by (i + 2j) mod 7
 * + 1, is the same whatever order the blocks run in, and the same as
 * its serial twin matmul_serial's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"
#include "bigmem.h"

#define MM_B	64

static double	*A, *B;		/* N x N, row-major, read only */
static int64_t	 N;
static uint8_t	*a_made, *b_made;	/* by block row of A, column of B */

static void	mm(struct cn_ctx *, struct cn_cont, const void *, size_t);

static cn_thread *const threads[] = { mm };

/* A's rows i0 .. i0+MM_B-1, if not yet made here. */
static void
make_a(int64_t i0)
{
	int64_t i, j, end = N - i0 < MM_B ? N : i0 + MM_B;

	if (a_made[i0 / MM_B])
		return;
	for (i = i0; i < end; i++)
		for (j = 0; j < N; j++)
			A[i * N + j] = (double)((i * 7 + j * 3) % 10 - 4);
	a_made[i0 / MM_B] = 1;
}

/* B's columns j0 .. j0+MM_B-1, if not yet made here. */
static void
make_b(int64_t j0)
{
	int64_t k, j, end = N - j0 < MM_B ? N : j0 + MM_B;

	if (b_made[j0 / MM_B])
		return;
	for (k = 0; k < N; k++)
		for (j = j0; j < end; j++)
			B[k * N + j] = (double)((k * 5 + j * 11) % 9 - 4);
	b_made[j0 / MM_B] = 1;
}

/* One block of C (rows i0.., columns j0..) and its weighted sum. */
static int64_t
block(int64_t i0, int64_t j0, double *c)
{
	int64_t i, j, k, k0, ni, nj, nk;
	double s = 0, a;

	make_a(i0);
	make_b(j0);
	ni = N - i0 < MM_B ? N - i0 : MM_B;
	nj = N - j0 < MM_B ? N - j0 : MM_B;
	memset(c, 0, sizeof(double) * MM_B * MM_B);
	for (k0 = 0; k0 < N; k0 += MM_B) {
		nk = N - k0 < MM_B ? N - k0 : MM_B;
		for (i = 0; i < ni; i++)
			for (k = 0; k < nk; k++) {
				a = A[(i0 + i) * N + k0 + k];
				for (j = 0; j < nj; j++)
					c[i * MM_B + j] += a *
					    B[(k0 + k) * N + j0 + j];
			}
	}
	for (i = 0; i < ni; i++)
		for (j = 0; j < nj; j++)
			s += c[i * MM_B + j] *
			    (double)((i0 + i + 2 * (j0 + j)) % 7 + 1);
	return (int64_t)s;
}

static void
blocks(struct cn_ctx *ctx, int64_t lo, int64_t hi, const void *arg,
    size_t len, void *val)
{
	static double c[MM_B * MM_B];	/* one block at a time */
	int64_t nb = (N + MM_B - 1) / MM_B, b, s = 0;

	(void)ctx;
	(void)arg;
	(void)len;
	for (b = lo; b < hi; b++)
		s += block(b / nb * MM_B, b % nb * MM_B, c);
	memcpy(val, &s, sizeof(s));
}

static void
add(void *into, const void *from, size_t vlen)
{
	int64_t a, b;

	(void)vlen;
	memcpy(&a, into, sizeof(a));
	memcpy(&b, from, sizeof(b));
	a += b;
	memcpy(into, &a, sizeof(a));
}

static void
mm(struct cn_ctx *c, struct cn_cont k, const void *arg, size_t len)
{
	int64_t nb = (N + MM_B - 1) / MM_B;

	(void)arg;
	(void)len;
	if (cn_for(c, k, 0, nb * nb, 1, blocks, add, sizeof(int64_t), NULL,
	    0) == -1)
		perror("matmul: cn_for");
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
	struct cn_tprogram p = { "matmul", threads, 1 };
	struct cn_stats st;
	int64_t v;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc != 2 || (N = size_arg(argv[1], 1, 20000)) == -1) {
		fprintf(stderr, "usage: matmul N    (1 <= N <= 20000)\n");
		return 2;
	}
	if ((A = big_alloc(sizeof(double) * N * N)) == NULL ||
	    (B = big_alloc(sizeof(double) * N * N)) == NULL ||
	    (a_made = calloc((N + MM_B - 1) / MM_B, 1)) == NULL ||
	    (b_made = calloc((N + MM_B - 1) / MM_B, 1)) == NULL) {
		perror("matmul");
		return 1;
	}
	if (cn_run_thread(&p, 0, NULL, 0, &st) == -1) {
		perror("matmul");
		return 1;
	}
	if (st.cs_answer_len != sizeof(v))
		return 1;
	memcpy(&v, st.cs_answer, sizeof(v));
	printf("%lld\n", (long long)v);
	return 0;
}
