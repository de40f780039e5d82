/* gemm: C = alpha * A * B + beta * C for dense square matrices of doubles.
 * Category: linear algebra (BLAS-3 matrix multiply).
 * Sizes: MIRTUNE_SIZE=1 -> N=800; MIRTUNE_SIZE=2 -> N=1300. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1300
#else
#define N 800
#endif

int main(void)
{
    const int n = N;
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = malloc(sizeof(double) * n * n);
    if (!A || !B || !C)
        return 1;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i * n + j] = (double)((i * j + 1) % n) / n;
            B[i * n + j] = (double)((i * (j + 1) + 2) % n) / n;
            C[i * n + j] = (double)((i * (j + 2) + 3) % n) / n;
        }

    /* Each thread owns whole rows of C; the k-loop order keeps B rows streaming. */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            C[i * n + j] *= beta;
        for (int k = 0; k < n; k++) {
            const double a = alpha * A[i * n + k];
            for (int j = 0; j < n; j++)
                C[i * n + j] += a * B[k * n + j];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)n * n; idx++)
        sum += C[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(A);
    free(B);
    free(C);
    return 0;
}
