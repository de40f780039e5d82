/*
 * astar_queries: answers many independent shortest-path queries on a
 * weighted grid map with A*.
 *
 * usage: astar_queries MAP QUERIES
 *
 * MAP is "MAP1", uint32 width, uint32 height (little endian), then one byte
 * per cell, row by row: 0 = wall, 1..9 = cost of stepping onto the cell.
 * QUERIES is a text file: the number of queries, then "sx sy gx gy" per
 * query.  Moves go to the 4 neighbours; the heuristic is the Manhattan
 * distance times the cheapest cell cost on the map.  Prints the cost of
 * every query (-1 when the goal cannot be reached) and a summary of the
 * number of expanded nodes.
 */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int w, h;
    unsigned char *cell;
} Map;

typedef struct {
    int sx, sy, gx, gy;
} Query;

typedef struct {
    int f, g, node;
} HeapItem;

/* per-thread search state, reused across queries */
typedef struct {
    int *g;            /* best known cost, valid where seen[] == stamp */
    unsigned *seen;    /* query stamp of the last visit */
    unsigned *closed;  /* query stamp of the last expansion */
    HeapItem *heap;
    size_t heap_n, heap_cap;
} Workspace;

static uint32_t rd_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static int load_map(const char *path, Map *m)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "astar_queries: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "MAP1", 4) != 0) {
        fprintf(stderr, "astar_queries: %s: not a map file\n", path);
        fclose(f);
        return -1;
    }
    uint32_t w = rd_u32(hdr + 4), h = rd_u32(hdr + 8);
    if (w < 1 || h < 1 || w > 8192 || h > 8192) {
        fprintf(stderr, "astar_queries: %s: bad map size %ux%u\n", path, w, h);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)w * h;
    m->cell = malloc(n);
    if (!m->cell) {
        fprintf(stderr, "astar_queries: out of memory\n");
        fclose(f);
        return -1;
    }
    size_t got = fread(m->cell, 1, n, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != n || extra != EOF) {
        fprintf(stderr, "astar_queries: %s: cell data has wrong size\n", path);
        free(m->cell);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (m->cell[i] > 9) {
            fprintf(stderr, "astar_queries: %s: cell %zu has invalid cost %d\n", path, i,
                    m->cell[i]);
            free(m->cell);
            return -1;
        }
    }
    m->w = (int)w;
    m->h = (int)h;
    return 0;
}

static Query *load_queries(const char *path, const Map *m, int *nq_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "astar_queries: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int nq;
    if (fscanf(f, "%d", &nq) != 1 || nq < 1 || nq > 1000000) {
        fprintf(stderr, "astar_queries: %s: bad query count\n", path);
        fclose(f);
        return NULL;
    }
    Query *q = malloc((size_t)nq * sizeof(Query));
    if (!q) {
        fprintf(stderr, "astar_queries: out of memory\n");
        fclose(f);
        return NULL;
    }
    for (int i = 0; i < nq; i++) {
        Query *p = &q[i];
        if (fscanf(f, "%d %d %d %d", &p->sx, &p->sy, &p->gx, &p->gy) != 4) {
            fprintf(stderr, "astar_queries: %s: query %d is missing or malformed\n", path, i);
            fclose(f);
            free(q);
            return NULL;
        }
        if (p->sx < 0 || p->sx >= m->w || p->gx < 0 || p->gx >= m->w || p->sy < 0 ||
            p->sy >= m->h || p->gy < 0 || p->gy >= m->h) {
            fprintf(stderr, "astar_queries: %s: query %d lies outside the %dx%d map\n", path, i,
                    m->w, m->h);
            fclose(f);
            free(q);
            return NULL;
        }
    }
    char tail[2];
    if (fscanf(f, " %1s", tail) == 1) {
        fprintf(stderr, "astar_queries: %s: unexpected data after %d queries\n", path, nq);
        fclose(f);
        free(q);
        return NULL;
    }
    fclose(f);
    *nq_out = nq;
    return q;
}

/* heap order: smaller f first, then larger g (deeper), then smaller node */
static int item_less(const HeapItem *a, const HeapItem *b)
{
    if (a->f != b->f)
        return a->f < b->f;
    if (a->g != b->g)
        return a->g > b->g;
    return a->node < b->node;
}

static void heap_push(Workspace *ws, HeapItem it)
{
    if (ws->heap_n == ws->heap_cap) {
        size_t cap = ws->heap_cap ? 2 * ws->heap_cap : 4096;
        HeapItem *nh = realloc(ws->heap, cap * sizeof(HeapItem));
        if (!nh) {
            fprintf(stderr, "astar_queries: out of memory\n");
            exit(1);
        }
        ws->heap = nh;
        ws->heap_cap = cap;
    }
    size_t i = ws->heap_n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!item_less(&it, &ws->heap[parent]))
            break;
        ws->heap[i] = ws->heap[parent];
        i = parent;
    }
    ws->heap[i] = it;
}

