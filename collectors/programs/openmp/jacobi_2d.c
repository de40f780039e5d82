/* jacobi_2d: TSTEPS sweeps of the 5-point averaging stencil between two N x N grids.
 * Category: stencil (2-D, 5 points).
 * Sizes: MIRTUNE_SIZE=1 -> N=1000, 90 steps; MIRTUNE_SIZE=2 -> N=2000, 120 steps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2000
#define TSTEPS 120
#else
#define N 1000
#define TSTEPS 90
#endif

int main(void)
{
    double *A = malloc(sizeof(double) * N * N);
    double *B = malloc(sizeof(double) * N * N);
    if (!A || !B)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i * N + j] = (double)((i * j) % 29 + (i + 2 * j) % 31) / 30.0;
            B[i * N + j] = (double)((i * j + 3) % 23) / 23.0;
        }

    for (int t = 0; t < TSTEPS; t++) {
#pragma omp parallel for
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                B[i * N + j] = 0.2 * (A[i * N + j] + A[i * N + j - 1] + A[i * N + j + 1]
                                      + A[(i + 1) * N + j] + A[(i - 1) * N + j]);
#pragma omp parallel for
        for (int i = 1; i < N - 1; i++)
            for (int j = 1; j < N - 1; j++)
                A[i * N + j] = 0.2 * (B[i * N + j] + B[i * N + j - 1] + B[i * N + j + 1]
                                      + B[(i + 1) * N + j] + B[(i - 1) * N + j]);
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)N * N; idx++)
        sum += A[idx] * (double)(1 + idx % 5);
    printf("checksum: %.12e\n", sum);
    free(A); free(B);
    return 0;
}
