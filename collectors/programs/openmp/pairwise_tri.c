/* pairwise_tri: softened pair potential, e[i] = q_i sum_{j<i} q_j / sqrt(|r_i - r_j|^2 + eps), one row per iteration.
 * Category: irregular (triangular loop, row i costs i terms).
 * Sizes: MIRTUNE_SIZE=1 -> N=9500; MIRTUNE_SIZE=2 -> N=23000. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 23000
#else
#define N 9500
#endif

int main(void)
{
    double *px = malloc(sizeof(double) * N), *py = malloc(sizeof(double) * N);
    double *pz = malloc(sizeof(double) * N), *q = malloc(sizeof(double) * N);
    double *e = malloc(sizeof(double) * N);
    if (!px || !py || !pz || !q || !e)
        return 1;
    for (int i = 0; i < N; i++) {
        px[i] = sin(0.37 * i) * 10.0;
        py[i] = cos(0.91 * i) * 10.0;
        pz[i] = (double)(i % 101) / 10.0;
        q[i] = (i % 3 == 0) ? -1.0 : 1.0 + (double)(i % 5) / 10.0;
    }

    const double eps = 1e-3;
    int i;
#pragma omp parallel for private(i) shared(px, py, pz, q, e)
    for (i = 0; i < N; i++) {
        double acc = 0.0;
        for (int j = 0; j < i; j++) {
            const double ddx = px[i] - px[j], ddy = py[i] - py[j], ddz = pz[i] - pz[j];
            acc += q[j] / sqrt(ddx * ddx + ddy * ddy + ddz * ddz + eps);
        }
        e[i] = q[i] * acc;
    }

    double sum = 0.0;
    for (int k = 0; k < N; k++)
        sum += e[k] * (double)(1 + k % 4);
    printf("checksum: %.12e\n", sum);
    free(px); free(py); free(pz); free(q); free(e);
    return 0;
}
