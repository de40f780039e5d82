/*
 * grid_paths: answer a batch of start/goal queries on a grid map with A*.
 *
 * usage: grid_paths <map.txt> <queries.txt> <octile|manhattan>
 *
 * octile:    8-connected moves (no cutting of wall corners), cost 10 / 14
 * manhattan: 4-connected moves, cost 10
 * Path lengths are reported in cells (cost / 10).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int w, h;
    unsigned char *free;   /* 1 = floor, 0 = wall */
} map_t;

typedef struct { int sx, sy, gx, gy; } query_t;

typedef struct {
    int cost;       /* -1 if unreachable */
    long expanded;
} answer_t;

typedef struct { int f, h, node; } heap_item_t;

typedef struct {
    heap_item_t *a;
    int n, cap;
} heap_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <map.txt> <queries.txt> <octile|manhattan>\n", prog);
}

static int item_less(const heap_item_t *x, const heap_item_t *y)
{
    if (x->f != y->f)
        return x->f < y->f;
    if (x->h != y->h)
        return x->h < y->h;
    return x->node < y->node;
}

static void heap_push(heap_t *hp, heap_item_t it)
{
    if (hp->n == hp->cap) {
        hp->cap = hp->cap ? 2 * hp->cap : 1024;
        hp->a = realloc(hp->a, (size_t)hp->cap * sizeof *hp->a);
        if (!hp->a) {
            fprintf(stderr, "grid_paths: out of memory\n");
            exit(1);
        }
    }
    int i = hp->n++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!item_less(&it, &hp->a[parent]))
            break;
        hp->a[i] = hp->a[parent];
        i = parent;
    }
    hp->a[i] = it;
}

static heap_item_t heap_pop(heap_t *hp)
{
    heap_item_t top = hp->a[0];
    heap_item_t last = hp->a[--hp->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= hp->n)
            break;
        if (c + 1 < hp->n && item_less(&hp->a[c + 1], &hp->a[c]))
            c++;
        if (!item_less(&hp->a[c], &last))
            break;
        hp->a[i] = hp->a[c];
        i = c;
    }
    if (hp->n > 0)
        hp->a[i] = last;
    return top;
}

static int heuristic(int x, int y, int gx, int gy, int octile)
{
    int dx = abs(x - gx), dy = abs(y - gy);
    if (!octile)
        return 10 * (dx + dy);
    return dx > dy ? 10 * dx + 4 * dy : 10 * dy + 4 * dx;
}

/* Per-thread search state; "stamp" marks which query wrote an entry. */
typedef struct {
    int *g;
    int *g_stamp;
    int *closed_stamp;
    heap_t heap;
} search_t;

static void astar(const map_t *m, const query_t *q, int stamp, int octile,
                  search_t *s, answer_t *ans)
{
    static const int dx8[8] = { 1, -1, 0, 0, 1, 1, -1, -1 };
    static const int dy8[8] = { 0, 0, 1, -1, 1, -1, 1, -1 };
    int w = m->w;
    int start = q->sy * w + q->sx, goal = q->gy * w + q->gx;
    int ndir = octile ? 8 : 4;

    ans->cost = -1;
    ans->expanded = 0;
    s->heap.n = 0;
    s->g[start] = 0;
    s->g_stamp[start] = stamp;
    int h0 = heuristic(q->sx, q->sy, q->gx, q->gy, octile);
    heap_push(&s->heap, (heap_item_t){ h0, h0, start });

    while (s->heap.n > 0) {
        heap_item_t cur = heap_pop(&s->heap);
        int u = cur.node;
        if (s->closed_stamp[u] == stamp)
            continue;       /* stale entry */
        s->closed_stamp[u] = stamp;
        ans->expanded++;
        if (u == goal) {
            ans->cost = s->g[u];
            return;
        }
        int ux = u % w, uy = u / w;
        for (int d = 0; d < ndir; d++) {
            int vx = ux + dx8[d], vy = uy + dy8[d];
            if (vx < 0 || vy < 0 || vx >= w || vy >= m->h)
                continue;
            int v = vy * w + vx;
            if (!m->free[v] || s->closed_stamp[v] == stamp)
                continue;
            int step = 10;
            if (d >= 4) {
                /* diagonal: both orthogonal neighbours must be open */
                if (!m->free[uy * w + vx] || !m->free[vy * w + ux])
                    continue;
                step = 14;
            }
            int ng = s->g[u] + step;
            if (s->g_stamp[v] != stamp || ng < s->g[v]) {
                s->g_stamp[v] = stamp;
                s->g[v] = ng;
                int hv = heuristic(vx, vy, q->gx, q->gy, octile);
                heap_push(&s->heap, (heap_item_t){ ng + hv, hv, v });
            }
        }
    }
}

