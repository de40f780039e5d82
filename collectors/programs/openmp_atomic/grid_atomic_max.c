/* Per-cell statistics of generated sensor readings on a square grid of side x side cells: each reading
 * atomically adds to its cell's count and sum and raises the cell's maximum with an atomic compare-and-swap
 * loop. A small side gives a few cells that every thread updates; a large side, many cells that rarely meet.
 * Usage: grid_atomic_max readings side (side 1 to 4096). Prints the cells with readings, the readings counted,
 * the hottest cell and the sum of the cells' maxima (temperatures in thousandths of a degree). */
#include <stdio.h>
#include <stdlib.h>

struct cell {
    long count;
    long sum;
    int max;
};

static unsigned long mix(unsigned long x) {
    x += 0x9e3779b97f4a7c15UL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9UL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebUL;
    return x ^ (x >> 31);
}

int main(int argc, char **argv) {
    if (argc != 3 || atol(argv[1]) < 1 || atoi(argv[2]) < 1 || atoi(argv[2]) > 4096) {
        fprintf(stderr, "usage: %s readings side\n", argv[0]);
        return 2;
    }
    long readings = atol(argv[1]);
    int side = atoi(argv[2]);
    long cells = (long)side * side;
    struct cell *grid = malloc(sizeof(struct cell) * cells);
    if (!grid) return 1;
    for (long c = 0; c < cells; c++) grid[c] = (struct cell){0, 0, -1000000};
#pragma omp parallel for
    for (long i = 0; i < readings; i++) {
        unsigned long h = mix((unsigned long)i);
        double x = (double)(h >> 38) / 67108864.0, y = (double)((h >> 12) & 0x3ffffff) / 67108864.0;
        /* a warm patch in the middle, colder to the north, a slow rise over time, and sensor noise */
        double t = 12.0 + 9.0 * x * (1.0 - x) * 4.0 * y * (1.0 - y) - 3.0 * y + 2.0 * (double)i / (double)readings;
        int value = (int)(t * 1000.0) + (int)(h & 0x3ff) - 512;
        long c = (long)(y * side) * side + (long)(x * side);
#pragma omp atomic
        grid[c].count++;
#pragma omp atomic
        grid[c].sum += value;
        int old = __atomic_load_n(&grid[c].max, __ATOMIC_RELAXED);
        while (value > old &&
               !__atomic_compare_exchange_n(&grid[c].max, &old, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
    long used = 0, counted = 0, hottest = 0, maxsum = 0;
    for (long c = 0; c < cells; c++) {
        if (grid[c].count == 0) continue;
        used++;
        counted += grid[c].count;
        maxsum += grid[c].max;
        if (grid[c].max > grid[hottest].max) hottest = c;
    }
    printf("cells with readings: %ld of %ld\nreadings: %ld\n", used, cells, counted);
    printf("hottest cell: row %ld, column %ld, max %d, mean %ld of %ld readings\n", hottest / side, hottest % side,
           grid[hottest].max, grid[hottest].sum / grid[hottest].count, grid[hottest].count);
    printf("sum of cell maxima: %ld\n", maxsum);
    free(grid);
    return 0;
}
