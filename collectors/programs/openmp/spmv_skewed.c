/* spmv_skewed: repeated CSR y = A x with x <- y / max|y|; most rows are short, every 61st row holds hundreds.
 * Category: irregular (skewed row lengths).
 * Sizes: MIRTUNE_SIZE=1 -> 100000 rows, 60 products; MIRTUNE_SIZE=2 -> 250000 rows, 60 products. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NROWS 250000
#define ITERS 60
#else
#define NROWS 100000
#define ITERS 60
#endif

static unsigned long long rng = 88172645463325252ULL;

static unsigned int next_u32(void)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned int)(rng >> 33);
}

static int row_length(int i)
{
    if (i % 61 == 0)
        return 300 + (i % 7) * 50;           /* heavy rows */
    return 2 + (int)((long)i * 24 / NROWS);   /* slowly growing light rows */
}

int main(void)
{
    const int n = NROWS;
    long *rowptr = malloc(sizeof(long) * (n + 1));
    if (!rowptr)
        return 1;
    rowptr[0] = 0;
    for (int i = 0; i < n; i++)
        rowptr[i + 1] = rowptr[i] + row_length(i);
    const long nnz = rowptr[n];
    int *col = malloc(sizeof(int) * nnz);
    double *val = malloc(sizeof(double) * nnz);
    double *x = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n);
    if (!col || !val || !x || !y)
        return 1;
    for (int i = 0; i < n; i++) {
        for (long p = rowptr[i]; p < rowptr[i + 1]; p++) {
            col[p] = (int)(next_u32() % (unsigned int)n);
            val[p] = 0.1 + (double)(next_u32() % 1000) / 1000.0;
        }
        x[i] = 1.0 + (double)(i % 10) / 10.0;
    }

    for (int it = 0; it < ITERS; it++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double acc = 0.0;
            for (long p = rowptr[i]; p < rowptr[i + 1]; p++)
                acc += val[p] * x[col[p]];
            y[i] = acc;
        }
        double big = 0.0;
        for (int i = 0; i < n; i++)
            if (fabs(y[i]) > big)
                big = fabs(y[i]);
        for (int i = 0; i < n; i++)
            x[i] = y[i] / big;
    }

    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += y[i] * (double)(1 + i % 9);
    printf("checksum: %.12e\n", sum);
    free(rowptr); free(col); free(val); free(x); free(y);
    return 0;
}
