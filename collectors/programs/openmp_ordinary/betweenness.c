/*
 * betweenness.c - approximate betweenness centrality (Brandes' algorithm).
 *
 * Reads an undirected, unweighted graph from an edge list file
 * ('#' starts a comment, otherwise one "u v" pair of non-negative vertex
 * ids per line), samples a number of source vertices with a given seed and
 * runs one BFS + dependency accumulation per source.  Sources are processed
 * in parallel; every thread keeps its own work arrays and its own
 * centrality accumulator, which are merged at the end.
 *
 * Dependencies are accumulated in 64-bit fixed point so the result does not
 * depend on how sources are distributed over threads.
 *
 * Usage: betweenness edges.txt num_sources seed
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX_SCALE 16777216.0 /* 2^24: fixed-point scale for dependencies */

typedef struct {
    int n;
    long m;          /* undirected edges after removing loops/duplicates */
    long *start;     /* CSR, size n+1 */
    int *adj;
} Graph;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s edges.txt num_sources seed\n"
            "  edges.txt    undirected edge list, one 'u v' per line, "
            "'#' comments\n"
            "  num_sources  number of sampled BFS sources (>= 1)\n"
            "  seed         random seed for the source sample\n", prog);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int read_edges(const char *path, Graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    long cap = 1 << 16, cnt = 0, lineno = 0;
    int *eu = xmalloc((size_t)cap * sizeof(int));
    int *ev = xmalloc((size_t)cap * sizeof(int));
    int maxid = -1;
    char line[256];

    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        long u, v;
        if (sscanf(p, "%ld %ld", &u, &v) != 2 || u < 0 || v < 0 ||
            u > 100000000 || v > 100000000) {
            fprintf(stderr, "error: %s:%ld: expected two vertex ids\n",
                    path, lineno);
            fclose(f);
            free(eu);
            free(ev);
            return -1;
        }
        if (u == v)
            continue;
        if (cnt == cap) {
            cap *= 2;
            eu = realloc(eu, (size_t)cap * sizeof(int));
            ev = realloc(ev, (size_t)cap * sizeof(int));
            if (!eu || !ev) {
                fprintf(stderr, "error: out of memory\n");
                exit(1);
            }
        }
        eu[cnt] = (int)u;
        ev[cnt] = (int)v;
        cnt++;
        if (u > maxid)
            maxid = (int)u;
        if (v > maxid)
            maxid = (int)v;
    }
    fclose(f);
    if (cnt == 0) {
        fprintf(stderr, "error: %s: no edges found\n", path);
        free(eu);
        free(ev);
        return -1;
    }

    int n = maxid + 1;
    long *start = xmalloc(((size_t)n + 1) * sizeof(long));
    memset(start, 0, ((size_t)n + 1) * sizeof(long));
    for (long e = 0; e < cnt; e++) {
        start[eu[e] + 1]++;
        start[ev[e] + 1]++;
    }
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    int *adj = xmalloc((size_t)start[n] * sizeof(int));
    long *fill = xmalloc((size_t)n * sizeof(long));
    memcpy(fill, start, (size_t)n * sizeof(long));
    for (long e = 0; e < cnt; e++) {
        adj[fill[eu[e]]++] = ev[e];
        adj[fill[ev[e]]++] = eu[e];
    }
    free(eu);
    free(ev);

    /* sort each adjacency list and drop duplicate edges (compacting) */
    long out = 0;
    for (int v = 0; v < n; v++) {
        long b = start[v], e = fill[v];
        qsort(adj + b, (size_t)(e - b), sizeof(int), cmp_int);
        start[v] = out;
        for (long p = b; p < e; p++)
            if (p == b || adj[p] != adj[p - 1])
                adj[out++] = adj[p];
    }
    start[n] = out;
    free(fill);

    g->n = n;
    g->m = out / 2;
    g->start = start;
    g->adj = adj;
    return 0;
}

/* xorshift64* generator for the source sample */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ULL;
}

/* label connected components; returns their number */
static int components(const Graph *g, int *comp, int *queue)
{
    int nc = 0;
    for (int v = 0; v < g->n; v++)
        comp[v] = -1;
    for (int s = 0; s < g->n; s++) {
        if (comp[s] >= 0)
            continue;
        int head = 0, tail = 0;
        queue[tail++] = s;
        comp[s] = nc;
        while (head < tail) {
            int v = queue[head++];
            for (long p = g->start[v]; p < g->start[v + 1]; p++) {
                int w = g->adj[p];
                if (comp[w] < 0) {
                    comp[w] = nc;
                    queue[tail++] = w;
                }
            }
        }
        nc++;
    }
    return nc;
}

/*
 * Brandes single-source step: BFS from s, then accumulate dependencies in
 * reverse BFS order.  Adds the fixed-point dependency of every vertex to acc.
 * Work arrays must be "clean" on entry (dist = -1, sigma = delta = 0) and are
 * left clean on return; only the vertices reached from s are touched.
 * Returns the number of vertices reached.
 */
