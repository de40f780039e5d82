/*
 * sssp.c - single-source shortest paths on a weighted directed graph.
 *
 * Reads a graph in DIMACS shortest-path format (.gr):
 *     c <comment>
 *     p sp <nodes> <arcs>
 *     a <from> <to> <weight>      (1-based vertex ids, non-negative weights)
 *
 * For every source vertex given on the command line it runs a
 * Bellman-Ford style relaxation: in each round every vertex pulls over its
 * incoming arcs and writes its tentative distance into a fresh array.  The
 * rounds stop when no distance changes.  Vertices are processed in parallel.
 *
 * Usage: sssp graph.gr source [source ...]
 */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF INT64_MAX

typedef struct {
    int n;              /* number of vertices */
    long m;             /* number of arcs */
    long *in_start;     /* CSR over incoming arcs, size n+1 */
    int *in_src;        /* tail of each incoming arc */
    int *in_w;          /* weight of each incoming arc */
    int *out_deg;       /* out-degree of each vertex (statistics only) */
} Graph;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s graph.gr source [source ...]\n", prog);
    fprintf(stderr, "  graph.gr  weighted directed graph in DIMACS format\n");
    fprintf(stderr, "  source    1-based source vertex id (one or more)\n");
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

static int read_graph(const char *path, Graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }

    char line[256];
    long lineno = 0, arcs_read = 0;
    int have_header = 0;
    int *tail = NULL, *head = NULL, *wt = NULL;

    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == 'c' || line[0] == '\n' || line[0] == '\r')
            continue;
        if (line[0] == 'p') {
            int n;
            long m;
            if (have_header || sscanf(line, "p sp %d %ld", &n, &m) != 2 ||
                n <= 0 || m < 0) {
                fprintf(stderr, "error: %s:%ld: bad problem line\n", path, lineno);
                goto fail;
            }
            have_header = 1;
            g->n = n;
            g->m = m;
            tail = xmalloc((size_t)m * sizeof *tail);
            head = xmalloc((size_t)m * sizeof *head);
            wt = xmalloc((size_t)m * sizeof *wt);
            continue;
        }
        if (line[0] == 'a') {
            int u, v, w;
            if (!have_header) {
                fprintf(stderr, "error: %s:%ld: arc before problem line\n",
                        path, lineno);
                goto fail;
            }
            if (sscanf(line, "a %d %d %d", &u, &v, &w) != 3 || u < 1 ||
                u > g->n || v < 1 || v > g->n || w < 0) {
                fprintf(stderr, "error: %s:%ld: bad arc line\n", path, lineno);
                goto fail;
            }
            if (arcs_read >= g->m) {
                fprintf(stderr, "error: %s:%ld: more arcs than announced (%ld)\n",
                        path, lineno, g->m);
                goto fail;
            }
            tail[arcs_read] = u - 1;
            head[arcs_read] = v - 1;
            wt[arcs_read] = w;
            arcs_read++;
            continue;
        }
        fprintf(stderr, "error: %s:%ld: unexpected line\n", path, lineno);
        goto fail;
    }
    fclose(f);
    f = NULL;

    if (!have_header) {
        fprintf(stderr, "error: %s: no 'p sp' problem line\n", path);
        goto fail;
    }
    if (arcs_read != g->m) {
        fprintf(stderr, "error: %s: expected %ld arcs, found %ld\n",
                path, g->m, arcs_read);
        goto fail;
    }

    /* build the incoming-arc CSR (counting sort by head) */
    int n = g->n;
    g->in_start = xmalloc(((size_t)n + 1) * sizeof(long));
    g->in_src = xmalloc((size_t)g->m * sizeof(int));
    g->in_w = xmalloc((size_t)g->m * sizeof(int));
    g->out_deg = xmalloc((size_t)n * sizeof(int));
    memset(g->in_start, 0, ((size_t)n + 1) * sizeof(long));
    memset(g->out_deg, 0, (size_t)n * sizeof(int));
    for (long e = 0; e < g->m; e++) {
        g->in_start[head[e] + 1]++;
        g->out_deg[tail[e]]++;
    }
    for (int v = 0; v < n; v++)
        g->in_start[v + 1] += g->in_start[v];
    long *fill = xmalloc((size_t)n * sizeof(long));
    memcpy(fill, g->in_start, (size_t)n * sizeof(long));
    for (long e = 0; e < g->m; e++) {
        long pos = fill[head[e]]++;
        g->in_src[pos] = tail[e];
        g->in_w[pos] = wt[e];
    }
    free(fill);
    free(tail);
    free(head);
    free(wt);
    return 0;

