/* 3mm: E = A*B, F = C*D, G = E*F for dense double matrices.
 * Category: linear algebra (three matrix products in one parallel region).
 * Sizes: MIRTUNE_SIZE=1 -> NI,NJ,NK,NL,NM = 510,530,500,520,505; MIRTUNE_SIZE=2 -> 900,920,880,910,890. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NI 900
#define NJ 920
#define NK 880
#define NL 910
#define NM 890
#else
#define NI 510
#define NJ 530
#define NK 500
#define NL 520
#define NM 505
#endif

/* E (NI x NJ) = A (NI x NK) * B (NK x NJ)
 * F (NJ x NL) = C (NJ x NM) * D (NM x NL)
 * G (NI x NL) = E * F */
int main(void)
{
    double *A = malloc(sizeof(double) * NI * NK);
    double *B = malloc(sizeof(double) * NK * NJ);
    double *C = malloc(sizeof(double) * NJ * NM);
    double *D = malloc(sizeof(double) * NM * NL);
    double *E = malloc(sizeof(double) * NI * NJ);
    double *F = malloc(sizeof(double) * NJ * NL);
    double *G = malloc(sizeof(double) * NI * NL);
    if (!A || !B || !C || !D || !E || !F || !G)
        return 1;

    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++)
            A[i * NK + k] = (double)((i * k + 1) % NI) / (5.0 * NI);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k * NJ + j] = (double)((k * (j + 1) + 2) % NJ) / (5.0 * NJ);
    for (int j = 0; j < NJ; j++)
        for (int m = 0; m < NM; m++)
            C[j * NM + m] = (double)(j * (m + 3) % NL) / (5.0 * NL);
    for (int m = 0; m < NM; m++)
        for (int l = 0; l < NL; l++)
            D[m * NL + l] = (double)((m * (l + 2) + 2) % NK) / (5.0 * NK);

    /* One team, three work-shared loops; the implicit barrier after each
     * "#pragma omp for" makes E and F complete before G reads them. */
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < NI; i++) {
            for (int j = 0; j < NJ; j++)
                E[i * NJ + j] = 0.0;
            for (int k = 0; k < NK; k++)
                for (int j = 0; j < NJ; j++)
                    E[i * NJ + j] += A[i * NK + k] * B[k * NJ + j];
        }
#pragma omp for
        for (int j = 0; j < NJ; j++) {
            for (int l = 0; l < NL; l++)
                F[j * NL + l] = 0.0;
            for (int m = 0; m < NM; m++)
                for (int l = 0; l < NL; l++)
                    F[j * NL + l] += C[j * NM + m] * D[m * NL + l];
        }
#pragma omp for
        for (int i = 0; i < NI; i++) {
            for (int l = 0; l < NL; l++)
                G[i * NL + l] = 0.0;
            for (int j = 0; j < NJ; j++)
                for (int l = 0; l < NL; l++)
                    G[i * NL + l] += E[i * NJ + j] * F[j * NL + l];
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)NI * NL; idx++)
        sum += G[idx] * (double)(1 + idx % 5);
    printf("checksum: %.12e\n", sum);
    free(A); free(B); free(C); free(D); free(E); free(F); free(G);
    return 0;
}
