/*
 * simrank.c - SimRank similarity on a directed graph (e.g. citations).
 *
 * Two nodes are similar if they are referenced by similar nodes:
 *
 *     s(a,a) = 1
 *     s(a,b) = C / (|I(a)| |I(b)|) * sum_{i in I(a)} sum_{j in I(b)} s(i,j)
 *
 * where I(x) is the set of in-neighbours of x.  We iterate the naive
 * fixed-point (Jeh & Widom 2002) on a dense n x n matrix, exploiting
 * symmetry so only the upper triangle is computed each round.
 *
 * Input file: first line "n m", then m lines "src dst" (0-based ids).
 * Usage: simrank FILE [iterations] [decay] [topk]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    int n;
    int *in_start;   /* CSR of in-neighbours, size n+1 */
    int *in_adj;
    int *out_deg;
} Graph;

/* only nodes referenced at least this often take part in the top-k list */
#define MIN_REFS 4

typedef struct {
    int a, b;
    double s;
} Pair;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s EDGEFILE [iterations=10] [decay=0.8] [topk=10]\n", prog);
    fprintf(stderr, "  EDGEFILE: first line 'n m', then m lines 'src dst'\n");
    exit(2);
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static int load_graph(const char *path, Graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return -1;
    }
    int n, m;
    if (fscanf(f, "%d %d", &n, &m) != 2 || n <= 0 || m < 0) {
        fprintf(stderr, "error: '%s': bad header\n", path);
        fclose(f);
        return -1;
    }
    int *src = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    int *dst = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    for (int e = 0; e < m; e++) {
        if (fscanf(f, "%d %d", &src[e], &dst[e]) != 2 ||
            src[e] < 0 || src[e] >= n || dst[e] < 0 || dst[e] >= n) {
            fprintf(stderr, "error: '%s': bad edge on line %d\n", path, e + 2);
            free(src);
            free(dst);
            fclose(f);
            return -1;
        }
    }
    fclose(f);

    g->n = n;
    g->in_start = calloc((size_t)n + 1, sizeof(int));
    g->out_deg = calloc((size_t)n, sizeof(int));
    for (int e = 0; e < m; e++) {
        g->in_start[dst[e] + 1]++;
        g->out_deg[src[e]]++;
    }
    for (int v = 0; v < n; v++)
        g->in_start[v + 1] += g->in_start[v];
    g->in_adj = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    int *fill = malloc(sizeof(int) * (size_t)n);
    memcpy(fill, g->in_start, sizeof(int) * (size_t)n);
    for (int e = 0; e < m; e++)
        g->in_adj[fill[dst[e]]++] = src[e];
    free(fill);
    free(src);
    free(dst);

    /* sort each in-list and drop duplicate edges / self loops */
    int w = 0;
    for (int v = 0; v < n; v++) {
        int lo = g->in_start[v], hi = g->in_start[v + 1];
        qsort(g->in_adj + lo, (size_t)(hi - lo), sizeof(int), cmp_int);
        g->in_start[v] = w;
        for (int k = lo; k < hi; k++) {
            int u = g->in_adj[k];
            if (u == v || (w > g->in_start[v] && g->in_adj[w - 1] == u))
                continue;
            g->in_adj[w++] = u;
        }
    }
    g->in_start[n] = w;
    return 0;
}

/* One SimRank sweep: snew <- f(sold).  Returns the max absolute change. */
static double simrank_step(const Graph *g, const double *sold, double *snew, double decay)
{
    const int n = g->n;
    double maxdiff = 0.0;

    #pragma omp parallel for reduction(max:maxdiff)
    for (int a = 0; a < n; a++) {
        const int *ia = g->in_adj + g->in_start[a];
        const int da = g->in_start[a + 1] - g->in_start[a];
        snew[(size_t)a * n + a] = 1.0;
        for (int b = a + 1; b < n; b++) {
            const int *ib = g->in_adj + g->in_start[b];
            const int db = g->in_start[b + 1] - g->in_start[b];
            double s = 0.0;
            if (da > 0 && db > 0) {
                double sum = 0.0;
                for (int x = 0; x < da; x++) {
                    const double *row = sold + (size_t)ia[x] * n;
                    for (int y = 0; y < db; y++)
                        sum += row[ib[y]];
                }
                s = decay * sum / ((double)da * (double)db);
            }
            double d = fabs(s - sold[(size_t)a * n + b]);
            if (d > maxdiff)
                maxdiff = d;
            snew[(size_t)a * n + b] = s;
            snew[(size_t)b * n + a] = s;
        }
    }
    return maxdiff;
}

