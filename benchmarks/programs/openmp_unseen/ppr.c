/*
 * ppr.c - personalized PageRank (random walk with restart) for a batch of seed nodes
 * on a directed graph read from an edge-list file.
 *
 * usage: ppr <edge-list> <num-seeds> <damping> <tolerance> [max-iter]
 *
 * The edge list is a text file with one "from to" pair per line (0-based node ids);
 * lines starting with '#' are comments. Dangling nodes send their mass back to the seed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct graph {
    int n;
    long m;
    long *in_start; /* CSR of incoming edges */
    int *in_src;
    int *outdeg;
};

static void usage(const char *p)
{
    fprintf(stderr, "usage: %s <edge-list> <num-seeds> <damping> <tolerance> [max-iter]\n", p);
    fprintf(stderr, "  e.g. %s graph.txt 320 0.85 1e-13 500\n", p);
}

static int read_graph(const char *path, struct graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    long cap = 1 << 16, m = 0;
    int *src = malloc(cap * sizeof *src), *dst = malloc(cap * sizeof *dst);
    char line[256];
    int maxid = -1;
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int a, b;
        if (sscanf(line, "%d %d", &a, &b) != 2 || a < 0 || b < 0) {
            fprintf(stderr, "%s:%ld: cannot parse edge\n", path, lineno);
            fclose(f);
            return -1;
        }
        if (m == cap) {
            cap *= 2;
            src = realloc(src, cap * sizeof *src);
            dst = realloc(dst, cap * sizeof *dst);
            if (!src || !dst) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
        }
        src[m] = a;
        dst[m] = b;
        m++;
        if (a > maxid)
            maxid = a;
        if (b > maxid)
            maxid = b;
    }
    fclose(f);
    if (m == 0) {
        fprintf(stderr, "%s: no edges\n", path);
        return -1;
    }
    g->n = maxid + 1;
    g->m = m;
    g->in_start = calloc(g->n + 1, sizeof(long));
    g->in_src = malloc(m * sizeof(int));
    g->outdeg = calloc(g->n, sizeof(int));
    for (long e = 0; e < m; e++) {
        g->in_start[dst[e] + 1]++;
        g->outdeg[src[e]]++;
    }
    for (int v = 0; v < g->n; v++)
        g->in_start[v + 1] += g->in_start[v];
    long *pos = malloc(g->n * sizeof(long));
    memcpy(pos, g->in_start, g->n * sizeof(long));
    for (long e = 0; e < m; e++)
        g->in_src[pos[dst[e]]++] = src[e];
    free(pos);
    free(src);
    free(dst);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    long S = strtol(argv[2], &end, 10);
    if (*end || S < 1 || S > 4096) {
        usage(argv[0]);
        return 2;
    }
    double alpha = strtod(argv[3], &end);
    if (*end || !(alpha > 0.0 && alpha < 1.0)) {
        fprintf(stderr, "damping must be in (0,1)\n");
        return 2;
    }
    double tol = strtod(argv[4], &end);
    if (*end || !(tol > 0.0)) {
        fprintf(stderr, "tolerance must be positive\n");
        return 2;
    }
    long maxit = 1000;
    if (argc == 6) {
        maxit = strtol(argv[5], &end, 10);
        if (*end || maxit < 1) {
            usage(argv[0]);
            return 2;
        }
    }

    struct graph g;
    if (read_graph(argv[1], &g))
        return 1;
    int n = g.n;
    int ns = (int)S;

    int ndangling = 0;
    for (int v = 0; v < n; v++)
        ndangling += g.outdeg[v] == 0;
    int *dangling = malloc((ndangling + 1) * sizeof(int));
    for (int v = 0, k = 0; v < n; v++)
        if (g.outdeg[v] == 0)
            dangling[k++] = v;
    double *invdeg = malloc(n * sizeof(double));
    for (int v = 0; v < n; v++)
        invdeg[v] = g.outdeg[v] ? 1.0 / g.outdeg[v] : 0.0;

    int maxin = 0, maxin_node = 0;
    for (int v = 0; v < n; v++) {
        int d = (int)(g.in_start[v + 1] - g.in_start[v]);
        if (d > maxin) {
            maxin = d;
            maxin_node = v;
        }
    }
    printf("graph: %d nodes, %ld edges, %d dangling, max in-degree %d (node %d)\n", n, g.m, ndangling, maxin,
           maxin_node);

    /* seeds spread over the id range */
    int *seed = malloc(ns * sizeof(int));
    for (int s = 0; s < ns; s++)
        seed[s] = (int)(((long)s * 7919 + 17) % n);

    /* x[v*ns + s]: probability of node v in the walk restarted at seed[s] */
    size_t len = (size_t)n * ns;
    double *x = malloc(len * sizeof(double));
    double *y = malloc(len * sizeof(double));
    double *diff = malloc(n * sizeof(double));
    double *dmass = malloc(ns * sizeof(double));
    if (!x || !y || !diff || !dmass) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < len; i++)
        x[i] = 0.0;
    for (int s = 0; s < ns; s++)
        x[(size_t)seed[s] * ns + s] = 1.0;

    long it;
    double delta = 0.0;
    for (it = 1; it <= maxit; it++) {
        /* mass sitting on dangling nodes, per seed */
#pragma omp parallel for
        for (int s = 0; s < ns; s++) {
            double t = 0.0;
            for (int k = 0; k < ndangling; k++)
                t += x[(size_t)dangling[k] * ns + s];
            dmass[s] = t;
        }

        /* pull from in-neighbours */
#pragma omp parallel for
        for (int v = 0; v < n; v++) {
            double *yv = &y[(size_t)v * ns];
            for (int s = 0; s < ns; s++)
                yv[s] = 0.0;
            for (long e = g.in_start[v]; e < g.in_start[v + 1]; e++) {
                int u = g.in_src[e];
                const double *xu = &x[(size_t)u * ns];
                double w = invdeg[u];
                for (int s = 0; s < ns; s++)
                    yv[s] += w * xu[s];
            }
            double md = 0.0;
            for (int s = 0; s < ns; s++) {
                double val = alpha * yv[s];
                if (v == seed[s])
                    val += (1.0 - alpha) + alpha * dmass[s];
                double dd = fabs(val - x[(size_t)v * ns + s]);
                if (dd > md)
                    md = dd;
                yv[s] = val;
            }
            diff[v] = md;
        }

        delta = 0.0;
        for (int v = 0; v < n; v++)
            if (diff[v] > delta)
                delta = diff[v];
        double *t = x;
        x = y;
        y = t;
        if (delta < tol)
            break;
    }
    if (it > maxit)
        it = maxit;
    printf("seeds: %d, damping %.2f, iterations: %ld, last max change = %.3e\n", ns, alpha, it, delta);

    /* top-5 per seed: one seed per iteration */
    enum { TOPK = 5 };
    int *top = malloc((size_t)ns * TOPK * sizeof(int));
