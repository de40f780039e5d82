/* nussinov: RNA folding DP, S[i][j] = max(S[i+1][j], S[i][j-1], S[i+1][j-1] + pair, max_k S[i][k] + S[k+1][j]).
 * Category: medley (dynamic programming over diagonals, integer).
 * Sizes: MIRTUNE_SIZE=1 -> N=1000; MIRTUNE_SIZE=2 -> N=1600. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1600
#else
#define N 1000
#endif

static const char *const kNote = "cells on one diagonal are independent: #pragma omp for over i";

static inline int max2(int a, int b) { return a > b ? a : b; }

/* bases 0..3 = A, C, G, U; Watson-Crick pairs A-U and C-G score 1 */
static inline int pairs(int a, int b) { return a + b == 3; }

int main(void)
{
    char *seq = malloc(N);
    int *S = calloc((size_t)N * N, sizeof(int));
    if (!seq || !S)
        return 1;
    unsigned int state = 12345u + (unsigned int)(kNote[0] != '\0');
    for (int i = 0; i < N; i++) {
        state = state * 1103515245u + 12345u;
        seq[i] = (char)((state >> 16) & 3u);
    }

    for (int d = 1; d < N; d++) {
#pragma omp parallel for schedule(dynamic, 16)
        for (int i = 0; i < N - d; i++) {
            const int j = i + d;
            int best = max2(S[(i + 1) * N + j], S[i * N + j - 1]);
            if (d > 1)
                best = max2(best, S[(i + 1) * N + j - 1] + pairs(seq[i], seq[j]));
            else
                best = max2(best, pairs(seq[i], seq[j]));
            for (int k = i + 1; k < j; k++)
                best = max2(best, S[i * N + k] + S[(k + 1) * N + j]);
            S[i * N + j] = best;
        }
    }

    long long total = 0;
    int i;
#pragma omp parallel for reduction(+ : total) private(i)
    for (i = 0; i < N; i++)
        for (int j = i; j < N; j++)
            total += (long long)S[i * N + j] * (1 + (j - i) % 3);
    printf("checksum: %lld\n", total);
    free(seq); free(S);
    return 0;
}
