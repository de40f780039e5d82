/*
 * flow_accum: D8 flow routing and flow accumulation on a digital elevation model.
 *
 * Usage: flow_accum <dem file>
 *
 * The DEM file holds the magic "DEM1", little-endian uint32 width and height,
 * then width*height little-endian uint16 heights.  Pits and flats are removed
 * with a sequential priority-flood (each filled cell is raised one unit above
 * the cell it was reached from), every cell then gets a D8 direction towards
 * its steepest lower neighbour (in parallel), and flow accumulation is done in
 * topological order: cells are grouped by their depth in the flow tree and each
 * level, deepest first, is one parallel loop.  The same sweep routes the
 * hourly runoff of a synthetic storm, giving each catchment's hydrograph.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <omp.h>

#define NBINS 24
#define HOURS 48   /* length of the simulated storm */

/* Two storm cells crossing the map: centre path, radius (cells), peak (0.1 mm/h). */
static const double STORM[2][6] = {
    /* x0, y0, x1, y1, radius, peak */
    {-100.0, 150.0, 800.0, 450.0, 140.0, 420.0},
    {600.0, -80.0, 150.0, 780.0, 90.0, 650.0},
};

/* Runoff of a cell in one hour, in 0.1 mm: rainfall less 2 mm of infiltration. */
static int32_t runoff(int x, int y, int hour)
{
    double f = (hour + 0.5) / HOURS, rain = 0.0;
    for (int s = 0; s < 2; s++) {
        double cx = STORM[s][0] + f * (STORM[s][2] - STORM[s][0]);
        double cy = STORM[s][1] + f * (STORM[s][3] - STORM[s][1]);
        double dx = x - cx, dy = y - cy, r = STORM[s][4];
        rain += STORM[s][5] * exp(-(dx * dx + dy * dy) / (r * r));
    }
    int32_t q = (int32_t)rain - 20;
    return q > 0 ? q : 0;
}

static const int DX[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const int DY[8] = {0, 1, 1, 1, 0, -1, -1, -1};
/* drop is scaled by 1000/distance: 1000 for edges, 707 for diagonals */
static const int DW[8] = {1000, 707, 1000, 707, 1000, 707, 1000, 707};

static int W, H;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "flow_accum: out of memory\n");
        exit(1);
    }
    return p;
}

static uint16_t *read_dem(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "flow_accum: cannot open %s\n", path);
        exit(1);
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "DEM1", 4) != 0) {
        fprintf(stderr, "flow_accum: %s: not a DEM1 file\n", path);
        exit(1);
    }
    uint32_t w = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (uint32_t)hdr[7] << 24;
    uint32_t h = hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (uint32_t)hdr[11] << 24;
    if (w < 3 || h < 3 || w > 20000 || h > 20000) {
        fprintf(stderr, "flow_accum: %s: bad dimensions %ux%u\n", path, w, h);
        exit(1);
    }
    W = (int)w;
    H = (int)h;
    size_t n = (size_t)W * H;
    unsigned char *raw = xmalloc(2 * n);
    if (fread(raw, 1, 2 * n, f) != 2 * n || fgetc(f) != EOF) {
        fprintf(stderr, "flow_accum: %s: wrong file size for %dx%d\n", path, W, H);
        exit(1);
    }
    fclose(f);
    uint16_t *z = xmalloc(n * sizeof *z);
    for (size_t i = 0; i < n; i++)
        z[i] = (uint16_t)(raw[2 * i] | raw[2 * i + 1] << 8);
    free(raw);
    return z;
}

/* ---- binary min-heap of 64-bit keys (height << 32 | cell) ---- */
typedef struct {
    uint64_t *a;
    size_t n;
} heap_t;

static void heap_push(heap_t *hp, uint64_t k)
{
    size_t i = hp->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (hp->a[p] <= k)
            break;
        hp->a[i] = hp->a[p];
        i = p;
    }
    hp->a[i] = k;
}

