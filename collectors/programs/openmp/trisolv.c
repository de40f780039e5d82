/* trisolv: solve L X = B by forward substitution for NRHS right-hand sides, L N x N lower triangular.
 * Category: solver (triangular solve, parallel over right-hand sides).
 * Sizes: MIRTUNE_SIZE=1 -> N=1000, NRHS=380; MIRTUNE_SIZE=2 -> N=2000, NRHS=540. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2000
#define NRHS 540
#else
#define N 1000
#define NRHS 380
#endif

int main(void)
{
    double *L = malloc(sizeof(double) * N * N);
    double *B = malloc(sizeof(double) * NRHS * N);
    double *X = malloc(sizeof(double) * NRHS * N);
    if (!L || !B || !X)
        return 1;

    for (int i = 0; i < N; i++) {
        for (int j = 0; j < i; j++)
            L[i * N + j] = (double)((i + N - j + 1) * 2) / (double)N / (double)N;
        L[i * N + i] = 1.0 + (double)(i % 3);
        for (int j = i + 1; j < N; j++)
            L[i * N + j] = 0.0;
    }
    for (int r = 0; r < NRHS; r++)
        for (int i = 0; i < N; i++)
            B[r * N + i] = (double)((r * 13 + i * 7) % 97) / 97.0;

    int r;
#pragma omp parallel for
    for (r = 0; r < NRHS; r++) {
        const double *b = &B[r * N];
        double *x = &X[r * N];
        for (int i = 0; i < N; i++) {
            double acc = b[i];
            const double *li = &L[i * N];
            for (int j = 0; j < i; j++)
                acc -= li[j] * x[j];
            x[i] = acc / li[i];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)NRHS * N; idx++)
        sum += X[idx] * (double)(1 + idx % 5);
    printf("checksum: %.12e\n", sum);
    free(L); free(B); free(X);
    return 0;
}