#pragma omp parallel for
    for (int s = 0; s < ns; s++) {
        int *t = &top[(size_t)s * TOPK];
        for (int k = 0; k < TOPK; k++)
            t[k] = -1;
        for (int v = 0; v < n; v++) {
            double val = x[(size_t)v * ns + s];
            int k = TOPK;
            while (k > 0 && (t[k - 1] < 0 || x[(size_t)t[k - 1] * ns + s] < val))
                k--;
            if (k < TOPK) {
                for (int q = TOPK - 1; q > k; q--)
                    t[q] = t[q - 1];
                t[k] = v;
            }
        }
    }

    for (int s = 0; s < ns && s < 4; s++) {
        printf("seed %5d:", seed[s]);
        for (int k = 0; k < TOPK; k++) {
            int v = top[(size_t)s * TOPK + k];
            printf("  %5d (%.4f)", v, x[(size_t)v * ns + s]);
        }
        printf("\n");
    }

    /* which nodes show up most often in the per-seed top lists (excluding the seed itself) */
    int *hits = calloc(n, sizeof(int));
    for (int s = 0; s < ns; s++)
        for (int k = 0; k < TOPK; k++)
            if (top[(size_t)s * TOPK + k] != seed[s])
                hits[top[(size_t)s * TOPK + k]]++;
    printf("nodes most often in a top-%d list:\n", TOPK);
    for (int r = 0; r < 5; r++) {
        int bv = 0;
        for (int v = 1; v < n; v++)
            if (hits[v] > hits[bv])
                bv = v;
        printf("  node %5d  in %3d lists  (in-degree %ld)\n", bv, hits[bv], g.in_start[bv + 1] - g.in_start[bv]);
        hits[bv] = -1;
    }

    double total = 0.0;
    for (size_t i = 0; i < len; i++)
        total += x[i];
    printf("total probability mass / seeds = %.6f\n", total / ns);

    free(hits);
    free(top);
    free(x);
    free(y);
    free(diff);
    free(dmass);
    free(seed);
    free(invdeg);
    free(dangling);
    free(g.in_start);
    free(g.in_src);
    free(g.outdeg);
    return 0;
}
