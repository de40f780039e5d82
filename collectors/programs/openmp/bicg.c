/* bicg: q = A p and s = A^T r (the BiCG sub-kernel), iterated with p <- s / max|s|, r <- q / max|q|.
 * Category: linear algebra (matrix-vector products).
 * Sizes: MIRTUNE_SIZE=1 -> N x M = 2000 x 1800, 8 iterations; MIRTUNE_SIZE=2 -> 2600 x 2400, 12 iterations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2600
#define M 2400
#define ITERS 12
#else
#define N 2000
#define M 1800
#define ITERS 8
#endif

static double max_abs(const double *v, int n)
{
    double big = 0.0;
    for (int i = 0; i < n; i++)
        if (fabs(v[i]) > big)
            big = fabs(v[i]);
    return big > 0.0 ? big : 1.0;
}

int main(void)
{
    double *A = malloc(sizeof(double) * N * M);
    double *p = malloc(sizeof(double) * M), *q = malloc(sizeof(double) * N);
    double *r = malloc(sizeof(double) * N), *s = malloc(sizeof(double) * M);
    if (!A || !p || !q || !r || !s)
        return 1;

    for (int i = 0; i < N; i++) {
        r[i] = (double)(i % N) * 3.14159 / N;
        for (int j = 0; j < M; j++)
            A[(long)i * M + j] = (double)(i * (j + 1) % N) / N;
    }
    for (int j = 0; j < M; j++)
        p[j] = (double)(j % M) * 3.14159 / M;

    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel
        {
            /* q = A p, row-wise */
#pragma omp for nowait
            for (int i = 0; i < N; i++) {
                double acc = 0.0;
                for (int j = 0; j < M; j++)
                    acc += A[(long)i * M + j] * p[j];
                q[i] = acc;
            }
            /* s = A^T r, column-wise; independent of q so no barrier is needed above */
#pragma omp for
            for (int j = 0; j < M; j++) {
                double acc = 0.0;
                for (int i = 0; i < N; i++)
                    acc += r[i] * A[(long)i * M + j];
                s[j] = acc;
            }
        }
        double bq = max_abs(q, N), bs = max_abs(s, M);
        for (int j = 0; j < M; j++)
            p[j] = s[j] / bs;
        for (int i = 0; i < N; i++)
            r[i] = q[i] / bq;
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += q[i] * (double)(1 + i % 5);
    for (int j = 0; j < M; j++)
        sum += s[j] * (double)(1 + j % 3);
    printf("checksum: %.12e\n", sum);
    free(A); free(p); free(q); free(r); free(s);
    return 0;
}
