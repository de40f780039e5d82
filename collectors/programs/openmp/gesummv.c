/* gesummv: y = alpha * A x + beta * B x (two dense N x N matrices), iterated with x <- y / max|y|.
 * Category: linear algebra (scalar, vector and matrix multiplication).
 * Sizes: MIRTUNE_SIZE=1 -> N=1800, 20 iterations; MIRTUNE_SIZE=2 -> N=2200, 80 iterations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2200
#define ITERS 80
#else
#define N 1800
#define ITERS 20
#endif

int main(void)
{
    const int n = N;
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *x = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n);
    if (!A || !B || !x || !y)
        return 1;

    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % n) / n;
        for (int j = 0; j < n; j++) {
            A[(long)i * n + j] = (double)((i * j + 1) % n) / n;
            B[(long)i * n + j] = (double)((i * j + 2) % n) / n;
        }
    }

    for (int it = 0; it < ITERS; it++) {
        int i, j;
        double t1, t2;
#pragma omp parallel for default(shared) \
        private(j, t1, t2)
        for (i = 0; i < n; i++) {
            t1 = 0.0;
            t2 = 0.0;
            for (j = 0; j < n; j++) {
                t1 += A[(long)i * n + j] * x[j];
                t2 += B[(long)i * n + j] * x[j];
            }
            y[i] = alpha * t1 + beta * t2;
        }
        double big = 0.0;
        for (i = 0; i < n; i++)
            if (fabs(y[i]) > big)
                big = fabs(y[i]);
        for (i = 0; i < n; i++)
            x[i] = y[i] / big;
    }

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += y[i] * (double)(1 + i % 8);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(x); free(y);
    return 0;
}
