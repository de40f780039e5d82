/* Counts generated ranked ballots: each ballot ranks three of the candidates, and every ballot adds its first
 * preference to a shared first-choice table and 3, 2 and 1 points to a shared Borda table (atomic updates on a
 * few cache lines, little work per ballot). Usage: vote_count ballots candidates (candidates 3 to 16).
 * Prints each candidate's first preferences and points, and the winner under each count. */
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 1 || atoi(argv[2]) < 3 || atoi(argv[2]) > 16) {
        fprintf(stderr, "usage: %s ballots candidates\n", argv[0]);
        return 2;
    }
    long ballots = atol(argv[1]);
    int k = atoi(argv[2]);
    long first[16] = {0}, points[16] = {0};
#pragma omp parallel for
    for (long b = 0; b < ballots; b++) {
        unsigned long h = mix((unsigned long)b);
        /* popular candidates come first more often: the lower of two draws */
        int c0 = (int)(h % k), alt = (int)((h >> 8) % k);
        if (alt < c0) c0 = alt;
        int c1 = (c0 + 1 + (int)((h >> 16) % (k - 1))) % k;
        int c2 = (c0 + 1 + (int)((h >> 24) % (k - 1))) % k;
        while (c2 == c0 || c2 == c1) c2 = (c2 + 1) % k;
#pragma omp atomic
        first[c0]++;
#pragma omp atomic
        points[c0] += 3;
#pragma omp atomic
        points[c1] += 2;
#pragma omp atomic
        points[c2] += 1;
    }
    int most = 0, best = 0;
    for (int c = 0; c < k; c++) {
        printf("candidate %d: %ld first, %ld points\n", c + 1, first[c], points[c]);
        if (first[c] > first[most]) most = c;
        if (points[c] > points[best]) best = c;
    }
    printf("first-choice winner: %d\nBorda winner: %d\n", most + 1, best + 1);
    return 0;
}
