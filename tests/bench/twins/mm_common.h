/* matmul's matrices, one block of C, the checksum (matmul_serial's). */
#include <stdint.h>
#include <stdlib.h>

#include "../../../examples/bigmem.h"

#define MM_B	64

static int64_t N;
static double *A, *B, *C;

static void
mm_init(void)
{
	int64_t i, j;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			A[i * N + j] = (double)((i * 7 + j * 3) % 10 - 4);
			B[i * N + j] = (double)((i * 5 + j * 11) % 9 - 4);
		}
}

static void
mm_block(int64_t i0, int64_t j0)
{
	int64_t i, j, k, k0, ie, je, ke;
	double a;

	ie = i0 + MM_B < N ? i0 + MM_B : N;
	je = j0 + MM_B < N ? j0 + MM_B : N;
	for (k0 = 0; k0 < N; k0 += MM_B) {
		ke = k0 + MM_B < N ? k0 + MM_B : N;
		for (i = i0; i < ie; i++)
			for (k = k0; k < ke; k++) {
				a = A[i * N + k];
				for (j = j0; j < je; j++)
					C[i * N + j] += a * B[k * N + j];
			}
	}
}

static long long
mm_sum(void)
{
	double s = 0;
	int64_t i, j;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			s += C[i * N + j] * (double)((i + 2 * j) % 7 + 1);
	return (long long)s;
}
