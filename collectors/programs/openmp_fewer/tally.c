/* Tallies a pseudo-random stream of die rolls into six counters shared by all threads (atomic updates).
 * Usage: tally rolls seed. Prints each face's count. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 1) {
        fprintf(stderr, "usage: %s rolls seed\n", argv[0]);
        return 2;
    }
    long rolls = atol(argv[1]);
    unsigned long seed = strtoul(argv[2], NULL, 10);
    long count[6] = {0};
#pragma omp parallel for
    for (long i = 0; i < rolls; i++) {
        unsigned long x = (unsigned long)i * 6364136223846793005UL + seed * 1442695040888963407UL;
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9UL;
        x ^= x >> 32;
        int face = (int)(x % 6);
#pragma omp atomic
        count[face]++;
    }
    for (int f = 0; f < 6; f++) printf("face %d: %ld\n", f + 1, count[f]);
    return 0;
}
