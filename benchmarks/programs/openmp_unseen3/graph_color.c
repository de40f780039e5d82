/*
 * graph_color.c - greedy colouring of an undirected graph by Jones-Plassmann.
 *
 * The graph is read as an edge list: a first line "N M" followed by M lines
 * "u v" with 0 <= u,v < N ('#' lines are comments).  Each trial gives every
 * vertex a fixed pseudo-random priority; in every round the uncoloured
 * vertices whose priority beats all uncoloured neighbours take the smallest
 * colour not used by their neighbours.  The best of several trials is kept
 * and checked.
 *
 * usage: graph_color EDGE_FILE [TRIALS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256 /* work-list entries per task */

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s EDGE_FILE [TRIALS]\n", prog);
    exit(2);
}

static uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z;
}

static void bad_file(const char *path, const char *what)
{
    fprintf(stderr, "graph_color: %s: %s\n", path, what);
    exit(1);
}

static int next_line(FILE *f, char *buf, size_t n)
{
    while (fgets(buf, (int)n, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        return 1;
    }
    return 0;
}

/* priority comparison: higher priority wins, ties broken by vertex id */
static inline int beats(uint64_t pu, int u, uint64_t pv, int v)
{
    return pu > pv || (pu == pv && u > v);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3)
        usage(argv[0]);
    long trials = 1;
    if (argc == 3) {
        char *end;
        trials = strtol(argv[2], &end, 10);
        if (*end || trials <= 0 || trials > 100000)
            usage(argv[0]);
    }

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "graph_color: cannot open '%s'\n", argv[1]);
        return 1;
    }
    char line[256];
    long n = 0, m = 0;
    if (!next_line(f, line, sizeof line) || sscanf(line, "%ld %ld", &n, &m) != 2 ||
        n <= 0 || m < 0 || n > 100000000 || m > 1000000000)
        bad_file(argv[1], "bad header, expected 'N M'");
    int *eu = malloc((size_t)m * sizeof(int));
    int *ev = malloc((size_t)m * sizeof(int));
    int *deg = calloc((size_t)n + 1, sizeof(int));
    if (!eu || !ev || !deg)
        bad_file(argv[1], "out of memory");
    long ne = 0;
    for (long e = 0; e < m; e++) {
        long u, v;
        if (!next_line(f, line, sizeof line))
            bad_file(argv[1], "fewer edges than announced");
        if (sscanf(line, "%ld %ld", &u, &v) != 2 || u < 0 || v < 0 || u >= n || v >= n)
            bad_file(argv[1], "malformed edge line");
        if (u == v)
            continue; /* self loops do not constrain a colouring */
        eu[ne] = (int)u;
        ev[ne] = (int)v;
        deg[u]++;
        deg[v]++;
        ne++;
    }
    fclose(f);

    /* compressed adjacency */
    long *off = malloc(((size_t)n + 1) * sizeof(long));
    int *adj = malloc((size_t)(2 * ne + 1) * sizeof(int));
    long *pos = malloc((size_t)n * sizeof(long));
    off[0] = 0;
    int maxdeg = 0;
    for (long v = 0; v < n; v++) {
        off[v + 1] = off[v] + deg[v];
        if (deg[v] > maxdeg)
            maxdeg = deg[v];
    }
    memcpy(pos, off, (size_t)n * sizeof(long));
    for (long e = 0; e < ne; e++) {
        adj[pos[eu[e]]++] = ev[e];
        adj[pos[ev[e]]++] = eu[e];
    }
    free(eu);
    free(ev);
    free(pos);

    uint64_t *prio = malloc((size_t)n * sizeof(uint64_t));
    int *color = malloc((size_t)n * sizeof(int));
    int *best = malloc((size_t)n * sizeof(int));
    int *work = malloc((size_t)n * sizeof(int));
    unsigned char *ready = malloc((size_t)n);
    int best_colors = -1, best_rounds = 0;
    long best_trial = -1, sum_colors = 0, sum_rounds = 0;

    for (long t = 0; t < trials; t++) {
        uint64_t key = mix64(0x5eed0000ULL + (uint64_t)t);
#pragma omp parallel for
        for (long v = 0; v < n; v++) {
            prio[v] = mix64(key ^ (uint64_t)(v * 0x9E3779B97F4A7C15ULL));
            color[v] = -1;
            work[v] = (int)v;
        }
        long nwork = n;
        int rounds = 0, ncol = 0;
        while (nwork > 0) {
            long nblocks = (nwork + BLOCK - 1) / BLOCK;
#pragma omp parallel
            {
                /* per-thread scratch: colours seen around one vertex */
                int *seen = malloc(((size_t)maxdeg + 2) * sizeof(int));
                int stamp = 0;
                for (int c = 0; c < maxdeg + 2; c++)
                    seen[c] = -1;

#pragma omp for
                for (long b = 0; b < nblocks; b++) {
                  long iend = (b + 1) * BLOCK < nwork ? (b + 1) * BLOCK : nwork;
                  for (long i = b * BLOCK; i < iend; i++) {
                    int v = work[i];
                    int ok = 1;
                    for (long k = off[v]; k < off[v + 1]; k++) {
                        int u = adj[k];
                        if (color[u] < 0 && beats(prio[u], u, prio[v], v)) {
                            ok = 0;
                            break;
                        }
                    }
                    ready[i] = (unsigned char)ok;
                  }
                }

#pragma omp for reduction(max:ncol)
                for (long b = 0; b < nblocks; b++) {
                  long iend = (b + 1) * BLOCK < nwork ? (b + 1) * BLOCK : nwork;
                  for (long i = b * BLOCK; i < iend; i++) {
                    if (!ready[i])
                        continue;
                    int v = work[i];
                    stamp++;
                    for (long k = off[v]; k < off[v + 1]; k++) {
                        int c = color[adj[k]];
                        if (c >= 0 && c <= maxdeg)
                            seen[c] = stamp;
                    }
                    int c = 0;
                    while (seen[c] == stamp)
                        c++;
                    color[v] = c;
                    if (c + 1 > ncol)
                        ncol = c + 1;
                  }
                }
                free(seen);
            }
            long keep = 0;
            for (long i = 0; i < nwork; i++)
                if (!ready[i])
                    work[keep++] = work[i];
            nwork = keep;
            rounds++;
        }

        sum_colors += ncol;
        sum_rounds += rounds;
        if (best_colors < 0 || ncol < best_colors ||
            (ncol == best_colors && rounds < best_rounds)) {
            best_colors = ncol;
            best_rounds = rounds;
            best_trial = t;
            memcpy(best, color, (size_t)n * sizeof(int));
        }
    }

    /* validity check of the kept colouring */
    long conflicts = 0, uncolored = 0;
