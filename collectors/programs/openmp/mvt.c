/* mvt: x1 = x1 + A y1 and x2 = x2 + A^T y2, repeated with y1 <- x1 / max|x1|, y2 <- x2 / max|x2|.
 * Category: linear algebra (matrix-vector product and transpose).
 * Sizes: MIRTUNE_SIZE=1 -> N=2000, 5 rounds; MIRTUNE_SIZE=2 -> N=2500, 14 rounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2500
#define ROUNDS 14
#else
#define N 2000
#define ROUNDS 5
#endif

int main(void)
{
    const int n = N;
    double *A = malloc(sizeof(double) * n * n);
    double *x1 = malloc(sizeof(double) * n), *x2 = malloc(sizeof(double) * n);
    double *y1 = malloc(sizeof(double) * n), *y2 = malloc(sizeof(double) * n);
    if (!A || !x1 || !x2 || !y1 || !y2)
        return 1;

    for (int i = 0; i < n; i++) {
        x1[i] = (double)(i % n) / n;
        x2[i] = (double)((i + 1) % n) / n;
        y1[i] = (double)((i + 3) % n) / n;
        y2[i] = (double)((i + 4) % n) / n;
        for (int j = 0; j < n; j++)
            A[(long)i * n + j] = (double)(i * j % n) / n;
    }

    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double acc = x1[i];
            for (int j = 0; j < n; j++)
                acc += A[(long)i * n + j] * y1[j];
            x1[i] = acc;
        }
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double acc = x2[i];
            for (int j = 0; j < n; j++)
                acc += A[(long)j * n + i] * y2[j];
            x2[i] = acc;
        }
        double b1 = 0.0, b2 = 0.0;
        for (int i = 0; i < n; i++) {
            if (fabs(x1[i]) > b1) b1 = fabs(x1[i]);
            if (fabs(x2[i]) > b2) b2 = fabs(x2[i]);
        }
        for (int i = 0; i < n; i++) {
            y1[i] = x1[i] / b1;
            y2[i] = x2[i] / b2;
            x1[i] = y1[i];
            x2[i] = y2[i];
        }
    }

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += x1[i] * (double)(1 + i % 4) + x2[i] * (double)(1 + i % 6);
    printf("checksum: %.12e\n", sum);
    free(A); free(x1); free(x2); free(y1); free(y2);
    return 0;
}
