/* gemver: A = A + u1 v1^T + u2 v2^T; x = x + beta A^T y + z; w = w + alpha A x, repeated ROUNDS times.
 * Category: linear algebra (vector multiply and matrix addition).
 * Sizes: MIRTUNE_SIZE=1 -> N=2000, 6 rounds; MIRTUNE_SIZE=2 -> N=2400, 12 rounds. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2400
#define ROUNDS 12
#else
#define N 2000
#define ROUNDS 6
#endif

int main(void)
{
    const int n = N;
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * n * n);
    double *u1 = malloc(sizeof(double) * n), *v1 = malloc(sizeof(double) * n);
    double *u2 = malloc(sizeof(double) * n), *v2 = malloc(sizeof(double) * n);
    double *w = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n), *z = malloc(sizeof(double) * n);
    if (!A || !u1 || !v1 || !u2 || !v2 || !w || !x || !y || !z)
        return 1;

    const double fn = (double)n;
    for (int i = 0; i < n; i++) {
        u1[i] = i / fn * 1e-3;
        u2[i] = ((i + 1) / fn) / 2.0 * 1e-3;
        v1[i] = ((i + 1) / fn) / 4.0;
        v2[i] = ((i + 1) / fn) / 6.0;
        y[i] = ((i + 1) / fn) / 8.0;
        z[i] = ((i + 1) / fn) / 9.0;
        x[i] = 0.0;
        w[i] = 0.0;
        for (int j = 0; j < n; j++)
            A[(long)i * n + j] = (double)(i * j % n) / fn * 1e-3;
    }

    for (int round = 0; round < ROUNDS; round++) {
        /* rank-2 update: rows are independent */
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                A[(long)i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];

        /* x = x + beta * A^T y + z, one column of A per element of x */
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double acc = x[i];
            for (int j = 0; j < n; j++)
                acc += beta * A[(long)j * n + i] * y[j];
            x[i] = acc + z[i];
        }

        /* w = w + alpha * A x */
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double acc = w[i];
            for (int j = 0; j < n; j++)
                acc += alpha * A[(long)i * n + j] * x[j];
            w[i] = acc;
        }
    }

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += w[i] * (double)(1 + i % 7) + x[i];
    printf("checksum: %.12e\n", sum);
    free(A); free(u1); free(v1); free(u2); free(v2); free(w); free(x); free(y); free(z);
    return 0;
}
