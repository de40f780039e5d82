/*
 * tsp2opt.c - heuristic travelling-salesman tours for TSPLIB EUC_2D files.
 *
 *   1. nearest-neighbour construction from several start cities,
 *   2. best-improvement 2-opt (examine every edge pair, apply the best),
 *   3. best-improvement Or-opt (move a segment of 1-3 cities elsewhere,
 *      possibly reversed), alternating with 2-opt until neither improves.
 *
 * Distances follow TSPLIB: nint(euclidean distance), so all tour lengths
 * are integers.
 *
 * Usage: tsp2opt FILE.tsp [nn_starts] [max_rounds]
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

static int n;
static double *cx, *cy;
static int *dist;             /* n x n matrix */

#define D(a, b) dist[(size_t)(a) * n + (b)]

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE.tsp [nn_starts=24] [max_rounds=50]\n", prog);
    exit(2);
}

static int read_tsp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return -1;
    }
    char line[512];
    int dim = 0, in_coords = 0, count = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!in_coords) {
            if (strncmp(p, "DIMENSION", 9) == 0) {
                char *c = strchr(p, ':');
                dim = atoi(c ? c + 1 : p + 9);
                if (dim < 5 || cx) {
                    fprintf(stderr, "error: '%s': bad DIMENSION\n", path);
                    fclose(f);
                    return -1;
                }
                cx = malloc(sizeof(double) * (size_t)dim);
                cy = malloc(sizeof(double) * (size_t)dim);
            } else if (strncmp(p, "EDGE_WEIGHT_TYPE", 16) == 0) {
                if (!strstr(p, "EUC_2D")) {
                    fprintf(stderr, "error: '%s': only EUC_2D is supported\n", path);
                    fclose(f);
                    return -1;
                }
            } else if (strncmp(p, "NODE_COORD_SECTION", 18) == 0) {
                if (dim == 0) {
                    fprintf(stderr, "error: '%s': coordinates before DIMENSION\n", path);
                    fclose(f);
                    return -1;
                }
                in_coords = 1;
            }
        } else {
            if (strncmp(p, "EOF", 3) == 0 || *p == '\0')
                break;
            int id;
            double x, y;
            if (sscanf(p, "%d %lf %lf", &id, &x, &y) != 3 || id < 1 || id > dim) {
                fprintf(stderr, "error: '%s': bad coordinate line\n", path);
                fclose(f);
                return -1;
            }
            cx[id - 1] = x;
            cy[id - 1] = y;
            count++;
        }
    }
    fclose(f);
    if (dim == 0 || !in_coords) {
        fprintf(stderr, "error: '%s': not a TSPLIB file (no DIMENSION or NODE_COORD_SECTION)\n", path);
        return -1;
    }
    if (count != dim) {
        fprintf(stderr, "error: '%s': expected %d coordinates, found %d\n", path, dim, count);
        return -1;
    }
    n = dim;
    return 0;
}

static long tour_length(const int *t)
{
    long len = 0;
    for (int i = 0; i < n; i++)
        len += D(t[i], t[(i + 1) % n]);
    return len;
}

static long nearest_neighbour(int start, int *t, char *used)
{
    memset(used, 0, (size_t)n);
    t[0] = start;
    used[start] = 1;
    long len = 0;
    for (int k = 1; k < n; k++) {
        int cur = t[k - 1], best = -1, bd = INT_MAX;
        for (int c = 0; c < n; c++)
            if (!used[c] && D(cur, c) < bd) {
                bd = D(cur, c);
                best = c;
            }
        t[k] = best;
        used[best] = 1;
        len += bd;
    }
    return len + D(t[n - 1], t[0]);
}

/* One best-improvement 2-opt step.  Returns the gain applied (0 if none). */
static long two_opt_step(int *t, int *bestd, int *bestj)
{
    #pragma omp parallel for
    for (int i = 0; i < n - 2; i++) {
        const int a = t[i], b = t[i + 1];
        const int dab = D(a, b);
        const int jmax = (i == 0) ? n - 2 : n - 1;
        int bd = 0, bj = -1;
        for (int j = i + 2; j <= jmax; j++) {
            const int c = t[j], d = t[(j + 1) % n];
            int delta = D(a, c) + D(b, d) - dab - D(c, d);
            if (delta < bd) {
                bd = delta;
                bj = j;
            }
        }
        bestd[i] = bd;
        bestj[i] = bj;
    }
    int bi = -1, bd = 0;
    for (int i = 0; i < n - 2; i++)
        if (bestd[i] < bd) {
            bd = bestd[i];
            bi = i;
        }
    if (bi < 0)
        return 0;
    /* reverse t[bi+1 .. bj] */
    for (int l = bi + 1, r = bestj[bi]; l < r; l++, r--) {
        int tmp = t[l];
        t[l] = t[r];
        t[r] = tmp;
    }
    return -bd;
}

typedef struct {
    int delta, j, len, rev;
} OrMove;