static int brandes_source(const Graph *g, int s, int *dist, double *sigma,
                          double *delta, int *order, int64_t *acc)
{
    const long *start = g->start;
    const int *adj = g->adj;
    int head = 0, tail = 0;

    order[tail++] = s;
    dist[s] = 0;
    sigma[s] = 1.0;
    while (head < tail) {
        int v = order[head++];
        int dv = dist[v] + 1;
        for (long p = start[v]; p < start[v + 1]; p++) {
            int w = adj[p];
            if (dist[w] < 0) {
                dist[w] = dv;
                order[tail++] = w;
            }
            if (dist[w] == dv)
                sigma[w] += sigma[v];
        }
    }

    for (int i = tail - 1; i > 0; i--) {
        int w = order[i];
        int dw = dist[w] - 1;
        double coeff = (1.0 + delta[w]) / sigma[w];
        for (long p = start[w]; p < start[w + 1]; p++) {
            int v = adj[p];
            if (dist[v] == dw)
                delta[v] += sigma[v] * coeff;
        }
        acc[w] += llround(delta[w] * FIX_SCALE);
    }

    for (int i = 0; i < tail; i++) {
        int v = order[i];
        dist[v] = -1;
        sigma[v] = 0.0;
        delta[v] = 0.0;
    }
    return tail;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    long k = strtol(argv[2], &end, 10);
    if (errno || *end != '\0' || end == argv[2] || k < 1) {
        fprintf(stderr, "error: num_sources must be a positive integer\n");
        usage(argv[0]);
        return 2;
    }
    errno = 0;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    if (errno || *end != '\0' || end == argv[3]) {
        fprintf(stderr, "error: seed must be a non-negative integer\n");
        usage(argv[0]);
        return 2;
    }

    Graph g;
    if (read_edges(argv[1], &g) != 0)
        return 1;
    int n = g.n;
    if (k > n) {
        fprintf(stderr, "error: num_sources (%ld) exceeds vertex count (%d)\n",
                k, n);
        return 2;
    }

    /* sample k distinct sources (partial Fisher-Yates) */
    int *perm = xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++)
        perm[i] = i;
    uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 0x2545F4914F6CDD1DULL;
    if (state == 0)
        state = 1;
    for (long i = 0; i < k; i++) {
        long j = i + (long)(rng_next(&state) % (uint64_t)(n - i));
        int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int *sources = perm; /* first k entries */

    /* component statistics */
    int *comp = xmalloc((size_t)n * sizeof(int));
    int *queue = xmalloc((size_t)n * sizeof(int));
    int ncomp = components(&g, comp, queue);
    int *csize = xmalloc((size_t)ncomp * sizeof(int));
    memset(csize, 0, (size_t)ncomp * sizeof(int));
    for (int v = 0; v < n; v++)
        csize[comp[v]]++;
    int big = 0;
    for (int c = 1; c < ncomp; c++)
        if (csize[c] > csize[big])
            big = c;
    long in_big = 0;
    for (long i = 0; i < k; i++)
        if (comp[sources[i]] == big)
            in_big++;
    free(queue);

    printf("graph: %d vertices, %ld edges, %d components (largest %d)\n",
           n, g.m, ncomp, csize[big]);
    printf("sources: %ld sampled with seed %llu, %ld in the largest component\n",
           k, seed, in_big);

    int nthreads = omp_get_max_threads();
    int64_t **acc = xmalloc((size_t)nthreads * sizeof(int64_t *));
    for (int t = 0; t < nthreads; t++)
        acc[t] = NULL;
    long total_reached = 0;

    #pragma omp parallel reduction(+:total_reached)
    {
        int tid = omp_get_thread_num();
        int *dist = xmalloc((size_t)n * sizeof(int));
        double *sigma = xmalloc((size_t)n * sizeof(double));
        double *delta = xmalloc((size_t)n * sizeof(double));
        int *order = xmalloc((size_t)n * sizeof(int));
        int64_t *mine = xmalloc((size_t)n * sizeof(int64_t));
        for (int v = 0; v < n; v++) {
            dist[v] = -1;
            sigma[v] = 0.0;
            delta[v] = 0.0;
            mine[v] = 0;
        }
        acc[tid] = mine;

        #pragma omp for
        for (long i = 0; i < k; i++)
            total_reached += brandes_source(&g, sources[i], dist, sigma, delta,
                                            order, mine);

        free(dist);
        free(sigma);
        free(delta);
        free(order);
    }

    /* merge the per-thread accumulators in thread order */
    int64_t *bc = xmalloc((size_t)n * sizeof(int64_t));
    #pragma omp parallel for
    for (int v = 0; v < n; v++) {
        int64_t s = 0;
        for (int t = 0; t < nthreads; t++)
            if (acc[t])
                s += acc[t][v];
        bc[v] = s;
    }

    /* top-10 by centrality, ties broken by smaller vertex id */
    int top[10];
    int ntop = 0;
    for (int v = 0; v < n; v++) {
        int pos = ntop;
        while (pos > 0 && bc[v] > bc[top[pos - 1]])
            pos--;
        if (pos >= 10)
            continue;
        if (ntop < 10)
            ntop++;
        for (int j = ntop - 1; j > pos; j--)
            top[j] = top[j - 1];
        top[pos] = v;
    }

    /* undirected graph: each pair is counted from both ends, hence / 2;
       the estimate scales the sampled sum up to all n sources */
    double scale = (double)n / (double)k;
    double norm = (n > 2) ? 2.0 / ((double)(n - 1) * (double)(n - 2)) : 1.0;
    printf("mean BFS reach per source: %.1f vertices\n",
           (double)total_reached / (double)k);
    printf("%4s %8s %8s %14s %14s\n", "rank", "vertex", "degree",
           "sampled bc", "normalized");
    for (int i = 0; i < ntop; i++) {
        int v = top[i];
        double raw = (double)bc[v] / FIX_SCALE / 2.0;
        printf("%4d %8d %8ld %14.6g %14.6g\n", i + 1, v,
               g.start[v + 1] - g.start[v], raw, raw * scale * norm);
    }

    for (int t = 0; t < nthreads; t++)
        free(acc[t]);
    free(acc);
    free(bc);
    free(comp);
    free(csize);
    free(perm);
    free(g.start);
    free(g.adj);
    return 0;
}
