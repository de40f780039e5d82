/* sandpile: abelian sandpile relaxation with synchronous (Jacobi) sweeps.
 *
 * usage: sandpile GRID_FILE
 *
 * GRID_FILE: first line "ROWS COLS", then ROWS lines of COLS non-negative
 * grain counts.  Every sweep topples each cell holding 4 or more grains
 * once (4 grains go to the neighbours, grains falling off the border are
 * lost) until no cell is unstable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXDIM 1024

static int read_grid(const char *path, int *rows, int *cols, int **grid)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "sandpile: cannot open %s\n", path); return -1; }
    int r, c;
    if (fscanf(f, "%d %d", &r, &c) != 2 || r < 3 || c < 3 || r > MAXDIM || c > MAXDIM) {
        fprintf(stderr, "sandpile: %s: bad header (expected ROWS COLS, 3..%d)\n", path, MAXDIM);
        fclose(f); return -1;
    }
    int *g = malloc(sizeof(int) * (size_t)r * (size_t)c);
    for (long k = 0; k < (long)r * c; k++) {
        long v;
        if (fscanf(f, "%ld", &v) != 1 || v < 0 || v > 100000000L) {
            fprintf(stderr, "sandpile: %s: bad or missing grain count at cell %ld\n", path, k);
            free(g); fclose(f); return -1;
        }
        g[k] = (int)v;
    }
    int extra;
    if (fscanf(f, "%d", &extra) == 1) {
        fprintf(stderr, "sandpile: %s: more values than ROWS*COLS\n", path);
        free(g); fclose(f); return -1;
    }
    fclose(f);
    *rows = r; *cols = c; *grid = g;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s GRID_FILE\n", argv[0]);
        return 2;
    }
    int rows, cols, *cur;
    if (read_grid(argv[1], &rows, &cols, &cur) != 0) return 1;
    int *next = malloc(sizeof(int) * (size_t)rows * (size_t)cols);

    long long grains0 = 0;
    for (long k = 0; k < (long)rows * cols; k++) grains0 += cur[k];

    long long sweeps = 0, topplings = 0;
    long long unstable = 1;
    while (unstable > 0) {
        unstable = 0;
#pragma omp parallel for reduction(+:unstable)
        for (int i = 0; i < rows; i++) {
            const int *up = (i > 0) ? cur + (size_t)(i - 1) * cols : NULL;
            const int *mid = cur + (size_t)i * cols;
            const int *dn = (i < rows - 1) ? cur + (size_t)(i + 1) * cols : NULL;
            int *out = next + (size_t)i * cols;
            long long cnt = 0;
            for (int j = 0; j < cols; j++) {
                int v = mid[j];
                int t = v >= 4;
                cnt += t;
                v -= 4 * t;
                if (up) v += up[j] >= 4;
                if (dn) v += dn[j] >= 4;
                if (j > 0) v += mid[j - 1] >= 4;
                if (j < cols - 1) v += mid[j + 1] >= 4;
                out[j] = v;
            }
            unstable += cnt;
        }
        if (unstable > 0) {
            int *tmp = cur; cur = next; next = tmp;
            sweeps++;
            topplings += unstable;
        }
    }

    long long hist[4] = {0, 0, 0, 0}, grains1 = 0;
    for (long k = 0; k < (long)rows * cols; k++) { hist[cur[k]]++; grains1 += cur[k]; }

    printf("grid: %d x %d\n", rows, cols);
    printf("sweeps: %lld\n", sweeps);
    printf("topplings: %lld\n", topplings);
    printf("grains: %lld initially, %lld remaining, %lld lost over the border\n",
           grains0, grains1, grains0 - grains1);
    printf("final grain histogram:\n");
    for (int v = 0; v < 4; v++)
        printf("  %d grains: %7lld cells (%.2f%%)\n", v, hist[v], 100.0 * (double)hist[v] / ((double)rows * cols));

    /* coarse picture: blocks of by x bx cells, shaded by mean grain count */
    int bx = (cols + 59) / 60, by = 2 * bx;
    const char *shade = " .:-=+*#%@";
    printf("picture (%dx%d cells per character):\n", by, bx);
    for (int i0 = 0; i0 < rows; i0 += by) {
        putchar(' '); putchar(' ');
        for (int j0 = 0; j0 < cols; j0 += bx) {
            int sum = 0, n = 0;
            for (int i = i0; i < i0 + by && i < rows; i++)
                for (int j = j0; j < j0 + bx && j < cols; j++) { sum += cur[(size_t)i * cols + j]; n++; }
            int level = (sum * 10) / (3 * n + 1);
            if (level > 9) level = 9;
            putchar(shade[level]);
        }
        putchar('\n');
    }
    free(cur); free(next);
    return 0;
}