fail:
    if (f)
        fclose(f);
    free(tail);
    free(head);
    free(wt);
    return -1;
}

/* One source: pull-based Bellman-Ford.  Returns number of rounds. */
static int bellman_ford(const Graph *g, int src, int64_t *dist, int64_t *next)
{
    const int n = g->n;
    const long *start = g->in_start;
    const int *from = g->in_src;
    const int *w = g->in_w;

    #pragma omp parallel for
    for (int v = 0; v < n; v++)
        dist[v] = INF;
    dist[src] = 0;

    int rounds = 0;
    for (;;) {
        long changed = 0;
        rounds++;

        #pragma omp parallel for reduction(+:changed)
        for (int v = 0; v < n; v++) {
            int64_t best = dist[v];
            for (long e = start[v]; e < start[v + 1]; e++) {
                int64_t du = dist[from[e]];
                if (du != INF && du + w[e] < best)
                    best = du + w[e];
            }
            next[v] = best;
            if (best != dist[v])
                changed++;
        }

        int64_t *tmp = dist;
        dist = next;
        next = tmp;
        if (changed == 0 || rounds > n)
            break;
    }

    /* final distances must end up in the caller's first array */
    if (rounds % 2 == 1)
        memcpy(next, dist, (size_t)n * sizeof(int64_t));
    return rounds;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        usage(argv[0]);
        return 2;
    }

    int nsrc = argc - 2;
    long *sources = xmalloc((size_t)nsrc * sizeof(long));
    for (int i = 0; i < nsrc; i++) {
        char *end;
        errno = 0;
        long s = strtol(argv[i + 2], &end, 10);
        if (errno || *end != '\0' || end == argv[i + 2] || s < 1) {
            fprintf(stderr, "error: bad source vertex '%s'\n", argv[i + 2]);
            usage(argv[0]);
            return 2;
        }
        sources[i] = s;
    }

    Graph g;
    if (read_graph(argv[1], &g) != 0)
        return 1;
    for (int i = 0; i < nsrc; i++) {
        if (sources[i] > g.n) {
            fprintf(stderr, "error: source %ld out of range 1..%d\n",
                    sources[i], g.n);
            return 2;
        }
    }

    int max_in = 0, max_out = 0;
    for (int v = 0; v < g.n; v++) {
        int din = (int)(g.in_start[v + 1] - g.in_start[v]);
        if (din > max_in)
            max_in = din;
        if (g.out_deg[v] > max_out)
            max_out = g.out_deg[v];
    }
    printf("graph: %d vertices, %ld arcs, max in-degree %d, max out-degree %d\n",
           g.n, g.m, max_in, max_out);
    printf("%8s %10s %12s %14s %7s\n", "source", "reachable", "max dist",
           "mean dist", "rounds");

    int64_t *dist = xmalloc((size_t)g.n * sizeof(int64_t));
    int64_t *next = xmalloc((size_t)g.n * sizeof(int64_t));
    long total_rounds = 0;
    int64_t farthest = 0;

    for (int i = 0; i < nsrc; i++) {
        int src = (int)sources[i] - 1;
        int rounds = bellman_ford(&g, src, dist, next);
        total_rounds += rounds;

        long reach = 0;
        int64_t maxd = 0, sum = 0;
        for (int v = 0; v < g.n; v++) {
            if (dist[v] == INF)
                continue;
            reach++;
            sum += dist[v];
            if (dist[v] > maxd)
                maxd = dist[v];
        }
        if (maxd > farthest)
            farthest = maxd;
        printf("%8ld %10ld %12lld %14.3f %7d\n", sources[i], reach,
               (long long)maxd, reach ? (double)sum / (double)reach : 0.0,
               rounds);
    }

    printf("sources: %d, total rounds: %ld, longest shortest path: %lld\n",
           nsrc, total_rounds, (long long)farthest);

    free(dist);
    free(next);
    free(sources);
    free(g.in_start);
    free(g.in_src);
    free(g.in_w);
    free(g.out_deg);
    return 0;
}
