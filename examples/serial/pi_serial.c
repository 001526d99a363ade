/*
 * pi_serial — the serial twin of pi: the same midpoint rule, its pieces
 * of PI_GRAIN steps summed in the same halves as pi's cn_for.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PI_GRAIN	65536

static double
sum(int64_t lo, int64_t hi, double h)
{
	double s = 0, x;
	int64_t i, mid;

	if (hi - lo <= PI_GRAIN) {
		for (i = lo; i < hi; i++) {
			x = ((double)i + 0.5) * h;
			s += 4.0 / (1.0 + x * x);
		}
		return s * h;
	}
	mid = lo + (hi - lo) / 2;
	return sum(lo, mid, h) + sum(mid, hi, h);
}

int
main(int argc, char *argv[])
{
	long long steps = argc == 2 ? atoll(argv[1]) : 0;

	if (steps < 1 || steps > (1LL << 40)) {
		fprintf(stderr, "usage: pi_serial STEPS\n");
		return 2;
	}
	printf("%.15f\n", sum(0, steps, 1.0 / (double)steps));
	return 0;
}
