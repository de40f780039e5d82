/* lu: in-place LU factorisation A = L U without pivoting (right-looking; A is diagonally dominant).
 * Category: solver (the trailing block shrinks each step).
 * Sizes: MIRTUNE_SIZE=1 -> N=1000; MIRTUNE_SIZE=2 -> N=1800. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1800
#else
#define N 1000
#endif

int main(void)
{
    const int n = N;
    double *A = malloc(sizeof(double) * n * n);
    if (!A)
        return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = 1.0 / (1.0 + i + j) + (i == j ? (double)n : 0.0)
                         + (double)((i * 7 + j * 3) % 11) / 100.0;

    for (int k = 0; k < n - 1; k++) {
        const double pivot = A[k * n + k];
        const double *urow = &A[k * n];
#pragma omp parallel for firstprivate(pivot) shared(A, urow)
        for (int i = k + 1; i < n; i++) {
            double *row = &A[i * n];
            const double l = row[k] / pivot;
            row[k] = l;
            for (int j = k + 1; j < n; j++)
                row[j] -= l * urow[j];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)n * n; idx++)
        sum += A[idx] * (double)(1 + idx % 9);
    printf("checksum: %.12e\n", sum);
    free(A);
    return 0;
}
