/* trmm: out = alpha * (B + L^T B), L the strictly lower part of a unit lower-triangular M x M A; B is M x N.
 * Category: linear algebra (triangular matrix multiply; row i costs M-i-1 row updates).
 * Sizes: MIRTUNE_SIZE=1 -> M=1000, N=830; MIRTUNE_SIZE=2 -> M=1700, N=1430. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define M 1700
#define N 1430
#else
#define M 1000
#define N 830
#endif

int main(void)
{
    const double alpha = 1.5;
    double *A = malloc(sizeof(double) * M * M);
    double *B = malloc(sizeof(double) * M * N);
    double *out = malloc(sizeof(double) * M * N);
    if (!A || !B || !out)
        return 1;

    for (int i = 0; i < M; i++) {
        for (int j = 0; j < i; j++)
            A[i * M + j] = (double)((i + j) % M) / M;
        A[i * M + i] = 1.0;
        for (int j = i + 1; j < M; j++)
            A[i * M + j] = -7.0; /* never read */
        for (int j = 0; j < N; j++)
            B[i * N + j] = (double)((N + (i - j)) % N) / N;
    }

#pragma omp parallel for
    for (int i = 0; i < M; i++) {
        double *row = &out[i * N];
        for (int j = 0; j < N; j++)
            row[j] = B[i * N + j];
        for (int k = i + 1; k < M; k++) {
            const double a = A[k * M + i];
            for (int j = 0; j < N; j++)
                row[j] += a * B[k * N + j];
        }
        for (int j = 0; j < N; j++)
            row[j] *= alpha;
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)M * N; idx++)
        sum += out[idx] * (double)(1 + idx % 3);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(out);
    return 0;
}
