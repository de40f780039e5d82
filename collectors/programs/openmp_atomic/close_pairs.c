/* Counts the pairs of a generated set of points in the unit square that lie closer than a cut-off, in 32
 * distance bins: an O(n^2) loop over pairs that increments one bin of a shared histogram (atomically) only for
 * pairs within the cut-off. Usage: close_pairs points cutoff (0 < cutoff <= 1). Prints each bin's count and
 * the total. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BINS 32

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 2 || atof(argv[2]) <= 0 || atof(argv[2]) > 1) {
        fprintf(stderr, "usage: %s points cutoff\n", argv[0]);
        return 2;
    }
    long n = atol(argv[1]);
    double cutoff = atof(argv[2]), cut2 = cutoff * cutoff;
    double *px = malloc(sizeof(double) * n), *py = malloc(sizeof(double) * n);
    if (!px || !py) return 1;
    for (long i = 0; i < n; i++) {
        px[i] = (double)(mix(2 * (unsigned long)i) >> 11) / 9007199254740992.0;
        py[i] = (double)(mix(2 * (unsigned long)i + 1) >> 11) / 9007199254740992.0;
    }
    long hist[BINS] = {0};
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        for (long j = i + 1; j < n; j++) {
            double ddx = px[i] - px[j], ddy = py[i] - py[j];
            double d2 = ddx * ddx + ddy * ddy;
            if (d2 < cut2) {
                int b = (int)(sqrt(d2) / cutoff * BINS);
                if (b >= BINS) b = BINS - 1;
#pragma omp atomic
                hist[b]++;
            }
        }
    }
    long total = 0;
    for (int b = 0; b < BINS; b++) {
        printf("%.5f-%.5f: %ld\n", cutoff * b / BINS, cutoff * (b + 1) / BINS, hist[b]);
        total += hist[b];
    }
    printf("pairs within %g: %ld of %ld\n", cutoff, total, n * (n - 1) / 2);
    free(px);
    free(py);
    return 0;
}
