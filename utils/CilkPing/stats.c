/* Round-trip statistics: quantiles by sorting, no approximation. */
#include <stdlib.h>

#include "ping.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
stats_add(struct ping_stats *s, double rtt, int has_skew, double skew)
{
	double *r, *k;
	size_t ncap;

	if (s->ps_n == s->ps_cap) {
		ncap = s->ps_cap ? s->ps_cap * 2 : 256;
		if ((r = reallocarray(s->ps_rtt, ncap, sizeof(*r))) == NULL)
			return -1;
		s->ps_rtt = r;
		if ((k = reallocarray(s->ps_skew, ncap, sizeof(*k))) == NULL)
			return -1;
		s->ps_skew = k;
		s->ps_cap = ncap;
	}
	s->ps_rtt[s->ps_n++] = rtt;
	if (has_skew)
		s->ps_skew[s->ps_nskew++] = skew;
	return 0;
}

static double
quantile(double *v, size_t n, double q)
{
	size_t i;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	/* Nearest rank: the smallest value with at least q of the data. */
	i = (size_t)(q * (double)n + 0.999999);
	if (i > 0)
		i--;
	return v[i < n ? i : n - 1];
}

double
stats_quantile(struct ping_stats *s, double q)
{
	return quantile(s->ps_rtt, s->ps_n, q);
}

double
stats_skew_median(struct ping_stats *s)
{
	return quantile(s->ps_skew, s->ps_nskew, 0.5);
}

void
stats_free(struct ping_stats *s)
{
	free(s->ps_rtt);
	free(s->ps_skew);
}
