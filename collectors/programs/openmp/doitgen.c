/* doitgen: A[r][q][p] = sum_s A[r][q][s] * C4[s][p] for every (r, q) (multi-resolution analysis kernel).
 * Category: linear algebra (tensor contraction; collapse(2) over r and q).
 * Sizes: MIRTUNE_SIZE=1 -> NR,NQ,NP = 140,120,180; MIRTUNE_SIZE=2 -> 200,180,300. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NR 200
#define NQ 180
#define NP 300
#else
#define NR 140
#define NQ 120
#define NP 180
#endif

int main(void)
{
    double *A = malloc(sizeof(double) * NR * NQ * NP);
    double *C4 = malloc(sizeof(double) * NP * NP);
    if (!A || !C4)
        return 1;

    for (int r = 0; r < NR; r++)
        for (int q = 0; q < NQ; q++)
            for (int p = 0; p < NP; p++)
                A[(r * NQ + q) * NP + p] = (double)((r * q + p) % NP) / NP;
    for (int s = 0; s < NP; s++)
        for (int p = 0; p < NP; p++)
            C4[s * NP + p] = (double)(s * p % NP) / NP;

#pragma omp parallel for collapse(2)
    for (int r = 0; r < NR; r++)
        for (int q = 0; q < NQ; q++) {
            double sum[NP];
            double *a = &A[(r * NQ + q) * NP];
            for (int p = 0; p < NP; p++)
                sum[p] = 0.0;
            for (int s = 0; s < NP; s++) {
                const double as = a[s];
                for (int p = 0; p < NP; p++)
                    sum[p] += as * C4[s * NP + p];
            }
            for (int p = 0; p < NP; p++)
                a[p] = sum[p];
        }

    double total = 0.0;
    for (long idx = 0; idx < (long)NR * NQ * NP; idx++)
        total += A[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", total);
    free(A); free(C4);
    return 0;
}
