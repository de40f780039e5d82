/* cholesky: A = L L^T for a symmetric positive-definite N x N matrix (right-looking, L overwrites A).
 * Category: solver (triangular trailing update: row i of step k costs i-k entries).
 * Sizes: MIRTUNE_SIZE=1 -> N=1200; MIRTUNE_SIZE=2 -> N=2150. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2150
#else
#define N 1200
#endif

int main(void)
{
    const int n = N;
    double *A = malloc(sizeof(double) * n * n);
    double *colk = malloc(sizeof(double) * n);
    if (!A || !colk)
        return 1;
    /* Hilbert-like matrix plus a heavy diagonal: symmetric positive definite. */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = 1.0 / (1.0 + i + j) + (i == j ? 2.0 + (double)(i % 5) : 0.0);

    for (int k = 0; k < n; k++) {
        const double d = sqrt(A[k * n + k]);
        A[k * n + k] = d;
        for (int i = k + 1; i < n; i++) {
            A[i * n + k] /= d;
            colk[i] = A[i * n + k]; /* contiguous copy of column k */
        }
        /* trailing update of the lower triangle: A[i][j] -= L[i][k] * L[j][k], k < j <= i */
#pragma omp parallel for
        for (int i = k + 1; i < n; i++) {
            const double lik = colk[i];
            double *row = &A[i * n];
            for (int j = k + 1; j <= i; j++)
                row[j] -= lik * colk[j];
        }
    }

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            sum += A[i * n + j] * (double)(1 + (i + 2 * j) % 7);
    printf("checksum: %.12e\n", sum);
    free(A);
    free(colk);
    return 0;
}
