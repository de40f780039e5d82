/* floyd_warshall: all-pairs shortest paths, d[i][j] = min(d[i][j], d[i][k] + d[k][j]), integer weights.
 * Category: medley (graph, integer).
 * Sizes: MIRTUNE_SIZE=1 -> N=700 vertices; MIRTUNE_SIZE=2 -> N=1300 vertices. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1300
#else
#define N 700
#endif

#define NO_EDGE 1000000000

int main(void)
{
    int *d = malloc(sizeof(int) * N * N);
    if (!d)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            int w = (i * j) % 7 + 1;
            if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
                w = 999;
            if (((i * 31 + j * 17) % 5) == 0)
                w = NO_EDGE;
            d[i * N + j] = (i == j) ? 0 : w;
        }

    /* Row k does not change during step k (d[k][k] = 0), so rows can be split among threads. */
    for (int k = 0; k < N; k++) {
        const int *dk = &d[k * N];
#pragma omp parallel for
        for (int i = 0; i < N; i++) {
            int *di = &d[i * N];
            const int dik = di[k];
            if (dik >= NO_EDGE)
                continue;
            for (int j = 0; j < N; j++) {
                const int via = dik + dk[j];
                if (via < di[j])
                    di[j] = via;
            }
        }
    }

    long long total = 0;
    long long reachable = 0;
#pragma omp parallel for reduction(+:total, reachable)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (d[i * N + j] < NO_EDGE) {
                total += (long long)d[i * N + j] * (1 + (i + j) % 5);
                reachable += 1;
            }
    printf("checksum: %lld\n", total * 1000003LL + reachable);
    free(d);
    return 0;
}
