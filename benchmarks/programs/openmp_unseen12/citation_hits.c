/*
 * citation_hits.c - HITS (hubs and authorities) on a directed citation graph.
 *
 * Usage: citation_hits <graph.bin> <iterations>
 *
 * The graph file holds, for every paper, the list of earlier papers it cites
 * (varint-coded gaps).  The program builds the out-link CSR and its transpose
 * and runs the classic HITS power iteration:
 *     auth(v) = sum of hub(u) over papers u citing v
 *     hub(u)  = sum of auth(v) over papers v cited by u
 * with L2 normalisation after each half step.  Norms and convergence measures
 * are summed per fixed block of nodes and the block sums are added in block
 * order, so the results do not depend on the number of threads.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 4096
#define TOPK 10

typedef struct {
    int n;
    long m;
    long *out_ptr;   /* n+1 */
    int *out_idx;    /* m   */
    long *in_ptr;    /* n+1 */
    int *in_idx;     /* m   */
} Graph;

static void *xmalloc(size_t sz)
{
    void *p = malloc(sz ? sz : 1);
    if (!p) {
        fprintf(stderr, "citation_hits: out of memory\n");
        exit(1);
    }
    return p;
}

static int read_varint(const unsigned char *buf, size_t len, size_t *pos, uint32_t *val)
{
    uint32_t v = 0;
    int shift = 0;
    while (*pos < len) {
        unsigned char b = buf[(*pos)++];
        if (shift > 28)
            return 0;
        v |= (uint32_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            *val = v;
            return 1;
        }
        shift += 7;
    }
    return 0;
}

static int load_graph(const char *path, Graph *g)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "citation_hits: cannot open %s\n", path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long fsize = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (fsize < 12) {
        fprintf(stderr, "citation_hits: %s: file too short\n", path);
        fclose(f);
        return 0;
    }
    unsigned char *buf = xmalloc((size_t)fsize);
    if (fread(buf, 1, (size_t)fsize, f) != (size_t)fsize) {
        fprintf(stderr, "citation_hits: %s: read error\n", path);
        fclose(f);
        free(buf);
        return 0;
    }
    fclose(f);
    if (memcmp(buf, "CITG", 4) != 0) {
        fprintf(stderr, "citation_hits: %s: bad magic, not a citation graph\n", path);
        free(buf);
        return 0;
    }
    uint32_t n = (uint32_t)buf[4] | (uint32_t)buf[5] << 8 | (uint32_t)buf[6] << 16 | (uint32_t)buf[7] << 24;
    uint32_t m = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 | (uint32_t)buf[11] << 24;
    if (n == 0 || n > 50000000u || m > 500000000u) {
        fprintf(stderr, "citation_hits: %s: implausible header (n=%u, m=%u)\n", path, n, m);
        free(buf);
        return 0;
    }
    g->n = (int)n;
    g->m = (long)m;
    g->out_ptr = xmalloc(sizeof(long) * (n + 1));
    g->out_idx = xmalloc(sizeof(int) * (m ? m : 1));
    size_t pos = 12, len = (size_t)fsize;
    long e = 0;
    g->out_ptr[0] = 0;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t deg;
        if (!read_varint(buf, len, &pos, &deg) || (long)deg > (long)m - e) {
            fprintf(stderr, "citation_hits: %s: malformed adjacency of node %u\n", path, u);
            free(buf);
            return 0;
        }
        uint64_t prev = 0;
        for (uint32_t k = 0; k < deg; k++) {
            uint32_t gap;
            if (!read_varint(buf, len, &pos, &gap)) {
                fprintf(stderr, "citation_hits: %s: truncated adjacency of node %u\n", path, u);
                free(buf);
                return 0;
            }
            uint64_t t = prev + gap;
            if (t >= n || (k > 0 && gap == 0)) {
                fprintf(stderr, "citation_hits: %s: bad target in node %u\n", path, u);
                free(buf);
                return 0;
            }
            g->out_idx[e++] = (int)t;
            prev = t;
        }
        g->out_ptr[u + 1] = e;
    }
    free(buf);
    if (e != (long)m || pos != len) {
        fprintf(stderr, "citation_hits: %s: edge count or file length does not match header\n", path);
        return 0;
    }
    /* transpose: in-lists ordered by citing node */
    g->in_ptr = xmalloc(sizeof(long) * (n + 1));
    g->in_idx = xmalloc(sizeof(int) * (m ? m : 1));
    memset(g->in_ptr, 0, sizeof(long) * (n + 1));
    for (long k = 0; k < g->m; k++)
        g->in_ptr[g->out_idx[k] + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->in_ptr[v + 1] += g->in_ptr[v];
    long *fill = xmalloc(sizeof(long) * n);
    memcpy(fill, g->in_ptr, sizeof(long) * n);
    for (uint32_t u = 0; u < n; u++)
        for (long k = g->out_ptr[u]; k < g->out_ptr[u + 1]; k++)
            g->in_idx[fill[g->out_idx[k]]++] = (int)u;
    free(fill);
    return 1;
}

