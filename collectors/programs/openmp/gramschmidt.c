/* gramschmidt: QR decomposition A = Q R of an M x N matrix by modified Gram-Schmidt (column-major storage).
 * Category: solver (step k updates the N-k-1 columns right of k).
 * Sizes: MIRTUNE_SIZE=1 -> M=800, N=640; MIRTUNE_SIZE=2 -> M=1400, N=1100. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define M 1400
#define N 1100
#else
#define M 800
#define N 640
#endif

/* column j of A is A[j*M .. j*M + M-1] */
int main(void)
{
    double *A = malloc(sizeof(double) * N * M);
    double *Q = malloc(sizeof(double) * N * M);
    double *R = calloc((size_t)N * N, sizeof(double));
    if (!A || !Q || !R)
        return 1;

    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++)
            A[j * M + i] = (double)(((i * j) % M) + 1) / M * 100.0 + (i == j ? 10.0 : 0.0);

    for (int k = 0; k < N; k++) {
        double nrm = 0.0;
        const double *ak = &A[k * M];
        for (int i = 0; i < M; i++)
            nrm += ak[i] * ak[i];
        const double rkk = sqrt(nrm);
        R[k * N + k] = rkk;
        double *qk = &Q[k * M];
        for (int i = 0; i < M; i++)
            qk[i] = ak[i] / rkk;

#pragma omp parallel for shared(A, Q, R) firstprivate(k)
        for (int j = k + 1; j < N; j++) {
            double *aj = &A[j * M];
            double dot = 0.0;
            for (int i = 0; i < M; i++)
                dot += qk[i] * aj[i];
            R[k * N + j] = dot;
            for (int i = 0; i < M; i++)
                aj[i] -= qk[i] * dot;
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)N * N; idx++)
        sum += R[idx] * (double)(1 + idx % 3);
    for (long idx = 0; idx < (long)N * M; idx++)
        sum += Q[idx] * (double)(1 + idx % 5);
    printf("checksum: %.12e\n", sum);
    free(A); free(Q); free(R);
    return 0;
}
