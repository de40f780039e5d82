/*
 * schelling_grid: Schelling's segregation model on an N x N torus.
 *
 * Input file (text): a first line "ROWS COLS", then ROWS lines of COLS
 * characters: 'A' or 'B' for an agent of either group, '.' for an empty
 * cell.  The simulation uses the top-left N x N part of that grid, wrapped
 * around as a torus.
 *
 * Each round: for every agent the share of like agents among its occupied
 * neighbours (Moore neighbourhood, 8 cells) is computed and agents whose
 * share is below the tolerance T are marked unhappy (parallel loop over
 * rows); then, in row-major order, every unhappy agent moves to an empty
 * cell chosen by a seeded random generator (serial).  An agent with no
 * neighbours is happy and counted with share 1.
 *
 * Shares are kept as exact fractions of 840 (= lcm(1..8)), so the mean is
 * an integer sum and does not depend on the thread count.
 *
 * usage: schelling_grid GRID.txt N TOLERANCE ROUNDS SEED
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

#define EMPTY 0
#define GROUP_A 1
#define GROUP_B 2
#define SHARE_DEN 840

_Noreturn static void usage(void)
{
    fprintf(stderr, "usage: schelling_grid GRID.txt N TOLERANCE ROUNDS SEED\n"
                    "  N: grid side (>= 3, at most the size of the file's grid)\n"
                    "  TOLERANCE: minimum share of like neighbours, 0..1\n"
                    "  ROUNDS: 1..100000, SEED: non-negative integer\n");
    exit(2);
}

_Noreturn static void fail(const char *path, long line, const char *what)
{
    if (line > 0)
        fprintf(stderr, "schelling_grid: %s:%ld: %s\n", path, line, what);
    else
        fprintf(stderr, "schelling_grid: %s: %s\n", path, what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "schelling_grid: out of memory\n");
        exit(1);
    }
    return p;
}

static uint64_t rng_state;

static uint64_t rng_next(void)   /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static long parse_long(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) usage();
    return v;
}

/* read the top-left n x n window of the grid file */
static unsigned char *load_grid(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f) fail(path, 0, strerror(errno));
    long rows, cols;
    char buf[64];
    if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%ld %ld", &rows, &cols) != 2 ||
        rows < 1 || cols < 1 || rows > 100000 || cols > 100000)
        fail(path, 1, "expected a header line \"ROWS COLS\"");
    if (n > rows || n > cols) {
        fprintf(stderr, "schelling_grid: %s: grid is %ld x %ld, smaller than N = %d\n",
                path, rows, cols, n);
        exit(1);
    }
    unsigned char *g = xmalloc((size_t)n * n);
    char *line = xmalloc((size_t)cols + 3);
    for (long r = 0; r < rows; r++) {
        if (!fgets(line, (int)cols + 3, f)) fail(path, r + 2, "missing grid row");
        size_t len = strlen(line);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if ((long)len != cols) fail(path, r + 2, "grid row has the wrong length");
        for (long c = 0; c < cols; c++) {
            unsigned char v;
            switch (line[c]) {
            case '.': v = EMPTY; break;
            case 'A': v = GROUP_A; break;
            case 'B': v = GROUP_B; break;
            default: fail(path, r + 2, "unexpected character in grid");
            }
            if (r < n && c < n) g[(size_t)r * n + c] = v;
        }
    }
    free(line);
    fclose(f);
    return g;
}

typedef struct {
    long agents, unhappy;
    int64_t share_sum;   /* in units of 1/840 */
} stats_t;