/* sum of squares, added block by block in block order */
static double block_norm2(const double *x, int n, double *partial, int nblocks)
{
#pragma omp parallel for
    for (int b = 0; b < nblocks; b++) {
        int lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        double s = 0.0;
        for (int i = lo; i < hi; i++)
            s += x[i] * x[i];
        partial[b] = s;
    }
    double s = 0.0;
    for (int b = 0; b < nblocks; b++)
        s += partial[b];
    return s;
}

/* scales x by 1/norm, stores it, and returns the L1 change against old */
static double scale_and_diff(double *x, double *old, int n, double inv, double *partial, int nblocks)
{
#pragma omp parallel for
    for (int b = 0; b < nblocks; b++) {
        int lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        double s = 0.0;
        for (int i = lo; i < hi; i++) {
            double v = x[i] * inv;
            s += fabs(v - old[i]);
            x[i] = v;
            old[i] = v;
        }
        partial[b] = s;
    }
    double s = 0.0;
    for (int b = 0; b < nblocks; b++)
        s += partial[b];
    return s;
}

static void top_k(const double *x, int n, int *idx, int k)
{
    int cnt = 0;
    for (int i = 0; i < n; i++) {
        if (cnt == k && x[i] <= x[idx[k - 1]])
            continue;
        int p = cnt < k ? cnt++ : k - 1;
        while (p > 0 && x[idx[p - 1]] < x[i]) {
            idx[p] = idx[p - 1];
            p--;
        }
        idx[p] = i;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <graph.bin> <iterations>\n", argv[0]);
        return 2;
    }
    char *end;
    long iters = strtol(argv[2], &end, 10);
    if (*end != '\0' || iters < 1 || iters > 100000) {
        fprintf(stderr, "usage: %s <graph.bin> <iterations>   (iterations: 1..100000)\n", argv[0]);
        return 2;
    }
    Graph g;
    if (!load_graph(argv[1], &g))
        return 1;
    int n = g.n;
    int nblocks = (n + BLOCK - 1) / BLOCK;

    long max_in = 0, max_out = 0, dangling = 0, uncited = 0;
    for (int i = 0; i < n; i++) {
        long din = g.in_ptr[i + 1] - g.in_ptr[i];
        long dout = g.out_ptr[i + 1] - g.out_ptr[i];
        if (din > max_in) max_in = din;
        if (dout > max_out) max_out = dout;
        if (dout == 0) dangling++;
        if (din == 0) uncited++;
    }
    printf("graph: %d papers, %ld citations, max in-degree %ld, max out-degree %ld\n",
           n, g.m, max_in, max_out);
    printf("papers citing nothing: %ld, papers never cited: %ld\n", dangling, uncited);

    double *hub = xmalloc(sizeof(double) * n);
    double *auth = xmalloc(sizeof(double) * n);
    double *hub_old = xmalloc(sizeof(double) * n);
    double *auth_old = xmalloc(sizeof(double) * n);
    double *partial = xmalloc(sizeof(double) * nblocks);
    double init = 1.0 / sqrt((double)n);
    for (int i = 0; i < n; i++) {
        hub[i] = hub_old[i] = init;
        auth[i] = auth_old[i] = init;
    }

    for (long it = 1; it <= iters; it++) {
        /* authorities from hubs via the transposed (in-link) CSR */
#pragma omp parallel for
        for (int v = 0; v < n; v++) {
            double s = 0.0;
            for (long k = g.in_ptr[v]; k < g.in_ptr[v + 1]; k++)
                s += hub[g.in_idx[k]];
            auth[v] = s;
        }
        double na = sqrt(block_norm2(auth, n, partial, nblocks));
        double da = scale_and_diff(auth, auth_old, n, na > 0 ? 1.0 / na : 0.0, partial, nblocks);

        /* hubs from the new authorities via the out-link CSR */
#pragma omp parallel for
        for (int u = 0; u < n; u++) {
            double s = 0.0;
            for (long k = g.out_ptr[u]; k < g.out_ptr[u + 1]; k++)
                s += auth[g.out_idx[k]];
            hub[u] = s;
        }
        double nh = sqrt(block_norm2(hub, n, partial, nblocks));
        double dh = scale_and_diff(hub, hub_old, n, nh > 0 ? 1.0 / nh : 0.0, partial, nblocks);

        if (it % 10 == 0 || it == iters)
            printf("iteration %4ld: authority change %.6e, hub change %.6e, singular value %.6f\n",
                   it, da, dh, nh);
    }

    int top[TOPK];
    int k = n < TOPK ? n : TOPK;
    top_k(auth, n, top, k);
    printf("top %d authorities (paper, score, cited by):\n", k);
    for (int r = 0; r < k; r++)
        printf("  %2d. paper %6d  %.6f  %ld\n", r + 1, top[r], auth[top[r]],
               g.in_ptr[top[r] + 1] - g.in_ptr[top[r]]);
    top_k(hub, n, top, k);
    printf("top %d hubs (paper, score, cites):\n", k);
    for (int r = 0; r < k; r++)
        printf("  %2d. paper %6d  %.6f  %ld\n", r + 1, top[r], hub[top[r]],
               g.out_ptr[top[r] + 1] - g.out_ptr[top[r]]);

    free(hub); free(auth); free(hub_old); free(auth_old); free(partial);
    free(g.out_ptr); free(g.out_idx); free(g.in_ptr); free(g.in_idx);
    return 0;
}