static HeapItem heap_pop(Workspace *ws)
{
    HeapItem top = ws->heap[0];
    HeapItem last = ws->heap[--ws->heap_n];
    size_t n = ws->heap_n, i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && item_less(&ws->heap[c + 1], &ws->heap[c]))
            c++;
        if (!item_less(&ws->heap[c], &last))
            break;
        ws->heap[i] = ws->heap[c];
        i = c;
    }
    if (n > 0)
        ws->heap[i] = last;
    return top;
}

/* A* from s to t; returns the path cost or -1, and the number of expansions */
static int astar(const Map *m, int hscale, Workspace *ws, unsigned stamp, const Query *q,
                 long *expanded)
{
    const int w = m->w, h = m->h;
    const int start = q->sy * w + q->sx, goal = q->gy * w + q->gx;
    *expanded = 0;
    if (m->cell[start] == 0 || m->cell[goal] == 0)
        return -1;

    ws->heap_n = 0;
    ws->g[start] = 0;
    ws->seen[start] = stamp;
    heap_push(ws, (HeapItem){hscale * (abs(q->sx - q->gx) + abs(q->sy - q->gy)), 0, start});

    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    while (ws->heap_n > 0) {
        HeapItem cur = heap_pop(ws);
        int u = cur.node;
        if (ws->closed[u] == stamp || cur.g != ws->g[u])
            continue; /* stale entry */
        ws->closed[u] = stamp;
        (*expanded)++;
        if (u == goal)
            return cur.g;
        int ux = u % w, uy = u / w;
        for (int d = 0; d < 4; d++) {
            int vx = ux + dx[d], vy = uy + dy[d];
            if (vx < 0 || vx >= w || vy < 0 || vy >= h)
                continue;
            int v = vy * w + vx;
            int c = m->cell[v];
            if (c == 0 || ws->closed[v] == stamp)
                continue;
            int ng = cur.g + c;
            if (ws->seen[v] != stamp || ng < ws->g[v]) {
                ws->seen[v] = stamp;
                ws->g[v] = ng;
                int hv = hscale * (abs(vx - q->gx) + abs(vy - q->gy));
                heap_push(ws, (HeapItem){ng + hv, ng, v});
            }
        }
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s MAP QUERIES\n", argv[0]);
        return 2;
    }
    Map m;
    if (load_map(argv[1], &m) != 0)
        return 1;
    int nq;
    Query *q = load_queries(argv[2], &m, &nq);
    if (!q)
        return 1;

    /* cheapest passable cell keeps the heuristic admissible */
    int hscale = 9, walls = 0;
    size_t ncell = (size_t)m.w * m.h;
    for (size_t i = 0; i < ncell; i++) {
        if (m.cell[i] == 0)
            walls++;
        else if (m.cell[i] < hscale)
            hscale = m.cell[i];
    }

    int nthreads = omp_get_max_threads();
    Workspace *ws = calloc((size_t)nthreads, sizeof(Workspace));
    if (!ws) {
        fprintf(stderr, "astar_queries: out of memory\n");
        return 1;
    }
    for (int t = 0; t < nthreads; t++) {
        ws[t].g = malloc(ncell * sizeof(int));
        ws[t].seen = calloc(ncell, sizeof(unsigned));
        ws[t].closed = calloc(ncell, sizeof(unsigned));
        if (!ws[t].g || !ws[t].seen || !ws[t].closed) {
            fprintf(stderr, "astar_queries: out of memory\n");
            return 1;
        }
    }

    int *cost = malloc((size_t)nq * sizeof(int));
    long *exp = malloc((size_t)nq * sizeof(long));
    if (!cost || !exp) {
        fprintf(stderr, "astar_queries: out of memory\n");
        return 1;
    }

#pragma omp parallel for
    for (int i = 0; i < nq; i++) {
        Workspace *mine = &ws[omp_get_thread_num()];
        cost[i] = astar(&m, hscale, mine, (unsigned)i + 1, &q[i], &exp[i]);
    }

    printf("map %dx%d, %d walls, cheapest cell %d; %d queries\n", m.w, m.h, walls, hscale, nq);
    for (int i = 0; i < nq; i += 10) {
        printf("q%03d-%03d:", i, i + 9 < nq ? i + 9 : nq - 1);
        for (int j = i; j < i + 10 && j < nq; j++)
            printf(" %6d", cost[j]);
        printf("\n");
    }

    long total = 0, reached = 0, sum_cost = 0;
    int imin = 0, imax = 0;
    for (int i = 0; i < nq; i++) {
        total += exp[i];
        if (exp[i] < exp[imin])
            imin = i;
        if (exp[i] > exp[imax])
            imax = i;
        if (cost[i] >= 0) {
            reached++;
            sum_cost += cost[i];
        }
    }
    printf("reachable %ld of %d, mean cost %.2f\n", reached, nq,
           reached ? (double)sum_cost / reached : 0.0);
    printf("expanded nodes: total %ld, min %ld (query %d), max %ld (query %d), mean %.1f\n",
           total, exp[imin], imin, exp[imax], imax, (double)total / nq);

    for (int t = 0; t < nthreads; t++) {
        free(ws[t].g);
        free(ws[t].seen);
        free(ws[t].closed);
        free(ws[t].heap);
    }
    free(ws);
    free(cost);
    free(exp);
    free(q);
    free(m.cell);
    return 0;
}