static int read_map(const char *path, map_t *m)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "grid_paths: cannot open '%s': %s\n", path, strerror(errno));
        return 0;
    }
    if (fscanf(f, "%d %d", &m->w, &m->h) != 2 || m->w < 1 || m->h < 1 ||
        m->w > 20000 || m->h > 20000) {
        fprintf(stderr, "grid_paths: '%s': bad map header\n", path);
        fclose(f);
        return 0;
    }
    m->free = malloc((size_t)m->w * m->h);
    char *line = malloc((size_t)m->w + 8);
    if (!m->free || !line) {
        fprintf(stderr, "grid_paths: out of memory\n");
        exit(1);
    }
    int c;
    while ((c = fgetc(f)) != '\n' && c != EOF)
        ;
    for (int y = 0; y < m->h; y++) {
        if (!fgets(line, m->w + 8, f) || (int)strcspn(line, "\r\n") != m->w) {
            fprintf(stderr, "grid_paths: '%s': row %d has the wrong length\n", path, y + 1);
            fclose(f);
            free(line);
            return 0;
        }
        for (int x = 0; x < m->w; x++) {
            if (line[x] != '.' && line[x] != '#') {
                fprintf(stderr, "grid_paths: '%s': bad character at row %d\n", path, y + 1);
                fclose(f);
                free(line);
                return 0;
            }
            m->free[y * m->w + x] = line[x] == '.';
        }
    }
    free(line);
    fclose(f);
    return 1;
}

