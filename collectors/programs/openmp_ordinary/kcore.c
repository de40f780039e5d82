/*
 * kcore.c - k-core decomposition by parallel peeling.
 *
 * Reads an undirected graph from an edge list ('#' comments, one "u v" pair
 * of non-negative vertex ids per line) and computes the core number of every
 * vertex.  Peeling proceeds in rounds: at level k, every remaining vertex
 * whose remaining degree is at most k is removed (core number k) and the
 * degrees of its neighbours are decremented atomically.  When a round
 * removes nothing, k moves up to the smallest remaining degree.  Each round
 * is one parallel region with two worksharing loops.
 *
 * Usage: kcore edges.txt [top_cores]
 */
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    unsigned char *alive = xmalloc((size_t)n);
    unsigned char *frontier = xmalloc((size_t)n);
    int maxdeg = 0;

    #pragma omp parallel for reduction(max:maxdeg)
    for (int v = 0; v < n; v++) {
        deg[v] = (int)(start[v + 1] - start[v]);
        core[v] = 0;
        alive[v] = 1;
        frontier[v] = 0;
        if (deg[v] > maxdeg)
            maxdeg = deg[v];
    }

    long remaining = n;
    long rounds = 0, levels = 0, level_rounds = 0, worst_level_rounds = 0;
    int k = 0, worst_level = 0;

    while (remaining > 0) {
        long removed = 0;

        #pragma omp parallel
        {
            /* phase 1: choose this round's victims from current degrees */
            #pragma omp for reduction(+:removed)
            for (int v = 0; v < n; v++) {
                unsigned char take = alive[v] && deg[v] <= k;
                frontier[v] = take;
                removed += take;
            }

            /* phase 2: remove them and update surviving neighbours */
            #pragma omp for
            for (int v = 0; v < n; v++) {
                if (!frontier[v])
                    continue;
                alive[v] = 0;
                core[v] = k;
                for (long p = start[v]; p < start[v + 1]; p++) {
                    int u = adj[p];
                    if (!frontier[u] && alive[u]) {
                        #pragma omp atomic
                        deg[u]--;
                    }
                }
            }
        }
        rounds++;
        remaining -= removed;

        if (removed > 0) {
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
            if (alive[v] && deg[v] < mindeg)
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

    /* sizes of the innermost cores: |{v : core[v] >= c}| */
    int kmax = 0;
    for (int v = 0; v < n; v++)
        if (core[v] > kmax)
            kmax = core[v];
    long *count = xmalloc(((size_t)kmax + 2) * sizeof(long));
    memset(count, 0, ((size_t)kmax + 2) * sizeof(long));
    for (int v = 0; v < n; v++)
        count[core[v]]++;
    for (int c = kmax - 1; c >= 0; c--)
        count[c] += count[c + 1];

    printf("graph: %d vertices, %ld edges, max degree %d\n", n, g.m, maxdeg);
    printf("max core number: %d\n", kmax);
    printf("%8s %10s\n", "k-core", "vertices");
    int listed = 0;
    for (int c = kmax; c >= 0 && listed < show; c--) {
        if (c < kmax && count[c] == count[c + 1])
            continue; /* same vertex set as the core above */
        printf("%8d %10ld\n", c, count[c]);
        listed++;
    }
    printf("peeling rounds: %ld over %ld levels (longest level k=%d with %ld"
           " rounds)\n", rounds, levels, worst_level, worst_level_rounds);

    free(count);
    free(deg);
    free(core);
    free(alive);
    free(frontier);
    free(g.start);
    free(g.adj);
    return 0;
}
