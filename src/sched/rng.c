/*
 * rng — the scheduler's random source: xoshiro256** seeded by splitmix64
 * (Blackman and Vigna), or a caller's function for scripted tests.
 */
#include "fairshare.h"

#include <string.h>

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
sched_splitmix64(uint64_t *state)
{
	uint64_t z;

	z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
sched_rng_seed(struct sched_rng *rng, uint64_t seed)
{
	int i;

	memset(rng, 0, sizeof(*rng));
	for (i = 0; i < 4; i++)
		rng->rng_s[i] = sched_splitmix64(&seed);
}

void
sched_rng_custom(struct sched_rng *rng, uint64_t (*next)(void *), void *arg)
{
	memset(rng, 0, sizeof(*rng));
	rng->rng_next = next;
	rng->rng_arg = arg;
}

uint64_t
sched_rng_u64(struct sched_rng *rng)
{
	uint64_t *s = rng->rng_s, result, t;

	if (rng->rng_next != NULL)
		return rng->rng_next(rng->rng_arg);
	result = rotl(s[1] * 5, 7) * 9;
	t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double
sched_rng_unit(struct sched_rng *rng)
{
	return (double)(sched_rng_u64(rng) >> 11) * 0x1.0p-53;
}

/* Lemire's multiply-and-reject: unbiased, usually one draw. */
uint64_t
sched_rng_below(struct sched_rng *rng, uint64_t n)
{
	unsigned __int128 m;
	uint64_t lo, thresh;

	if (n == 0)
		return 0;
	m = (unsigned __int128)sched_rng_u64(rng) * n;
	lo = (uint64_t)m;
	if (lo < n) {
		thresh = -n % n;
		while (lo < thresh) {
			m = (unsigned __int128)sched_rng_u64(rng) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}
