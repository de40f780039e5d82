/* 2mm: D = alpha * A * B * C + beta * D, as tmp = alpha*A*B then D = beta*D + tmp*C.
 * Category: linear algebra (two chained matrix products).
 * Sizes: MIRTUNE_SIZE=1 -> NI,NJ,NK,NL = 600,580,620,640; MIRTUNE_SIZE=2 -> 1000,980,1020,1040. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NI 1000
#define NJ 980
#define NK 1020
#define NL 1040
#else
#define NI 600
#define NJ 580
#define NK 620
#define NL 640
#endif

int main(void)
{
    const double alpha = 1.5, beta = 1.2;
    double *A = malloc(sizeof(double) * NI * NK);
    double *B = malloc(sizeof(double) * NK * NJ);
    double *C = malloc(sizeof(double) * NJ * NL);
    double *D = malloc(sizeof(double) * NI * NL);
    double *tmp = malloc(sizeof(double) * NI * NJ);
    if (!A || !B || !C || !D || !tmp)
        return 1;
    int i, j, k;

    for (i = 0; i < NI; i++)
        for (k = 0; k < NK; k++)
            A[i * NK + k] = (double)((i * k + 1) % NI) / NI;
    for (k = 0; k < NK; k++)
        for (j = 0; j < NJ; j++)
            B[k * NJ + j] = (double)(k * (j + 1) % NJ) / NJ;
    for (j = 0; j < NJ; j++)
        for (i = 0; i < NL; i++)
            C[j * NL + i] = (double)((j * (i + 3) + 1) % NL) / NL;
    for (i = 0; i < NI; i++)
        for (j = 0; j < NL; j++)
            D[i * NL + j] = (double)(i * (j + 2) % NK) / NK;

#pragma omp parallel for private(j, k)
    for (i = 0; i < NI; i++) {
        for (j = 0; j < NJ; j++)
            tmp[i * NJ + j] = 0.0;
        for (k = 0; k < NK; k++) {
            double a = alpha * A[i * NK + k];
            for (j = 0; j < NJ; j++)
                tmp[i * NJ + j] += a * B[k * NJ + j];
        }
    }

#pragma omp parallel for private(k, j)
    for (i = 0; i < NI; i++) {
        for (j = 0; j < NL; j++)
            D[i * NL + j] *= beta;
        for (k = 0; k < NJ; k++) {
            double t = tmp[i * NJ + k];
            for (j = 0; j < NL; j++)
                D[i * NL + j] += t * C[k * NL + j];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)NI * NL; idx++)
        sum += D[idx] * (double)(1 + idx % 11);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(C); free(D); free(tmp);
    return 0;
}
