/*
 * kcore.c - k-core decomposition by parallel peeling, with clustering.
 *
 * Reads an undirected graph from an edge list ('#' comments, one "u v" pair
 * of non-negative vertex ids per line) and computes the core number of every
 * vertex.  Peeling proceeds in rounds: at level k, every remaining vertex
 * whose remaining degree is at most k is removed (core number k) and the
 * degrees of its neighbours are decremented atomically.  When a round
 * removes nothing, k moves up to the smallest remaining degree.  Each round
 * is one short parallel region: a scan that collects the round's victims
 * and a loop over the victims.
 *
 * Afterwards the local clustering coefficient of every vertex is computed
 * (for each pair of neighbours, is there an edge between them?) and the
 * innermost cores are reported with their size, edge count and average
 * clustering.
 *
 * Usage: kcore edges.txt [top_cores]
 */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIVE (-1)

typedef struct {
    int n;
    long m;
    long *start;
    int *adj;
} Graph;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s edges.txt [top_cores]\n"
            "  edges.txt  undirected edge list, one 'u v' per line, '#' comments\n"
            "  top_cores  how many of the innermost cores to list (default 5)\n",
            prog);
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

static int load_graph(const char *path, Graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    long cap = 1 << 16, cnt = 0, lineno = 0;
    int *ends = xmalloc((size_t)cap * 2 * sizeof(int));
    int maxid = -1;
    char line[256];

    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\r')
            continue;
        long u, v;
        if (sscanf(line, "%ld %ld", &u, &v) != 2 || u < 0 || v < 0 ||
            u >= 1L << 30 || v >= 1L << 30) {
            fprintf(stderr, "error: %s:%ld: malformed edge line\n", path, lineno);
            free(ends);
            fclose(f);
            return -1;
        }
        if (u == v)
            continue; /* self loops do not count towards core numbers */
        if (cnt == cap) {
            cap *= 2;
            int *tmp = realloc(ends, (size_t)cap * 2 * sizeof(int));
            if (!tmp) {
                fprintf(stderr, "error: out of memory\n");
                exit(1);
            }
            ends = tmp;
        }
        ends[2 * cnt] = (int)u;
        ends[2 * cnt + 1] = (int)v;
        if (u > maxid)
            maxid = (int)u;
        if (v > maxid)
            maxid = (int)v;
        cnt++;
    }
    fclose(f);
    if (cnt == 0) {
        fprintf(stderr, "error: %s: no edges\n", path);
        free(ends);
        return -1;
    }

    int n = maxid + 1;
    long *start = xmalloc(((size_t)n + 1) * sizeof(long));
    memset(start, 0, ((size_t)n + 1) * sizeof(long));
    for (long e = 0; e < 2 * cnt; e++)
        start[ends[e] + 1]++;
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    int *adj = xmalloc((size_t)start[n] * sizeof(int));
    long *pos = xmalloc((size_t)n * sizeof(long));
    memcpy(pos, start, (size_t)n * sizeof(long));
    for (long e = 0; e < cnt; e++) {
        int u = ends[2 * e], v = ends[2 * e + 1];
        adj[pos[u]++] = v;
        adj[pos[v]++] = u;
    }
    free(ends);

    /* remove parallel edges: sort every list, keep unique neighbours */
    long w = 0;
    for (int v = 0; v < n; v++) {
        long b = start[v], e = pos[v];
        qsort(adj + b, (size_t)(e - b), sizeof(int), cmp_int);
        start[v] = w;
        for (long p = b; p < e; p++)
            if (p == b || adj[p] != adj[p - 1])
                adj[w++] = adj[p];
    }
    start[n] = w;
    free(pos);

    g->n = n;
    g->m = w / 2;
    g->start = start;
    g->adj = adj;
    return 0;
}

