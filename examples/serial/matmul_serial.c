/*
 * matmul_serial — the serial twin of matmul: the same matrices, C = A B
 * blocked the same way into one N x N array, the same checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bigmem.h"

#define MM_B	64

int
main(int argc, char *argv[])
{
	long long n = argc == 2 ? atoll(argv[1]) : 0;
	int64_t N = n, i, j, k, i0, j0, k0, ie, je, ke;
	double *A, *B, *C, s = 0, a;

	if (n < 1 || n > 20000) {
		fprintf(stderr, "usage: matmul_serial N\n");
		return 2;
	}
	if ((A = big_alloc(sizeof(double) * N * N)) == NULL ||
	    (B = big_alloc(sizeof(double) * N * N)) == NULL ||
	    (C = big_alloc(sizeof(double) * N * N)) == NULL)
		return 1;
	memset(C, 0, sizeof(double) * N * N);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			A[i * N + j] = (double)((i * 7 + j * 3) % 10 - 4);
			B[i * N + j] = (double)((i * 5 + j * 11) % 9 - 4);
		}
	for (i0 = 0; i0 < N; i0 += MM_B)
		for (j0 = 0; j0 < N; j0 += MM_B)
			for (k0 = 0; k0 < N; k0 += MM_B) {
				ie = i0 + MM_B < N ? i0 + MM_B : N;
				je = j0 + MM_B < N ? j0 + MM_B : N;
				ke = k0 + MM_B < N ? k0 + MM_B : N;
				for (i = i0; i < ie; i++)
					for (k = k0; k < ke; k++) {
						a = A[i * N + k];
						for (j = j0; j < je; j++)
							C[i * N + j] += a *
							    B[k * N + j];
					}
			}
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			s += C[i * N + j] * (double)((i + 2 * j) % 7 + 1);
	printf("%lld\n", (long long)s);
	free(A);
	free(B);
	free(C);
	return 0;
}
