/* heat_3d: explicit 3-D heat equation, B = A + 0.125 * (second difference of A along each axis), then back.
 * Category: stencil (3-D, 7 points; collapse(2)).
 * Sizes: MIRTUNE_SIZE=1 -> N=110, 50 steps; MIRTUNE_SIZE=2 -> N=160, 90 steps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 160
#define TSTEPS 90
#else
#define N 110
#define TSTEPS 50
#endif

#define IDX(i, j, k) (((long)(i) * N + (j)) * N + (k))

static void step(const double *restrict in, double *restrict out)
{
    int i, j, k;
#pragma omp parallel for private(j, k) collapse(2)
    for (i = 1; i < N - 1; i++)
        for (j = 1; j < N - 1; j++)
            for (k = 1; k < N - 1; k++)
                out[IDX(i, j, k)] =
                    0.125 * (in[IDX(i + 1, j, k)] - 2.0 * in[IDX(i, j, k)] + in[IDX(i - 1, j, k)])
                    + 0.125 * (in[IDX(i, j + 1, k)] - 2.0 * in[IDX(i, j, k)] + in[IDX(i, j - 1, k)])
                    + 0.125 * (in[IDX(i, j, k + 1)] - 2.0 * in[IDX(i, j, k)] + in[IDX(i, j, k - 1)])
                    + in[IDX(i, j, k)];
}

int main(void)
{
    double *A = malloc(sizeof(double) * N * N * N);
    double *B = malloc(sizeof(double) * N * N * N);
    if (!A || !B)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                A[IDX(i, j, k)] = B[IDX(i, j, k)] =
                    (double)((i * j) % 17 + (j * k) % 13 + (i + k) % 7) * 10.0 / N;

    for (int t = 0; t < TSTEPS; t++) {
        step(A, B);
        step(B, A);
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)N * N * N; idx++)
        sum += A[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(A); free(B);
    return 0;
}