/* is there an edge u-w?  binary search in the shorter adjacency list */
static int has_edge(const Graph *g, int u, int w)
{
    if (g->start[u + 1] - g->start[u] > g->start[w + 1] - g->start[w]) {
        int t = u;
        u = w;
        w = t;
    }
    long lo = g->start[u], hi = g->start[u + 1];
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        int x = g->adj[mid];
        if (x == w)
            return 1;
        if (x < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        usage(argv[0]);
        return 2;
    }
    int show = 5;
    if (argc == 3) {
        char *end;
        errno = 0;
        long t = strtol(argv[2], &end, 10);
        if (errno || *end != '\0' || end == argv[2] || t < 1 || t > 1000) {
            fprintf(stderr, "error: top_cores must be an integer in 1..1000\n");
            usage(argv[0]);
            return 2;
        }
        show = (int)t;
    }

    Graph g;
    if (load_graph(argv[1], &g) != 0)
        return 1;
    const int n = g.n;
    const long *start = g.start;
    const int *adj = g.adj;

    int *deg = xmalloc((size_t)n * sizeof(int));
    int *core = xmalloc((size_t)n * sizeof(int));
    int *gone = xmalloc((size_t)n * sizeof(int));  /* round removed, or ALIVE */
    int *victims = xmalloc((size_t)n * sizeof(int));
    int maxdeg = 0;

    #pragma omp parallel for reduction(max:maxdeg)
    for (int v = 0; v < n; v++) {
        deg[v] = (int)(start[v + 1] - start[v]);
        core[v] = 0;
        gone[v] = ALIVE;
        if (deg[v] > maxdeg)
            maxdeg = deg[v];
    }

    /* ---- peeling ---- */
    long remaining = n;
    int rounds = 0;
    long levels = 0, level_rounds = 0, worst_level_rounds = 0;
    int k = 0, worst_level = 0;

    while (remaining > 0) {
        int count = 0;
        const int round = rounds;

        #pragma omp parallel
        {
            /* collect the vertices peeled in this round */
            #pragma omp for
            for (int v = 0; v < n; v++) {
                if (gone[v] == ALIVE && deg[v] <= k) {
                    int slot;
                    gone[v] = round;
                    #pragma omp atomic capture
                    slot = count++;
                    victims[slot] = v;
                }
            }

            /* assign their core number, update surviving neighbours */
            #pragma omp for
            for (int i = 0; i < count; i++) {
                int v = victims[i];
                core[v] = k;
                for (long p = start[v]; p < start[v + 1]; p++) {
                    int u = adj[p];
                    if (gone[u] == ALIVE) {
                        #pragma omp atomic
                        deg[u]--;
                    }
                }
            }
        }
        rounds++;
        remaining -= count;

        if (count > 0) {
            level_rounds++;
            continue;
        }

        /* level k is exhausted: jump to the smallest remaining degree */
        if (level_rounds > 0) {
            levels++;
            if (level_rounds > worst_level_rounds) {
                worst_level_rounds = level_rounds;
                worst_level = k;
            }
        }
        level_rounds = 0;
        int mindeg = maxdeg + 1;
        #pragma omp parallel for reduction(min:mindeg)
        for (int v = 0; v < n; v++)
            if (gone[v] == ALIVE && deg[v] < mindeg)
                mindeg = deg[v];
        k = mindeg > k ? mindeg : k + 1;
    }
    if (level_rounds > 0) {
        levels++;
        if (level_rounds > worst_level_rounds) {
            worst_level_rounds = level_rounds;
            worst_level = k;
        }
    }

    /* ---- local clustering: closed neighbour pairs of every vertex ---- */
    long *links = xmalloc((size_t)n * sizeof(long));
    long closed = 0;
    #pragma omp parallel for reduction(+:closed)
    for (int v = 0; v < n; v++) {
        long c = 0;
        for (long a = start[v]; a < start[v + 1]; a++)
            for (long b = a + 1; b < start[v + 1]; b++)
                c += has_edge(&g, adj[a], adj[b]);
        links[v] = c;
        closed += c;
    }

    /* ---- per-core summaries (sequential, cheap) ---- */
    int kmax = 0;
    for (int v = 0; v < n; v++)
        if (core[v] > kmax)
            kmax = core[v];
    long *nv = xmalloc(((size_t)kmax + 2) * sizeof(long));
    long *ne = xmalloc(((size_t)kmax + 2) * sizeof(long));
    double *cc = xmalloc(((size_t)kmax + 2) * sizeof(double));
    memset(nv, 0, ((size_t)kmax + 2) * sizeof(long));
    memset(ne, 0, ((size_t)kmax + 2) * sizeof(long));
    memset(cc, 0, ((size_t)kmax + 2) * sizeof(double));
    double cc_all = 0.0;
    for (int v = 0; v < n; v++) {
        long d = start[v + 1] - start[v];
        double c = d > 1 ? (double)links[v] / ((double)d * (d - 1) / 2.0) : 0.0;
        nv[core[v]]++;
        cc[core[v]] += c;
        cc_all += c;
        for (long p = start[v]; p < start[v + 1]; p++) {
            int u = adj[p];
            if (u > v) /* edge belongs to the cores up to min(core) */
                ne[core[u] < core[v] ? core[u] : core[v]]++;
        }
    }
    for (int c = kmax - 1; c >= 0; c--) {
        nv[c] += nv[c + 1];
        ne[c] += ne[c + 1];
        cc[c] += cc[c + 1];
    }

    printf("graph: %d vertices, %ld edges, max degree %d\n", n, g.m, maxdeg);
    printf("triangles: %ld, average clustering coefficient: %.6f\n",
           closed / 3, cc_all / n);
    printf("max core number: %d\n", kmax);
    printf("%8s %10s %10s %12s\n", "k-core", "vertices", "edges", "clustering");
    int listed = 0;
    for (int c = kmax; c >= 0 && listed < show; c--) {
        if (c < kmax && nv[c] == nv[c + 1])
            continue; /* same vertex set as the core above */
        printf("%8d %10ld %10ld %12.6f\n", c, nv[c], ne[c], cc[c] / nv[c]);
        listed++;
    }
    printf("peeling rounds: %d over %ld levels (longest level k=%d with %ld"
           " rounds)\n", rounds, levels, worst_level, worst_level_rounds);

    free(nv);
    free(ne);
    free(cc);
    free(links);
    free(deg);
    free(core);
    free(gone);
    free(victims);
    free(g.start);
    free(g.adj);
    return 0;
}
