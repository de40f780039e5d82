/* atax: y = A^T (A x), repeated as a power iteration x <- y / max|y| (M x N matrix A).
 * Category: linear algebra (matrix transpose and vector product).
 * Sizes: MIRTUNE_SIZE=1 -> 1800 x 2000, 8 iterations; MIRTUNE_SIZE=2 -> 2400 x 2600, 12 iterations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define M 2400
#define N 2600
#define ITERS 12
#else
#define M 1800
#define N 2000
#define ITERS 8
#endif

int main(void)
{
    double *A = malloc(sizeof(double) * M * N);
    double *x = malloc(sizeof(double) * N);
    double *y = malloc(sizeof(double) * N);
    double *tmp = malloc(sizeof(double) * M);
    if (!A || !x || !y || !tmp)
        return 1;

    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            A[(long)i * N + j] = (double)((i + j) % N) / (5.0 * M);
    for (int j = 0; j < N; j++)
        x[j] = 1.0 + (double)j / N;

    for (int it = 0; it < ITERS; it++) {
        /* tmp = A x : one dot product per row */
#pragma omp parallel for
        for (int i = 0; i < M; i++) {
            double s = 0.0;
            for (int j = 0; j < N; j++)
                s += A[(long)i * N + j] * x[j];
            tmp[i] = s;
        }
        /* y = A^T tmp : one column per iteration */
#pragma omp parallel for
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int i = 0; i < M; i++)
                s += A[(long)i * N + j] * tmp[i];
            y[j] = s;
        }
        double big = 0.0;
        for (int j = 0; j < N; j++)
            if (fabs(y[j]) > big)
                big = fabs(y[j]);
        for (int j = 0; j < N; j++)
            x[j] = y[j] / big;
    }

    double sum = 0.0;
    for (int j = 0; j < N; j++)
        sum += y[j] * (double)(1 + j % 9);
    printf("checksum: %.12e\n", sum);
    free(A); free(x); free(y); free(tmp);
    return 0;
}