static int pair_cmp(const void *x, const void *y)
{
    const Pair *p = x, *q = y;
    if (p->s != q->s)
        return p->s < q->s ? 1 : -1;
    if (p->a != q->a)
        return p->a - q->a;
    return p->b - q->b;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5)
        usage(argv[0]);
    int iters = 10, topk = 10;
    double decay = 0.8;
    char *end;
    if (argc > 2) {
        iters = (int)strtol(argv[2], &end, 10);
        if (*end || iters < 1 || iters > 1000)
            usage(argv[0]);
    }
    if (argc > 3) {
        decay = strtod(argv[3], &end);
        if (*end || !(decay > 0.0 && decay < 1.0))
            usage(argv[0]);
    }
    if (argc > 4) {
        topk = (int)strtol(argv[4], &end, 10);
        if (*end || topk < 1 || topk > 1000)
            usage(argv[0]);
    }

    Graph g;
    if (load_graph(argv[1], &g) != 0)
        return 1;
    const int n = g.n;
    int nedges = g.in_start[n];
    int isolated = 0, maxin = 0, hub = 0;
    for (int v = 0; v < n; v++) {
        int d = g.in_start[v + 1] - g.in_start[v];
        if (d == 0)
            isolated++;
        if (d > maxin) {
            maxin = d;
            hub = v;
        }
    }
    printf("graph: %d nodes, %d distinct edges, %d nodes never referenced, max in-degree %d (node %d)\n",
           n, nedges, isolated, maxin, hub);

    size_t nn = (size_t)n * n;
    double *s0 = malloc(nn * sizeof(double));
    double *s1 = malloc(nn * sizeof(double));
    if (!s0 || !s1) {
        fprintf(stderr, "error: out of memory for %d x %d matrix\n", n, n);
        return 1;
    }

    #pragma omp parallel for
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            s0[(size_t)a * n + b] = (a == b) ? 1.0 : 0.0;

    double t0 = omp_get_wtime();
    double diff = 0.0;
    int it;
    for (it = 1; it <= iters; it++) {
        diff = simrank_step(&g, s0, s1, decay);
        double *tmp = s0;
        s0 = s1;
        s1 = tmp;
        if (it <= 3 || it == iters)
            printf("iteration %2d: max change %.6e\n", it, diff);
        if (diff < 1e-12) {
            printf("converged after %d iterations\n", it);
            break;
        }
    }
    double t1 = omp_get_wtime();

    /* best partner of every node, plus how many nodes are "close" to it */
    int *best = malloc(sizeof(int) * (size_t)n);
    double *bests = malloc(sizeof(double) * (size_t)n);
    int *close = malloc(sizeof(int) * (size_t)n);
    long close_total = 0;
    #pragma omp parallel for reduction(+:close_total)
    for (int a = 0; a < n; a++) {
        const double *row = s0 + (size_t)a * n;
        const int wa = g.in_start[a + 1] - g.in_start[a] >= MIN_REFS;
        int bi = -1, c = 0;
        double bs = 0.0;
        for (int b = 0; b < n; b++) {
            if (b == a)
                continue;
            if (wa && g.in_start[b + 1] - g.in_start[b] >= MIN_REFS && row[b] > bs) {
                bs = row[b];
                bi = b;
            }
            if (row[b] >= 0.1)
                c++;
        }
        best[a] = bi;
        bests[a] = bs;
        close[a] = c;
        close_total += c;
    }

    /* top-k pairs: candidate = each node's best partner (a < b keeps it unique) */
    Pair *cand = malloc(sizeof(Pair) * (size_t)n);
    int nc = 0;
    for (int a = 0; a < n; a++) {
        int b = best[a];
        if (b < 0)
            continue;
        if (a < b || best[b] != a)
            cand[nc++] = (Pair){a < b ? a : b, a < b ? b : a, bests[a]};
    }
    qsort(cand, (size_t)nc, sizeof(Pair), pair_cmp);
    int most_close = 0;
    for (int a = 1; a < n; a++)
        if (close[a] > close[most_close])
            most_close = a;

    printf("pairs with similarity >= 0.1: %ld\n", close_total / 2);
    printf("node with most similar peers: %d (%d peers)\n", most_close, close[most_close]);
    printf("top %d most similar pairs among nodes with >= %d references:\n", topk, MIN_REFS);
    int shown = 0;
    for (int k = 0; k < nc && shown < topk; k++) {
        if (k > 0 && cand[k].a == cand[k - 1].a && cand[k].b == cand[k - 1].b)
            continue;
        printf("  %5d %5d  %.6f\n", cand[k].a, cand[k].b, cand[k].s);
        shown++;
    }
    fprintf(stderr, "simrank time: %.3f s\n", t1 - t0);

    free(cand);
    free(close);
    free(bests);
    free(best);
    free(s0);
    free(s1);
    free(g.in_start);
    free(g.in_adj);
    free(g.out_deg);
    return 0;
}
