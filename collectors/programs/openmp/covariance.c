/* covariance: cov[i][j] = sum_k (d[k][i] - mean_i)(d[k][j] - mean_j) / (N - 1), M variables, N observations.
 * Category: data mining (upper-triangular work per row of the result).
 * Sizes: MIRTUNE_SIZE=1 -> N=1050, M=840; MIRTUNE_SIZE=2 -> N=1900, M=1380. */
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

int main(void)
{
    double *data = malloc(sizeof(double) * N * M);
    double *mean = malloc(sizeof(double) * M);
    double *cov = malloc(sizeof(double) * M * M);
    if (!data || !mean || !cov)
        return 1;

    for (int k = 0; k < N; k++)
        for (int j = 0; j < M; j++)
            data[k * M + j] = (double)((k * j) % 1000) / 100.0 + (double)(k % 17) * 0.25;

#pragma omp parallel
    {
        /* column means */
#pragma omp for
        for (int j = 0; j < M; j++) {
            double s = 0.0;
            for (int k = 0; k < N; k++)
                s += data[k * M + j];
            mean[j] = s / N;
        }
        /* centre the data (rows are disjoint) */
#pragma omp for
        for (int k = 0; k < N; k++)
            for (int j = 0; j < M; j++)
                data[k * M + j] -= mean[j];
        /* upper triangle of the covariance matrix; row i holds M - i entries */
#pragma omp for
        for (int i = 0; i < M; i++) {
            double *crow = &cov[i * M];
            for (int j = i; j < M; j++)
                crow[j] = 0.0;
            for (int k = 0; k < N; k++) {
                const double dki = data[k * M + i];
                const double *drow = &data[k * M];
                for (int j = i; j < M; j++)
                    crow[j] += dki * drow[j];
            }
            for (int j = i; j < M; j++)
                crow[j] /= (N - 1.0);
        }
    }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < i; j++)
            cov[i * M + j] = cov[j * M + i];

    double sum = 0.0;
    for (long idx = 0; idx < (long)M * M; idx++)
        sum += cov[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(data); free(mean); free(cov);
    return 0;
}
