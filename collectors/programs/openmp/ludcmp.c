/* ludcmp: solve A X = B: LU with partial pivoting (P A = L U), then forward/back substitution per RHS.
 * Category: solver (dense linear system, NRHS right-hand sides).
 * Sizes: MIRTUNE_SIZE=1 -> N=760, NRHS=256; MIRTUNE_SIZE=2 -> N=1300, NRHS=400. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1300
#define NRHS 400
#else
#define N 760
#define NRHS 256
#endif

static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;

static double lcg_uniform(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) / 9007199254740992.0; /* [0, 1) */
}

int main(void)
{
    const int n = N;
    double *A = malloc(sizeof(double) * n * n);
    double *X = malloc(sizeof(double) * NRHS * n); /* row r = right-hand side r, then its solution */
    int *perm = malloc(sizeof(int) * n);
    if (!A || !X || !perm)
        return 1;
    for (long idx = 0; idx < (long)n * n; idx++)
        A[idx] = lcg_uniform() - 0.5;
    for (long idx = 0; idx < (long)NRHS * n; idx++)
        X[idx] = lcg_uniform();
    for (int i = 0; i < n; i++)
        perm[i] = i;

    for (int k = 0; k < n - 1; k++) {
        /* pivot search is sequential: the choice must not depend on the thread count */
        int p = k;
        double best = fabs(A[k * n + k]);
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > best) {
                best = fabs(A[i * n + k]);
                p = i;
            }
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = A[k * n + j];
                A[k * n + j] = A[p * n + j];
                A[p * n + j] = t;
            }
            int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        const double pivot = A[k * n + k];
#pragma omp parallel for
        for (int i = k + 1; i < n; i++) {
            const double l = A[i * n + k] / pivot;
            A[i * n + k] = l;
            for (int j = k + 1; j < n; j++)
                A[i * n + j] -= l * A[k * n + j];
        }
    }

    /* each right-hand side: y = L^{-1} P b, then x = U^{-1} y */
#pragma omp parallel
    {
        double *y = malloc(sizeof(double) * n);
#pragma omp for
        for (int r = 0; r < NRHS; r++) {
            double *x = &X[r * n];
            for (int i = 0; i < n; i++) {
                double acc = x[perm[i]];
                for (int j = 0; j < i; j++)
                    acc -= A[i * n + j] * y[j];
                y[i] = acc;
            }
            for (int i = n - 1; i >= 0; i--) {
                double acc = y[i];
                for (int j = i + 1; j < n; j++)
                    acc -= A[i * n + j] * x[j];
                x[i] = acc / A[i * n + i];
            }
        }
        free(y);
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)NRHS * n; idx++)
        sum += X[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(A); free(X); free(perm);
    return 0;
}
