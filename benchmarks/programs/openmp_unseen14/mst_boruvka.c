/*
 * mst_boruvka: minimum spanning forest of an undirected weighted graph with
 * Boruvka's algorithm.
 *
 * Input file format (little-endian):
 *   char[4]  magic "WGRA"
 *   uint32   n   (vertices)
 *   uint32   m   (edges)
 *   for each vertex u = 0 .. n-1:
 *     uint16 k, then k records { uint32 v, uint16 w }  (edge u -- v, weight w)
 * Every undirected edge is listed once; the edge index is its position in
 * the file.  Edges are ordered by (w, edge index), so the forest is
 * unique.  Self-loops are allowed in the file and never used.
 *
 * Each round: every vertex scans its own adjacency list for the cheapest
 * edge leaving its component (parallel loop over vertices); a second pass
 * takes per component the minimum of its vertices' candidates (the order
 * is total, so the result does not depend on who looks first); the chosen
 * edges are merged with union-find; and the component labels are refreshed
 * (parallel loop over vertices).
 *
 * What-if study: scenario 0 uses the weights of the file; scenarios
 * 1..S-1 scale every edge weight by a pseudo-random congestion factor in
 * [1, 2) derived from (scenario, edge index), and the forest is recomputed
 * for each.  The report gives the details of scenario 0 and, over all
 * scenarios, the spread of the total weight and how much of the base
 * forest survives.
 *
 * usage: mst_boruvka GRAPH.bin SCENARIOS TOP_K
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>

_Noreturn static void usage(void)
{
    fprintf(stderr, "usage: mst_boruvka GRAPH.bin SCENARIOS TOP_K   (SCENARIOS in 1..10000, TOP_K in 1..100)\n");
    exit(2);
}

_Noreturn static void fail(const char *path, const char *what)
{
    fprintf(stderr, "mst_boruvka: %s: %s\n", path, what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "mst_boruvka: out of memory\n");
        exit(1);
    }
    return p;
}

/* edge a is lighter than edge b in the (weight, index) order */
static inline int lighter(const uint64_t *w, int a, int b)
{
    return w[a] < w[b] || (w[a] == w[b] && a < b);
}

static int find_root(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];   /* path halving */
        x = parent[x];
    }
    return x;
}

typedef struct {
    int n, m;
    const int64_t *adj_off;
    const int *adj_e, *adj_v;
    const int *eu, *ev;
    /* work arrays, n entries each */
    int *comp, *parent, *csize, *vbest, *cbest;
} graph_t;

/* Minimum spanning forest for the weights w; the forest edges go to mst[],
 * returns their number. */
static int boruvka(graph_t *g, const uint64_t *ew, int *mst, int *rounds_out,
                   uint64_t *weight_out)
{
    const int n = g->n;
    const int64_t *adj_off = g->adj_off;
    const int *adj_e = g->adj_e, *adj_v = g->adj_v;
    int *comp = g->comp, *parent = g->parent, *csize = g->csize;
    int *vbest = g->vbest, *cbest = g->cbest;

    for (int v = 0; v < n; v++) {
        comp[v] = v;
        parent[v] = v;
        csize[v] = 1;
        cbest[v] = -1;
    }
    int n_mst = 0, rounds = 0;
    uint64_t total_weight = 0;

    for (;;) {
        /* each vertex: cheapest edge to another component */
        #pragma omp parallel for
        for (int v = 0; v < n; v++) {
            int cv = comp[v], best = -1;
            for (int64_t p = adj_off[v]; p < adj_off[v + 1]; p++) {
                if (comp[adj_v[p]] == cv) continue;
                int e = adj_e[p];
                if (best < 0 || lighter(ew, e, best)) best = e;
            }
            vbest[v] = best;
        }

        /* per component: minimum over its vertices */
        int any = 0;
        for (int v = 0; v < n; v++) {
            int e = vbest[v];
            if (e < 0) continue;
            int c = comp[v];
            if (cbest[c] < 0 || lighter(ew, e, cbest[c])) cbest[c] = e;
            any = 1;
        }
        if (!any) break;
        rounds++;

        /* merge; an edge chosen by both of its components is added once */
        for (int c = 0; c < n; c++) {
            int e = cbest[c];
            if (e < 0) continue;
            cbest[c] = -1;
            int a = find_root(parent, g->eu[e]), b = find_root(parent, g->ev[e]);
            if (a == b) continue;
            if (csize[a] < csize[b]) { int t = a; a = b; b = t; }
            parent[b] = a;
            csize[a] += csize[b];
            mst[n_mst++] = e;
            total_weight += ew[e];
        }

        /* refresh component labels (parent[] is only read here) */
        #pragma omp parallel for
        for (int v = 0; v < n; v++) {
            int r = v;
            while (parent[r] != r) r = parent[r];
            comp[v] = r;
        }
    }
    *rounds_out = rounds;
    *weight_out = total_weight;
    return n_mst;
}

static inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
    if (argc != 4) usage();
    char *end;
    errno = 0;
    long scen = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || scen < 1 || scen > 10000) usage();
    long topk = strtol(argv[3], &end, 10);
    if (errno || *end || end == argv[3] || topk < 1 || topk > 100) usage();
    const int scenarios = (int)scen;

    /* ---- read the edge lists ---- */
    const char *path = argv[1];
    FILE *f = fopen(path, "rb");
    if (!f) fail(path, strerror(errno));
    char magic[4];
    uint32_t hdr[2];
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "WGRA", 4) != 0)
        fail(path, "not a WGRA graph file");
    if (fread(hdr, 4, 2, f) != 2) fail(path, "file is truncated");
    const uint32_t n32 = hdr[0], m32 = hdr[1];
    if (n32 == 0 || n32 > 100000000u || m32 > 500000000u)
        fail(path, "implausible graph size");
    const int n = (int)n32, m = (int)m32;

    int *eu = xmalloc((size_t)m * sizeof(int));
    int *ev = xmalloc((size_t)m * sizeof(int));
    uint64_t *ew = xmalloc((size_t)m * sizeof(uint64_t));
    unsigned char *rec = xmalloc(65535 * 6);
    int self_loops = 0, e = 0;
    for (int u = 0; u < n; u++) {
        unsigned char kb[2];
        if (fread(kb, 1, 2, f) != 2) fail(path, "file is truncated");
        int k = kb[0] | kb[1] << 8;
        if (k > m - e) fail(path, "more edges than the header says");
        if (fread(rec, 6, (size_t)k, f) != (size_t)k) fail(path, "file is truncated");
        for (int i = 0; i < k; i++, e++) {
            const unsigned char *r = rec + 6 * i;
            uint32_t v = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 |
                         (uint32_t)r[3] << 24;
            if (v >= n32) fail(path, "edge endpoint out of range");
            eu[e] = u;
            ev[e] = (int)v;
            ew[e] = (uint64_t)(r[4] | r[5] << 8);
            self_loops += (u == (int)v);
        }
    }
    if (e != m) fail(path, "fewer edges than the header says");
    if (fgetc(f) != EOF) fail(path, "trailing bytes after the edge lists");
    fclose(f);
    free(rec);

    /* ---- adjacency lists (CSR), each entry = edge index ---- */
    int64_t *adj_off = xmalloc(((size_t)n + 1) * sizeof(int64_t));
    memset(adj_off, 0, ((size_t)n + 1) * sizeof(int64_t));
    for (int e = 0; e < m; e++) {
        if (eu[e] == ev[e]) continue;
        adj_off[eu[e] + 1]++;
        adj_off[ev[e] + 1]++;
    }
    for (int v = 0; v < n; v++) adj_off[v + 1] += adj_off[v];
    int *adj_e = xmalloc((size_t)adj_off[n] * sizeof(int));
    int *adj_v = xmalloc((size_t)adj_off[n] * sizeof(int));
    {
        int64_t *pos = xmalloc((size_t)n * sizeof(int64_t));
        memcpy(pos, adj_off, (size_t)n * sizeof(int64_t));
        for (int e = 0; e < m; e++) {
            int u = eu[e], v = ev[e];
            if (u == v) continue;
            adj_e[pos[u]] = e; adj_v[pos[u]++] = v;
            adj_e[pos[v]] = e; adj_v[pos[v]++] = u;
        }
        free(pos);
    }

    /* ---- scenarios ---- */
    graph_t g = { n, m, adj_off, adj_e, adj_v, eu, ev,
                  xmalloc((size_t)n * sizeof(int)), xmalloc((size_t)n * sizeof(int)),
                  xmalloc((size_t)n * sizeof(int)), xmalloc((size_t)n * sizeof(int)),
                  xmalloc((size_t)n * sizeof(int)) };
    uint64_t *sw = xmalloc((size_t)m * sizeof(uint64_t));
    int *mst = xmalloc((size_t)(n > 1 ? n - 1 : 1) * sizeof(int));
    int *base_mst = xmalloc((size_t)(n > 1 ? n - 1 : 1) * sizeof(int));
    unsigned char *in_base = xmalloc((size_t)m);       /* edge in forest of scenario 0 */
    unsigned char *in_all = xmalloc((size_t)m);        /* ... and in every scenario so far */
    memset(in_base, 0, (size_t)m);
    int n_mst = 0, rounds = 0, max_rounds = 0;
    uint64_t total_weight = 0;
    uint64_t wmin = UINT64_MAX, wmax = 0;
    int smin = 0, smax = 0;
    int64_t kept_sum = 0;
    int kept_min = INT32_MAX, kept_max = -1;

    for (int s = 0; s < scenarios; s++) {
        if (s == 0) {
            for (int e = 0; e < m; e++) sw[e] = ew[e];
        } else {
            #pragma omp parallel for
            for (int e = 0; e < m; e++) {
                uint64_t h = mix64(((uint64_t)s << 32) ^ (uint64_t)e);
                sw[e] = (uint64_t)ew[e] * (1000 + h % 1000) / 1000;
            }
        }
        int r;
        uint64_t wsum;
        int cnt = boruvka(&g, sw, mst, &r, &wsum);
        if (r > max_rounds) max_rounds = r;
        if (wsum < wmin) { wmin = wsum; smin = s; }
        if (wsum > wmax) { wmax = wsum; smax = s; }
        if (s == 0) {
            n_mst = cnt;
            rounds = r;
            total_weight = wsum;
            memcpy(base_mst, mst, (size_t)cnt * sizeof(int));
            for (int i = 0; i < cnt; i++) in_base[mst[i]] = 1;
            memcpy(in_all, in_base, (size_t)m);
        } else {
            int kept = 0;
            for (int i = 0; i < cnt; i++) {
                int e = mst[i];
                if (in_base[e]) {
                    kept++;
                    in_all[e] |= 2;     /* seen in this scenario */
                }
            }
            kept_sum += kept;
            if (kept < kept_min) kept_min = kept;
            if (kept > kept_max) kept_max = kept;
            for (int i = 0; i < n_mst; i++) {
                int e = base_mst[i];
                in_all[e] = (in_all[e] == 3);
            }
        }
    }
    int in_every = 0;
    for (int i = 0; i < n_mst; i++) in_every += in_all[base_mst[i]];

    /* ---- report ---- */
    /* tree sizes of the base forest (union-find over its edges) */
    int *parent = g.parent, *csize = g.csize;
    for (int v = 0; v < n; v++) { parent[v] = v; csize[v] = 1; }
    for (int i = 0; i < n_mst; i++) {
        int a = find_root(parent, eu[base_mst[i]]), b = find_root(parent, ev[base_mst[i]]);
        if (csize[a] < csize[b]) { int t = a; a = b; b = t; }
        parent[b] = a;
        csize[a] += csize[b];
    }
    int trees = n - n_mst, isolated = 0, largest = 0;
    for (int v = 0; v < n; v++) {
        if (parent[v] == v) {
            if (csize[v] == 1) isolated++;
            if (csize[v] > largest) largest = csize[v];
        }
    }
    int k = (int)topk < n_mst ? (int)topk : n_mst;
    int *top = xmalloc((size_t)(k > 0 ? k : 1) * sizeof(int));
    int ntop = 0;
    for (int i = 0; i < n_mst; i++) {
        int e = base_mst[i];
        int pos = ntop;
        while (pos > 0 && lighter(ew, top[pos - 1], e)) pos--;
        if (pos < k) {
            int last = ntop < k ? ntop : k - 1;
            for (int t = last; t > pos; t--) top[t] = top[t - 1];
            top[pos] = e;
            if (ntop < k) ntop++;
        }
    }

    printf("graph: %d vertices, %d edges (%d self-loops ignored)\n", n, m, self_loops);
    printf("Boruvka rounds: %d\n", rounds);
    printf("spanning forest: %d edges, %d trees (%d isolated vertices, largest tree %d vertices)\n",
           n_mst, trees, isolated, largest);
    printf("total weight: %llu\n", (unsigned long long)total_weight);
    printf("heaviest forest edges:\n");
    for (int t = 0; t < ntop; t++) {
        int e = top[t];
        printf("  edge %7d  %6d -- %-6d  weight %llu\n", e, eu[e], ev[e],
               (unsigned long long)ew[e]);
    }
    if (scenarios > 1) {
        printf("congestion scenarios: %d (at most %d rounds each)\n", scenarios, max_rounds);
        printf("  total weight: min %llu (scenario %d), max %llu (scenario %d)\n",
               (unsigned long long)wmin, smin, (unsigned long long)wmax, smax);
        printf("  base forest edges kept per scenario: min %d, mean %.1f, max %d\n",
               kept_min, (double)kept_sum / (scenarios - 1), kept_max);
        printf("  base forest edges kept in every scenario: %d of %d\n", in_every, n_mst);
    }

    free(top); free(mst); free(base_mst); free(in_base); free(in_all); free(sw);
    free(g.comp); free(g.parent); free(g.csize); free(g.vbest); free(g.cbest); free(adj_v); free(adj_e); free(adj_off); free(ew); free(ev); free(eu);
    return 0;
}
