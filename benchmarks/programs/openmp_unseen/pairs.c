/*
 * pairs.c - all-pairs Euclidean distances between n random points in d dimensions
 * (each unordered pair once, j > i): distance histogram, number of pairs closer than
 * a radius, neighbour counts and the closest pair.
 *
 * usage: pairs <n> <dim> <radius> [seed]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NBINS 24

static uint64_t state;
static double rnd(void) /* 64-bit LCG, top 53 bits */
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(state >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s <n> <dim> <radius> [seed]\n", argv[0]);
        fprintf(stderr, "  e.g. %s 6000 16 0.9 12345\n", argv[0]);
        return 2;
    }
    char *e1, *e2, *e3;
    long n = strtol(argv[1], &e1, 10);
    long d = strtol(argv[2], &e2, 10);
    double radius = strtod(argv[3], &e3);
    if (*e1 || *e2 || *e3 || n < 2 || n > 200000 || d < 1 || d > 1024 || !(radius > 0)) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    state = argc == 5 ? strtoull(argv[4], NULL, 10) : 12345;

    /* points: mixture of a tight cluster (first 20%) and uniform points in the unit cube */
    double *p = malloc(sizeof(double) * n * d);
    int *near = malloc(sizeof(int) * n);
    double *mind = malloc(sizeof(double) * n);
    long *minj = malloc(sizeof(long) * n);
    if (!p || !near || !mind || !minj) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        for (long k = 0; k < d; k++)
            p[i * d + k] = i < n / 5 ? 0.5 + 0.15 * (rnd() - 0.5) : rnd();

    double maxdist = 0.75 * sqrt((double)d); /* last bin also takes everything beyond */
    double binw = maxdist / NBINS;
    long hist[NBINS] = {0};
    long close = 0;

#pragma omp parallel for reduction(+:hist[:NBINS], close)
    for (long i = 0; i < n - 1; i++) {
        const double *pi = &p[i * d];
        int cnt = 0;
        double best = INFINITY;
        long bj = -1;
        for (long j = i + 1; j < n; j++) {
            const double *pj = &p[j * d];
            double s = 0.0;
            for (long k = 0; k < d; k++) {
                double t = pi[k] - pj[k];
                s += t * t;
            }
            double dist = sqrt(s);
            int b = (int)(dist / binw);
            hist[b < NBINS ? b : NBINS - 1]++;
            if (dist < radius)
                cnt++;
            if (dist < best) {
                best = dist;
                bj = j;
            }
        }
        near[i] = cnt;
        mind[i] = best;
        minj[i] = bj;
        close += cnt;
    }
    near[n - 1] = 0;

    long bi = 0;
    for (long i = 1; i < n - 1; i++)
        if (mind[i] < mind[bi])
            bi = i;
    long total = n * (n - 1) / 2;
    long most = 0;
    for (long i = 1; i < n; i++)
        if (near[i] > near[most])
            most = i;

    printf("%ld points in %ld dimensions, %ld pairs\n", n, d, total);
    printf("pairs closer than %.3f: %ld (%.4f%%)\n", radius, close, 100.0 * close / total);
    printf("closest pair: %ld and %ld, distance %.6e\n", bi, minj[bi], mind[bi]);
    printf("point with most later neighbours: %ld (%d)\n", most, near[most]);
    printf("distance histogram (bin width %.4f):\n", binw);
    long hmax = 1;
    for (int b = 0; b < NBINS; b++)
        if (hist[b] > hmax)
            hmax = hist[b];
    for (int b = 0; b < NBINS; b++) {
        if (hist[b] == 0)
            continue;
        printf("  %7.4f - %7.4f %10ld ", b * binw, (b + 1) * binw, hist[b]);
        for (int k = 0; k < (int)(50 * hist[b] / hmax); k++)
            putchar('*');
        putchar('\n');
    }
    free(p);
    free(near);
    free(mind);
    free(minj);
    return 0;
}
