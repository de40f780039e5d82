/* syrk: C = alpha * A A^T + beta * C on the lower triangle (j <= i) of C (N x N); A is N x M.
 * Category: linear algebra (symmetric rank-k update; triangular work per row).
 * Sizes: MIRTUNE_SIZE=1 -> N=800, M=730; MIRTUNE_SIZE=2 -> N=1400, M=1270. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1400
#define M 1270
#else
#define N 800
#define M 730
#endif

int main(void)
{
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * N * M);
    double *C = malloc(sizeof(double) * N * N);
    if (!A || !C)
        return 1;

    for (int i = 0; i < N; i++) {
        for (int k = 0; k < M; k++)
            A[i * M + k] = (double)((i * k + 1) % N) / N;
        for (int j = 0; j < N; j++)
            C[i * N + j] = (double)((i * j + 2) % M) / M;
    }

    /* Row i touches i+1 entries: later rows cost more. */
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
        for (int j = 0; j <= i; j++) {
            double acc = 0.0;
            for (int k = 0; k < M; k++)
                acc += A[i * M + k] * A[j * M + k];
            C[i * N + j] = beta * C[i * N + j] + alpha * acc;
        }
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            sum += C[i * N + j] * (double)(1 + (i + j) % 5);
    printf("checksum: %.12e\n", sum);
    free(A); free(C);
    return 0;
}
