/* symm: C = alpha * A B + beta * C, A symmetric M x M (only its lower triangle is read), B and C M x N.
 * Category: linear algebra (symmetric matrix multiply).
 * Sizes: MIRTUNE_SIZE=1 -> M=750, N=830; MIRTUNE_SIZE=2 -> M=1250, N=1300. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define M 1250
#define N 1300
#else
#define M 750
#define N 830
#endif

int main(void)
{
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * M * M);
    double *B = malloc(sizeof(double) * M * N);
    double *C = malloc(sizeof(double) * M * N);
    if (!A || !B || !C)
        return 1;

    for (int i = 0; i < M; i++) {
        for (int j = 0; j <= i; j++)
            A[i * M + j] = (double)((i + j) % 100) / M;
        for (int j = i + 1; j < M; j++)
            A[i * M + j] = -999.0; /* upper part is garbage on purpose */
        for (int j = 0; j < N; j++) {
            B[i * N + j] = (double)((N + i - j) % 100) / M;
            C[i * N + j] = (double)((i + j) % 100) / M;
        }
    }

    int i;
#pragma omp parallel for private(i) firstprivate(alpha, beta)
    for (i = 0; i < M; i++) {
        double *crow = &C[i * N];
        for (int j = 0; j < N; j++)
            crow[j] *= beta;
        for (int k = 0; k < M; k++) {
            const double a = alpha * (k <= i ? A[i * M + k] : A[k * M + i]);
            const double *brow = &B[k * N];
            for (int j = 0; j < N; j++)
                crow[j] += a * brow[j];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)M * N; idx++)
        sum += C[idx] * (double)(1 + idx % 13);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(C);
    return 0;
}
