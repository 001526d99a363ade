/* cilksort's input, serial merge sort and checksum (cilksort_serial's). */
#include <stdint.h>
#include <string.h>

#define CS_LEAF	2048

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void
merge(int32_t *a, int32_t *tmp, int64_t m, int64_t n)
{
	int64_t i, j, k;

	for (i = 0, j = m, k = 0; i < m && j < n;)
		tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
	while (i < m)
		tmp[k++] = a[i++];
	memcpy(a, tmp, sizeof(*a) * (size_t)k);
}

static void
msort(int32_t *a, int32_t *tmp, int64_t n)
{
	int64_t i, j, m;

	if (n < 2)
		return;
	if (n <= 16) {
		for (i = 1; i < n; i++) {
			int32_t v = a[i];

			for (j = i; j > 0 && a[j - 1] > v; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return;
	}
	m = n / 2;
	msort(a, tmp, m);
	msort(a + m, tmp, n - m);
	merge(a, tmp, m, n);
}