static uint64_t heap_pop(heap_t *hp)
{
    uint64_t top = hp->a[0];
    uint64_t k = hp->a[--hp->n];
    size_t i = 0, n = hp->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && hp->a[c + 1] < hp->a[c])
            c++;
        if (hp->a[c] >= k)
            break;
        hp->a[i] = hp->a[c];
        i = c;
    }
    hp->a[i] = k;
    return top;
}

/* Priority-flood from the map edge; returns the number of raised cells. */
static long fill_pits(const uint16_t *dem, int32_t *z)
{
    size_t n = (size_t)W * H;
    unsigned char *closed = calloc(n, 1);
    heap_t hp = {xmalloc(n * sizeof(uint64_t)), 0};
    if (!closed) {
        fprintf(stderr, "flow_accum: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++)
        z[i] = dem[i];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (x == 0 || y == 0 || x == W - 1 || y == H - 1) {
                size_t c = (size_t)y * W + x;
                closed[c] = 1;
                heap_push(&hp, (uint64_t)z[c] << 32 | c);
            }
    long raised = 0;
    while (hp.n) {
        uint64_t k = heap_pop(&hp);
        int c = (int)(k & 0xffffffffu);
        int cx = c % W, cy = c / W;
        for (int d = 0; d < 8; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (nx < 0 || ny < 0 || nx >= W || ny >= H)
                continue;
            int nb = ny * W + nx;
            if (closed[nb])
                continue;
            closed[nb] = 1;
            if (z[nb] <= z[c]) {
                z[nb] = z[c] + 1;
                raised++;
            }
            heap_push(&hp, (uint64_t)z[nb] << 32 | (uint32_t)nb);
        }
    }
    free(hp.a);
    free(closed);
    return raised;
}

typedef struct {
    int cell;
    int32_t area;
    int32_t length;
} outlet_t;

static int cmp_outlet(const void *a, const void *b)
{
    const outlet_t *p = a, *q = b;
    if (p->area != q->area)
        return p->area > q->area ? -1 : 1;
    return (p->cell > q->cell) - (p->cell < q->cell);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <dem file>\n", argv[0]);
        return 2;
    }
    uint16_t *dem = read_dem(argv[1]);
    int n = W * H;
    int32_t *z = xmalloc((size_t)n * sizeof *z);
    long raised = fill_pits(dem, z);

    /* D8 directions: downstream cell index, -1 for an outlet */
    int32_t *down = xmalloc((size_t)n * sizeof *down);
    long outlets = 0;
#pragma omp parallel for reduction(+ : outlets)
    for (int c = 0; c < n; c++) {
        int cx = c % W, cy = c / W;
        long best = 0;
        int target = -1;
        for (int d = 0; d < 8; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (nx < 0 || ny < 0 || nx >= W || ny >= H)
                continue;
            int nb = ny * W + nx;
            long drop = (long)(z[c] - z[nb]) * DW[d];
            if (drop > best) {
                best = drop;
                target = nb;
            }
        }
        down[c] = target;
        if (target < 0)
            outlets++;
    }

    /* Breadth-first walk up the flow trees from the outlets: the visiting
     * order groups the cells by their depth below the outlet. */
    int32_t *order = xmalloc((size_t)n * sizeof *order);
    int32_t *lstart = xmalloc(((size_t)n + 2) * sizeof *lstart);
    int head = 0, tail = 0, nlev = 0;
    for (int c = 0; c < n; c++)
        if (down[c] < 0)
            order[tail++] = c;
    lstart[nlev++] = 0;
    int level_end = tail;
    while (head < tail) {
        int c = order[head++];
        int cx = c % W, cy = c / W;
        for (int d = 0; d < 8; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (nx < 0 || ny < 0 || nx >= W || ny >= H)
                continue;
            int nb = ny * W + nx;
            if (down[nb] == c)
                order[tail++] = nb;
        }
        if (head == level_end && head < tail) {
            lstart[nlev++] = head;
            level_end = tail;
        }
    }
    lstart[nlev] = tail;
    if (tail != n) {
        fprintf(stderr, "flow_accum: flow network has a cycle\n");
        return 1;
    }

    /* Accumulation, deepest level first: each cell gathers from the
     * neighbours that drain into it (all one level deeper, already done). */
    int32_t *acc = xmalloc((size_t)n * sizeof *acc);
    int32_t *flen = xmalloc((size_t)n * sizeof *flen);
    int64_t *relief = xmalloc((size_t)n * sizeof *relief);
    int32_t *flow = xmalloc((size_t)n * HOURS * sizeof *flow);
    for (int lv = nlev - 1; lv >= 0; lv--) {
        int lo = lstart[lv], hi = lstart[lv + 1];
#pragma omp parallel for
        for (int i = lo; i < hi; i++) {
            int c = order[i];
            int cx = c % W, cy = c / W;
            int32_t a = 1, len = 0;
            int64_t rel = dem[c];
            int32_t *q = flow + (size_t)c * HOURS;
            for (int t = 0; t < HOURS; t++)
                q[t] = runoff(cx, cy, t);
            for (int d = 0; d < 8; d++) {
                int nx = cx + DX[d], ny = cy + DY[d];
                if (nx < 0 || ny < 0 || nx >= W || ny >= H)
                    continue;
                int nb = ny * W + nx;
                if (down[nb] != c)
                    continue;
                a += acc[nb];
                const int32_t *qn = flow + (size_t)nb * HOURS;
                for (int t = 0; t < HOURS; t++)
                    q[t] += qn[t];
                rel += relief[nb];
                if (flen[nb] + 1 > len)
                    len = flen[nb] + 1;
            }
            acc[c] = a;
            flen[c] = len;
            relief[c] = rel;
        }
    }

    /* histogram of accumulation values in powers of two */
    long hist[NBINS];
    memset(hist, 0, sizeof hist);
#pragma omp parallel for reduction(+ : hist[:NBINS])
    for (int c = 0; c < n; c++) {
        int b = 0;
        uint32_t a = (uint32_t)acc[c];
        while (a > 1 && b < NBINS - 1) {
            a >>= 1;
            b++;
        }
        hist[b]++;
    }

    outlet_t *out = xmalloc((size_t)outlets * sizeof *out);
    int no = 0;
    for (int c = 0; c < n; c++)
        if (down[c] < 0)
            out[no++] = (outlet_t){c, acc[c], flen[c]};
    qsort(out, (size_t)no, sizeof *out, cmp_outlet);

    printf("DEM %d x %d, %ld cells raised by pit filling\n", W, H, raised);
    printf("outlets: %ld, flow-tree levels: %d\n", outlets, nlev);
    printf("largest catchments:\n");
    printf("  rank  outlet(x,y)   cells  share%%  longest path  mean height  peak hour  peak runoff mm\n");
    for (int i = 0; i < no && i < 10; i++) {
        int c = out[i].cell;
        long share = (long)out[i].area * 10000 / n;
        long mean10 = (long)(relief[c] * 10 / out[i].area);
        const int32_t *q = flow + (size_t)c * HOURS;
        int peak = 0;
        for (int t = 1; t < HOURS; t++)
            if (q[t] > q[peak])
                peak = t;
        long mm100 = (long)q[peak] * 10 / out[i].area;
        printf("  %4d  (%3d,%3d)  %7d  %3ld.%02ld  %12d  %9ld.%ld  %9d  %11ld.%02ld\n", i + 1,
               c % W, c / W, out[i].area, share / 100, share % 100, out[i].length, mean10 / 10,
               mean10 % 10, peak + 1, mm100 / 100, mm100 % 100);
    }
    printf("accumulation histogram (cells draining through each cell):\n");
    int last = 0;
    for (int b = 0; b < NBINS; b++)
        if (hist[b])
            last = b;
    for (int b = 0; b <= last; b++)
        printf("  %8ld..%-8ld %8ld\n", 1L << b, (2L << b) - 1, hist[b]);

    free(out);
    free(flow);
    free(relief);
    free(flen);
    free(acc);
    free(lstart);
    free(order);
    free(down);
    free(z);
    free(dem);
    return 0;
}
