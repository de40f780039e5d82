/* syr2k: C = alpha * (A B^T + B A^T) + beta * C on the lower triangle of C (N x N); A, B are N x M.
 * Category: linear algebra (symmetric rank-2k update; triangular work per row).
 * Sizes: MIRTUNE_SIZE=1 -> N=730, M=650; MIRTUNE_SIZE=2 -> N=1260, M=1150. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1260
#define M 1150
#else
#define N 730
#define M 650
#endif

int main(void)
{
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * N * M);
    double *B = malloc(sizeof(double) * N * M);
    double *C = malloc(sizeof(double) * N * N);
    if (!A || !B || !C)
        return 1;

    for (int i = 0; i < N; i++) {
        for (int k = 0; k < M; k++) {
            A[i * M + k] = (double)((i * k + 1) % N) / N;
            B[i * M + k] = (double)((i * k + 2) % M) / M;
        }
        for (int j = 0; j < N; j++)
            C[i * N + j] = (double)((i * j + 3) % N) / M;
    }

#pragma omp parallel
    {
        /* scale the lower triangle first, then accumulate both products */
#pragma omp for
        for (int i = 0; i < N; i++)
            for (int j = 0; j <= i; j++)
                C[i * N + j] *= beta;
#pragma omp for
        for (int i = 0; i < N; i++) {
            for (int j = 0; j <= i; j++) {
                double acc = 0.0;
                for (int k = 0; k < M; k++)
                    acc += A[j * M + k] * B[i * M + k] + B[j * M + k] * A[i * M + k];
                C[i * N + j] += alpha * acc;
            }
        }
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            sum += C[i * N + j] * (double)(1 + (2 * i + j) % 7);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(C);
    return 0;
}