/* One best-improvement Or-opt step.  Returns the gain applied (0 if none). */
static long or_opt_step(int *t, int *tmp, OrMove *best)
{
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        OrMove m = {0, -1, 0, 0};
        for (int len = 1; len <= 3; len++) {
            const int p = t[(i + n - 1) % n];
            const int s0 = t[i], se = t[(i + len - 1) % n];
            const int q = t[(i + len) % n];
            const int removal = D(p, s0) + D(se, q) - D(p, q);
            if (removal <= 0)
                continue;
            for (int k = 0; k <= n - len - 2; k++) {
                const int j = (i + len + k) % n;
                const int a = t[j], b = t[(j + 1) % n];
                const int dab = D(a, b);
                int fwd = D(a, s0) + D(se, b) - dab - removal;
                int bwd = D(a, se) + D(s0, b) - dab - removal;
                if (fwd < m.delta) {
                    m = (OrMove){fwd, j, len, 0};
                }
                if (bwd < m.delta) {
                    m = (OrMove){bwd, j, len, 1};
                }
            }
        }
        best[i] = m;
    }
    int bi = -1, bd = 0;
    for (int i = 0; i < n; i++)
        if (best[i].delta < bd) {
            bd = best[i].delta;
            bi = i;
        }
    if (bi < 0)
        return 0;
    /* rebuild: q ... a, segment, b ... p */
    const OrMove m = best[bi];
    int w = 0;
    int pos = (bi + m.len) % n;
    for (;;) {
        tmp[w++] = t[pos];
        if (pos == m.j)
            break;
        pos = (pos + 1) % n;
    }
    for (int s = 0; s < m.len; s++) {
        int off = m.rev ? m.len - 1 - s : s;
        tmp[w++] = t[(bi + off) % n];
    }
    pos = (m.j + 1) % n;
    while (pos != bi) {
        tmp[w++] = t[pos];
        pos = (pos + 1) % n;
    }
    memcpy(t, tmp, sizeof(int) * (size_t)n);
    return -bd;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4)
        usage(argv[0]);
    int starts = 24, max_rounds = 50;
    char *end;
    if (argc > 2) {
        starts = (int)strtol(argv[2], &end, 10);
        if (*end || starts < 1)
            usage(argv[0]);
    }
    if (argc > 3) {
        max_rounds = (int)strtol(argv[3], &end, 10);
        if (*end || max_rounds < 1)
            usage(argv[0]);
    }
    if (read_tsp(argv[1]) != 0)
        return 1;
    if (starts > n)
        starts = n;

    dist = malloc(sizeof(int) * (size_t)n * n);
    #pragma omp parallel for collapse(2)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double dx = cx[i] - cx[j], dy = cy[i] - cy[j];
            D(i, j) = (int)(sqrt(dx * dx + dy * dy) + 0.5);
        }

    /* nearest-neighbour tours from evenly spaced start cities */
    long *nnlen = malloc(sizeof(long) * (size_t)starts);
    #pragma omp parallel
    {
        int *t = malloc(sizeof(int) * (size_t)n);
        char *used = malloc((size_t)n);
        #pragma omp for
        for (int s = 0; s < starts; s++)
            nnlen[s] = nearest_neighbour((int)((long)s * n / starts), t, used);
        free(used);
        free(t);
    }
    int bs = 0;
    long worst = nnlen[0];
    for (int s = 1; s < starts; s++) {
        if (nnlen[s] < nnlen[bs])
            bs = s;
        if (nnlen[s] > worst)
            worst = nnlen[s];
    }
    int *tour = malloc(sizeof(int) * (size_t)n);
    int *tmp = malloc(sizeof(int) * (size_t)n);
    char *used = malloc((size_t)n);
    long len = nearest_neighbour((int)((long)bs * n / starts), tour, used);
    printf("cities: %d\n", n);
    printf("nearest neighbour: best %ld (start city %d), worst %ld over %d starts\n",
           len, (int)((long)bs * n / starts) + 1, worst, starts);

    int *bestd = malloc(sizeof(int) * (size_t)n);
    int *bestj = malloc(sizeof(int) * (size_t)n);
    OrMove *orbest = malloc(sizeof(OrMove) * (size_t)n);
    long moves2 = 0, moves_or = 0;
    int round;
    double t0 = omp_get_wtime();
    for (round = 1; round <= max_rounds; round++) {
        long g;
        long before = len;
        while ((g = two_opt_step(tour, bestd, bestj)) > 0) {
            len -= g;
            moves2++;
        }
        if (round == 1)
            printf("after first 2-opt descent: %ld (%ld moves)\n", len, moves2);
        long mo = 0;
        while ((g = or_opt_step(tour, tmp, orbest)) > 0) {
            len -= g;
            mo++;
        }
        moves_or += mo;
        if (len == before || mo == 0)
            break;
    }
    double t1 = omp_get_wtime();
    if (round > max_rounds)
        round = max_rounds;

    long check = tour_length(tour);
    memset(used, 0, (size_t)n);
    int perm_ok = 1;
    for (int i = 0; i < n; i++) {
        if (used[tour[i]])
            perm_ok = 0;
        used[tour[i]] = 1;
    }
    printf("local search: %d rounds, %ld 2-opt moves, %ld or-opt moves\n", round, moves2, moves_or);
    printf("final tour length: %ld (recomputed %ld, %s)\n", len, check,
           (perm_ok && check == len) ? "valid" : "INVALID");
    int at = 0;
    while (tour[at] != 0)
        at++;
    printf("tour from city 1:");
    for (int k = 0; k < 12; k++)
        printf(" %d", tour[(at + k) % n] + 1);
    printf(" ...\n");
    fprintf(stderr, "local search time: %.3f s\n", t1 - t0);

    free(orbest);
    free(bestj);
    free(bestd);
    free(used);
    free(tmp);
    free(tour);
    free(nnlen);
    free(dist);
    free(cx);
    free(cy);
    return perm_ok && check == len ? 0 : 1;
}