/* compute like-neighbour shares, mark unhappy agents */
static stats_t evaluate(const unsigned char *g, unsigned char *unhappy, int n, double tol)
{
    long agents = 0, nunhappy = 0;
    int64_t share_sum = 0;

    #pragma omp parallel for reduction(+:agents, nunhappy, share_sum)
    for (int i = 0; i < n; i++) {
        const unsigned char *up = g + (size_t)((i + n - 1) % n) * n;
        const unsigned char *row = g + (size_t)i * n;
        const unsigned char *dn = g + (size_t)((i + 1) % n) * n;
        unsigned char *mark = unhappy + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            unsigned char me = row[j];
            if (me == EMPTY) { mark[j] = 0; continue; }
            int jl = j == 0 ? n - 1 : j - 1, jr = j == n - 1 ? 0 : j + 1;
            unsigned char nb[8] = { up[jl], up[j], up[jr], row[jl], row[jr],
                                    dn[jl], dn[j], dn[jr] };
            int occ = 0, like = 0;
            for (int k = 0; k < 8; k++) {
                occ += nb[k] != EMPTY;
                like += nb[k] == me;
            }
            agents++;
            if (occ == 0) {
                share_sum += SHARE_DEN;
                mark[j] = 0;
            } else {
                share_sum += like * (SHARE_DEN / occ);
                int sad = (double)like < tol * occ;
                mark[j] = (unsigned char)sad;
                nunhappy += sad;
            }
        }
    }
    stats_t s = { agents, nunhappy, share_sum };
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 6) usage();
    int n = (int)parse_long(argv[2], 3, 100000);
    char *end;
    errno = 0;
    double tol = strtod(argv[3], &end);
    if (errno || *end || end == argv[3] || !(tol >= 0.0 && tol <= 1.0)) usage();
    int rounds = (int)parse_long(argv[4], 1, 100000);
    long seed = parse_long(argv[5], 0, 0x7fffffffL);

    unsigned char *g = load_grid(argv[1], n);
    const size_t cells = (size_t)n * n;
    unsigned char *unhappy = xmalloc(cells);

    /* list of empty cells; a moving agent takes one and leaves its own */
    size_t n_empty = 0;
    for (size_t c = 0; c < cells; c++) n_empty += g[c] == EMPTY;
    if (n_empty == 0) {
        fprintf(stderr, "schelling_grid: %s: no empty cell in the %d x %d window\n", argv[1], n, n);
        return 1;
    }
    size_t *empties = xmalloc(n_empty * sizeof(size_t));
    for (size_t c = 0, k = 0; c < cells; c++)
        if (g[c] == EMPTY) empties[k++] = c;
    rng_state = (uint64_t)seed * 0x2545F4914F6CDD1Dull + 12345;

    long counts[3] = {0};
    for (size_t c = 0; c < cells; c++) counts[g[c]]++;
    printf("grid %d x %d (torus): %ld A, %ld B, %ld empty; tolerance %.3f, %d rounds, seed %ld\n",
           n, n, counts[GROUP_A], counts[GROUP_B], counts[EMPTY], tol, rounds, seed);
    printf("%7s %10s %12s %10s\n", "round", "unhappy", "like share", "moves");

    long total_moves = 0, moves_since = 0;
    int settled_round = -1;
    for (int r = 0; r <= rounds; r++) {
        stats_t s = evaluate(g, unhappy, n, tol);
        if (r % 10 == 0 || r == rounds || s.unhappy == 0) {
            printf("%7d %10ld %12.5f %10ld\n", r, s.unhappy,
                   (double)s.share_sum / ((double)SHARE_DEN * (double)s.agents), moves_since);
            moves_since = 0;
        }
        if (s.unhappy == 0) { settled_round = r; break; }
        if (r == rounds) break;

        /* move unhappy agents, in row-major order */
        for (size_t c = 0; c < cells; c++) {
            if (!unhappy[c]) continue;
            size_t k = (size_t)(rng_next() % n_empty);
            size_t dest = empties[k];
            g[dest] = g[c];
            g[c] = EMPTY;
            empties[k] = c;
        }
        total_moves += s.unhappy;
        moves_since += s.unhappy;
    }
    if (settled_round >= 0)
        printf("everybody is happy after %d rounds\n", settled_round);
    printf("total moves: %ld\n", total_moves);

    free(empties);
    free(unhappy);
    free(g);
    return 0;
}