#pragma omp parallel for reduction(+:conflicts, uncolored)
    for (long v = 0; v < n; v++) {
        if (best[v] < 0 || best[v] >= best_colors) {
            uncolored++;
            continue;
        }
        for (long k = off[v]; k < off[v + 1]; k++)
            if (best[adj[k]] == best[v])
                conflicts++;
    }

    long *classes = calloc((size_t)best_colors + 1, sizeof(long));
    for (long v = 0; v < n; v++)
        if (best[v] >= 0 && best[v] < best_colors)
            classes[best[v]]++;

    printf("graph: %ld vertices, %ld edges, max degree %d\n", n, ne, maxdeg);
    printf("trials: %ld, mean colours %.3f, mean rounds %.3f\n", trials,
           (double)sum_colors / (double)trials, (double)sum_rounds / (double)trials);
    printf("best trial %ld: %d colours in %d rounds\n", best_trial, best_colors, best_rounds);
    printf("check: %s (%ld conflicting edge ends, %ld uncoloured)\n",
           conflicts == 0 && uncolored == 0 ? "valid" : "INVALID", conflicts, uncolored);
    printf("colour class sizes:");
    for (int c = 0; c < best_colors; c++)
        printf(" %ld", classes[c]);
    printf("\n");

    free(classes);
    free(prio); free(color); free(best); free(work); free(ready);
    free(off); free(adj); free(deg);
    return conflicts == 0 && uncolored == 0 ? 0 : 3;
}
