/*
 * queens — count the ways to place N queens on an N x N board so that
 * none attacks another (queens(1)).  A parallel program of the cilknow
 * runtime: run it and idle workstations join in.
 *
 * A task holds a partial board as three bit masks (columns and the two
 * diagonals taken) and the row to fill.  It spawns one task per free
 * square of that row for the first SPAWN_ROWS rows (while more than
 * SERIAL_MIN rows remain), and searches the rest itself: spawning near
 * the leaves would cost more than the search, and five rows already
 * make tens of thousands of tasks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cilknow.h"

#define SPAWN_ROWS	5
#define SERIAL_MIN	4
#define N_MAX		20

struct board {
	uint32_t	b_n, b_row, b_cols, b_d1, b_d2;
	uint32_t	b_delay;	/* -d: microseconds more per search */
};

enum { QUEENS_TASK, QUEENS_NFNS };

static void	queens_task(struct cn_ctx *, const void *, size_t);

static uint64_t
search(uint32_t all, uint32_t cols, uint32_t d1, uint32_t d2)
{
	uint32_t free_, bit;
	uint64_t n = 0;

	if (cols == all)
		return 1;
	free_ = all & ~(cols | d1 | d2);
	while (free_) {
		bit = free_ & -free_;
		free_ ^= bit;
		n += search(all, cols | bit, ((d1 | bit) << 1) & all,
		    (d2 | bit) >> 1);
	}
	return n;
}

static void
queens_task(struct cn_ctx *c, const void *arg, size_t len)
{
	struct board b, k;
	uint32_t all, free_, bit;

	if (len != sizeof(b))
		return;
	memcpy(&b, arg, sizeof(b));
	/* Arguments travel between processes: check them. */
	if (b.b_n < 1 || b.b_n > N_MAX || b.b_row > b.b_n ||
	    b.b_delay > 999999)
		return;
	all = (1u << b.b_n) - 1;
	if (b.b_row >= SPAWN_ROWS || b.b_n - b.b_row <= SERIAL_MIN) {
		if (b.b_delay > 0) {
			/* A bigger problem, for tests and demos. */
			struct timespec ts = { 0, (long)b.b_delay * 1000 };

			nanosleep(&ts, NULL);
		}
		CN_ADD(c, (int64_t)search(all, b.b_cols, b.b_d1, b.b_d2));
		return;
	}
	free_ = all & ~(b.b_cols | b.b_d1 | b.b_d2);
	while (free_) {
		bit = free_ & -free_;
		free_ ^= bit;
		k = b;
		k.b_row = b.b_row + 1;
		k.b_cols = b.b_cols | bit;
		k.b_d1 = ((b.b_d1 | bit) << 1) & all;
		k.b_d2 = (b.b_d2 | bit) >> 1;
		CN_SPAWN(c, QUEENS_TASK, queens_task, &k, sizeof(k));
	}
}

static void __attribute__((noreturn))
usage(int status)
{
	fprintf(status ? stderr : stdout, "usage: queens [-d microseconds] N"
	    "    (1 <= N <= %d)\n", N_MAX);
	exit(status);
}

static cn_fn *const queens_fns[QUEENS_NFNS] = { queens_task };

int
main(int argc, char *argv[])
{
	struct cn_program p = { "queens", queens_fns, QUEENS_NFNS, NULL,
	    NULL };
	struct board b;
	struct cn_stats st;
	const char *errstr;
	int ch;

	if (cn_init(&argc, &argv) == -1)
		return 2;
	memset(&b, 0, sizeof(b));
	while ((ch = getopt(argc, argv, "d:h")) != -1) {
		switch (ch) {
		case 'd':
			b.b_delay = (uint32_t)strtonum(optarg, 0, 999999,
			    &errstr);
			if (errstr != NULL)
				usage(2);
			break;
		case 'h':
			usage(0);
		default:
			usage(2);
		}
	}
	if (argc - optind != 1 || (b.b_n = (uint32_t)strtonum(argv[optind],
	    1, N_MAX, &errstr), errstr != NULL))
		usage(2);
	if (cn_run(&p, QUEENS_TASK, &b, sizeof(b), &st) == -1) {
		perror("queens");
		return 1;
	}
	printf("%lld\n", (long long)st.cs_sum);
	return 0;
}
