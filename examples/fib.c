/*
 * fib — the N-th Fibonacci number by the naive doubly recursive
 * definition (fib(1)).  The runtime's fine-grained stress test: almost
 * all it does is spawn.  A task for fib(n) spawns fib(n-2) and goes on
 * with fib(n-1) itself, so the oldest frames, those a thief gets, are
 * the largest subtrees.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cilknow.h"

enum { FIB_TASK, FIB_NFNS };

static void	fib_task(struct cn_ctx *, const void *, size_t);

static void
fib_task(struct cn_ctx *c, const void *arg, size_t len)
{
	uint32_t n, k;

	if (len != sizeof(n))
		return;
	memcpy(&n, arg, sizeof(n));
	if (n > 60)
		return;		/* not one of ours: arguments travel */
	while (n >= 2) {
		k = n - 2;
		CN_SPAWN(c, FIB_TASK, fib_task, &k, sizeof(k));
		n--;
	}
	CN_ADD(c, n);
}

static cn_fn *const fib_fns[FIB_NFNS] = { fib_task };

int
main(int argc, char *argv[])
{
	struct cn_program p = { "fib", fib_fns, FIB_NFNS, NULL, NULL };
	struct cn_stats st;
	const char *errstr;
	uint32_t n;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	if (argc == 2 && strcmp(argv[1], "-h") == 0) {
		printf("usage: fib N    (0 <= N <= 60)\n");
		return 0;
	}
	if (argc != 2 || (n = (uint32_t)strtonum(argv[1], 0, 60, &errstr),
	    errstr != NULL)) {
		fprintf(stderr, "usage: fib N    (0 <= N <= 60)\n");
		return 2;
	}
	if (cn_run(&p, FIB_TASK, &n, sizeof(n), &st) == -1) {
		perror("fib");
		return 1;
	}
	printf("%lld\n", (long long)st.cs_sum);
	return 0;
}
