/* Random walkers on a 2048x2048 grid that wraps around: each walker draws its start and every step from a
 * counter-based generator (walker, step), moves to one of its eight neighbours and atomically increments the
 * visit count of the cell it reaches. Usage: walker_deposit walkers steps seed. Prints the number of visits,
 * the cells visited, the most visits of one cell, and how many cells were visited 1, 2-3, 4-7, ... times. */
#include <stdio.h>
#include <stdlib.h>

#define SIDE 2048

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 4 || atol(argv[1]) < 1 || atol(argv[2]) < 1) {
        fprintf(stderr, "usage: %s walkers steps seed\n", argv[0]);
        return 2;
    }
    long walkers = atol(argv[1]), steps = atol(argv[2]);
    unsigned long seed = strtoul(argv[3], NULL, 10);
    unsigned int *visits = calloc((size_t)SIDE * SIDE, sizeof(unsigned int));
    if (!visits) return 1;
    static const int dx[8] = {1, 1, 0, -1, -1, -1, 0, 1}, dy[8] = {0, 1, 1, 1, 0, -1, -1, -1};
#pragma omp parallel for
    for (long w = 0; w < walkers; w++) {
        unsigned long key = mix(seed * 0x2545f4914f6cdd1dUL + (unsigned long)w);
        int x = (int)(key % SIDE), y = (int)((key >> 24) % SIDE);
        for (long s = 0; s < steps; s++) {
            unsigned long r = mix(key ^ (unsigned long)s);
            int d = (int)(r & 7);
            /* one step in four is a jump of two cells */
            int len = (r >> 3) % 4 == 0 ? 2 : 1;
            x = (x + len * dx[d] + SIDE) % SIDE;
            y = (y + len * dy[d] + SIDE) % SIDE;
#pragma omp atomic
            visits[(long)y * SIDE + x]++;
        }
    }
    long total = 0, visited = 0, bins[32] = {0};
    unsigned int most = 0;
    for (long c = 0; c < (long)SIDE * SIDE; c++) {
        unsigned int v = visits[c];
        if (v == 0) continue;
        total += v;
        visited++;
        if (v > most) most = v;
        int b = 0;
        while (v > 1) v >>= 1, b++;
        bins[b]++;
    }
    printf("visits: %ld\ncells visited: %ld of %d\nmost visits of one cell: %u\n", total, visited, SIDE * SIDE,
           most);
    for (int b = 0; b < 32 && (1UL << b) <= most; b++)
        printf("visited %lu-%lu times: %ld cells\n", 1UL << b, (2UL << b) - 1, bins[b]);
    free(visits);
    return 0;
}