static query_t *read_queries(const char *path, const map_t *m, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "grid_paths: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    int n;
    if (fscanf(f, "%d", &n) != 1 || n < 1 || n > 10000000) {
        fprintf(stderr, "grid_paths: '%s': bad query count\n", path);
        fclose(f);
        return NULL;
    }
    query_t *q = malloc((size_t)n * sizeof *q);
    if (!q) {
        fprintf(stderr, "grid_paths: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        if (fscanf(f, "%d %d %d %d", &q[i].sx, &q[i].sy, &q[i].gx, &q[i].gy) != 4 ||
            q[i].sx < 0 || q[i].sx >= m->w || q[i].gx < 0 || q[i].gx >= m->w ||
            q[i].sy < 0 || q[i].sy >= m->h || q[i].gy < 0 || q[i].gy >= m->h) {
            fprintf(stderr, "grid_paths: '%s': bad query on line %d\n", path, i + 2);
            fclose(f);
            free(q);
            return NULL;
        }
        if (!m->free[q[i].sy * m->w + q[i].sx] || !m->free[q[i].gy * m->w + q[i].gx]) {
            fprintf(stderr, "grid_paths: '%s': query on line %d starts or ends in a wall\n", path, i + 2);
            fclose(f);
            free(q);
            return NULL;
        }
    }
    fclose(f);
    *count = n;
    return q;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    int octile;
    if (strcmp(argv[3], "octile") == 0)
        octile = 1;
    else if (strcmp(argv[3], "manhattan") == 0)
        octile = 0;
    else {
        usage(argv[0]);
        return 2;
    }

    map_t map;
    if (!read_map(argv[1], &map))
        return 1;
    int nq;
    query_t *qs = read_queries(argv[2], &map, &nq);
    if (!qs)
        return 1;
    answer_t *ans = malloc((size_t)nq * sizeof *ans);
    size_t cells = (size_t)map.w * map.h;
    if (!ans) {
        fprintf(stderr, "grid_paths: out of memory\n");
        return 1;
    }

    #pragma omp parallel
    {
        search_t s;
        s.g = malloc(cells * sizeof(int));
        s.g_stamp = calloc(cells, sizeof(int));
        s.closed_stamp = calloc(cells, sizeof(int));
        s.heap.a = NULL;
        s.heap.n = s.heap.cap = 0;
        if (!s.g || !s.g_stamp || !s.closed_stamp) {
            fprintf(stderr, "grid_paths: out of memory\n");
            exit(1);
        }
        #pragma omp for
        for (int i = 0; i < nq; i++)
            astar(&map, &qs[i], i + 1, octile, &s, &ans[i]);
        free(s.heap.a);
        free(s.closed_stamp);
        free(s.g_stamp);
        free(s.g);
    }

    long floor_cells = 0;
    for (size_t i = 0; i < cells; i++)
        floor_cells += map.free[i];

    enum { NBINS = 8 };
    static const int bin_hi[NBINS] = { 50, 100, 200, 300, 400, 600, 800, 1 << 30 };
    long hist[NBINS] = { 0 };
    long unreachable = 0, expanded_sum = 0, cost_sum = 0;
    long expanded_reach = 0, expanded_unreach = 0;
    for (int i = 0; i < nq; i++) {
        expanded_sum += ans[i].expanded;
        if (ans[i].cost < 0) {
            unreachable++;
            expanded_unreach += ans[i].expanded;
            continue;
        }
        expanded_reach += ans[i].expanded;
        cost_sum += ans[i].cost;
        for (int b = 0; b < NBINS; b++)
            if (ans[i].cost <= 10L * bin_hi[b]) {
                hist[b]++;
                break;
            }
    }
    long reachable = nq - unreachable;

    printf("map %dx%d, %ld floor cells, %d queries, %s moves\n", map.w, map.h, floor_cells, nq,
           octile ? "8-way (octile)" : "4-way (manhattan)");
    printf("unreachable queries: %ld\n", unreachable);
    printf("mean path length: %.2f cells\n", reachable ? cost_sum / (10.0 * reachable) : 0.0);
    printf("mean expanded nodes: %.1f (reachable %.1f, unreachable %.1f)\n",
           (double)expanded_sum / nq,
           reachable ? (double)expanded_reach / reachable : 0.0,
           unreachable ? (double)expanded_unreach / unreachable : 0.0);

    /* Five longest paths; ties broken by query order. */
    int top[5], ntop = 0;
    for (int i = 0; i < nq; i++) {
        if (ans[i].cost < 0)
            continue;
        int pos = ntop;
        while (pos > 0 && ans[top[pos - 1]].cost < ans[i].cost)
            pos--;
        if (pos >= 5)
            continue;
        if (ntop < 5)
            ntop++;
        for (int j = ntop - 1; j > pos; j--)
            top[j] = top[j - 1];
        top[pos] = i;
    }
    printf("longest paths:\n");
    for (int t = 0; t < ntop; t++) {
        const query_t *q = &qs[top[t]];
        printf("  query %3d  (%d,%d) -> (%d,%d)  length %.1f  expanded %ld\n", top[t] + 1,
               q->sx, q->sy, q->gx, q->gy, ans[top[t]].cost / 10.0, ans[top[t]].expanded);
    }
    printf("path length histogram (cells):\n");
    int lo = 0;
    for (int b = 0; b < NBINS; b++) {
        if (b == NBINS - 1)
            printf("  %4d+      %4ld\n", lo, hist[b]);
        else
            printf("  %4d-%-4d  %4ld\n", lo, bin_hi[b], hist[b]);
        lo = bin_hi[b] + 1;
    }

    free(ans);
    free(qs);
    free(map.free);
    return 0;
}
