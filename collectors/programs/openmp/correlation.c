/* correlation: Pearson correlation matrix of M variables over N observations: corr = Z^T Z, Z standardised.
 * Category: data mining (upper-triangular work per row of the result).
 * Sizes: MIRTUNE_SIZE=1 -> N=1050, M=840; MIRTUNE_SIZE=2 -> N=1900, M=1380. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1900
#define M 1380
#else
#define N 1050
#define M 840
#endif

#define EPS 0.1

int main(void)
{
    double *data = malloc(sizeof(double) * N * M);
    double *mean = malloc(sizeof(double) * M);
    double *stddev = malloc(sizeof(double) * M);
    double *corr = malloc(sizeof(double) * M * M);
    if (!data || !mean || !stddev || !corr)
        return 1;

    for (int k = 0; k < N; k++)
        for (int j = 0; j < M; j++)
            data[k * M + j] = (double)(k * j) / M + (double)((k + 3 * j) % 23);

    const double fn = (double)N;
#pragma omp parallel for
    for (int j = 0; j < M; j++) {
        double s = 0.0;
        for (int k = 0; k < N; k++)
            s += data[k * M + j];
        mean[j] = s / fn;
        double v = 0.0;
        for (int k = 0; k < N; k++) {
            const double d = data[k * M + j] - mean[j];
            v += d * d;
        }
        v = sqrt(v / fn);
        stddev[j] = v <= EPS ? 1.0 : v; /* avoid dividing by ~0 */
    }

#pragma omp parallel for collapse(2)
    for (int k = 0; k < N; k++)
        for (int j = 0; j < M; j++)
            data[k * M + j] = (data[k * M + j] - mean[j]) / (sqrt(fn) * stddev[j]);

    /* strictly upper triangle, diagonal is 1 */
#pragma omp parallel for
    for (int i = 0; i < M; i++) {
        double *crow = &corr[i * M];
        crow[i] = 1.0;
        for (int j = i + 1; j < M; j++)
            crow[j] = 0.0;
        for (int k = 0; k < N; k++) {
            const double zi = data[k * M + i];
            for (int j = i + 1; j < M; j++)
                crow[j] += zi * data[k * M + j];
        }
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < i; j++)
            corr[i * M + j] = corr[j * M + i];

    double sum = 0.0;
    for (long idx = 0; idx < (long)M * M; idx++)
        sum += corr[idx] * (double)(1 + idx % 11);
    printf("checksum: %.12e\n", sum);
    free(data); free(mean); free(stddev); free(corr);
    return 0;
}
