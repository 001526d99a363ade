/*
 * cilksort's input, layout and serial merge sort (cilksort_serial's),
 * and the merge of two halves the parallel twins do after their children.
 */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include "../../../examples/bigmem.h"
#include "../../../examples/serial/cilksort_input.h"

#define CS_LEAF	2048

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
