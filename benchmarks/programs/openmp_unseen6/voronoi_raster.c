/*
 * voronoi_raster - rasterise a (weighted) Voronoi diagram and measure its regions.
 *
 * Reads a grid size and a list of sites (x, y, weight), labels every cell of
 * the grid with its nearest site and reports region statistics.  Distances
 * are plain Euclidean, or additively weighted (d(p, s) = |p - s| - w_s, the
 * Apollonius diagram), where a heavy site can swallow the regions of light
 * neighbours.  The nearest site is found through a coarse bucket grid that is
 * searched ring by ring around the cell until no unvisited bucket can hold a
 * closer site.  Ties go to the site listed first.
 *
 * usage: voronoi_raster SITES.txt [plain|weighted] [BUCKET_SIZE]
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_REGIONS 10
#define MAX_SITES 1000000

typedef struct {
    double x, y, w;
} site_t;

typedef struct {
    int bw, bh;        /* buckets across and down  */
    double size;       /* bucket side in cells     */
    int *start;        /* bw*bh+1 offsets into idx */
    int *idx;          /* site indices, ascending within a bucket */
    double *wmax;      /* largest weight per bucket */
} buckets_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s SITES.txt [plain|weighted (default weighted)] "
                    "[BUCKET_SIZE (cells, 4..1000, default 32)]\n", prog);
}

static int next_line(FILE *f, char *buf, int size, int *lineno)
{
    while (fgets(buf, size, f)) {
        (*lineno)++;
        char *p = buf;
        while (isspace((unsigned char)*p))
            p++;
        if (*p && *p != '#')
            return 1;
    }
    return 0;
}

static int cmp_desc_int(const void *a, const void *b, const int *key)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (key[x] != key[y])
        return key[x] > key[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static const int *sort_key;
static int cmp_region(const void *a, const void *b)
{
    return cmp_desc_int(a, b, sort_key);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int weighted = 1;
    double bsize = 32.0;
    if (argc > 2) {
        if (!strcmp(argv[2], "plain")) {
            weighted = 0;
        } else if (strcmp(argv[2], "weighted")) {
            usage(argv[0]);
            return 2;
        }
    }
    if (argc > 3) {
        char *end;
        long v = strtol(argv[3], &end, 10);
        if (*end || v < 4 || v > 1000) {
            usage(argv[0]);
            return 2;
        }
        bsize = (double)v;
    }

    /* ---- read sites ---- */
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "voronoi_raster: cannot open '%s'\n", argv[1]);
        return 1;
    }
    char line[256], extra;
    int lineno = 0, W, H, n;
    if (!next_line(f, line, sizeof line, &lineno) ||
        sscanf(line, "grid %d %d %c", &W, &H, &extra) != 2 || W < 2 || H < 2 || W > 20000 ||
        H > 20000) {
        fprintf(stderr, "voronoi_raster: %s:%d: expected \"grid WIDTH HEIGHT\"\n", argv[1], lineno);
        fclose(f);
        return 1;
    }
    if (!next_line(f, line, sizeof line, &lineno) ||
        sscanf(line, "sites %d %c", &n, &extra) != 1 || n < 1 || n > MAX_SITES) {
        fprintf(stderr, "voronoi_raster: %s:%d: expected \"sites N\" (1..%d)\n", argv[1], lineno,
                MAX_SITES);
        fclose(f);
        return 1;
    }
    site_t *s = malloc((size_t)n * sizeof(site_t));
    for (int i = 0; i < n; i++) {
        if (!next_line(f, line, sizeof line, &lineno)) {
            fprintf(stderr, "voronoi_raster: %s: unexpected end of file after line %d "
                            "(%d of %d sites read)\n", argv[1], lineno, i, n);
            fclose(f);
            return 1;
        }
        if (sscanf(line, "%lf %lf %lf %c", &s[i].x, &s[i].y, &s[i].w, &extra) != 3 ||
            !(s[i].x >= 0.0 && s[i].x < W && s[i].y >= 0.0 && s[i].y < H) ||
            !(s[i].w >= 0.0 && s[i].w < 1e6)) {
            fprintf(stderr, "voronoi_raster: %s:%d: expected \"x y weight\" inside the grid, "
                            "weight >= 0\n", argv[1], lineno);
            fclose(f);
            return 1;
        }
        if (!weighted)
            s[i].w = 0.0;
    }
    fclose(f);

    /* ---- bucket grid ---- */
    buckets_t bk;
    bk.size = bsize;
    bk.bw = (int)ceil(W / bsize);
    bk.bh = (int)ceil(H / bsize);
    int nb = bk.bw * bk.bh;
    bk.start = calloc((size_t)nb + 1, sizeof(int));
    bk.idx = malloc((size_t)n * sizeof(int));
    bk.wmax = calloc((size_t)nb, sizeof(double));
    int *home = malloc((size_t)n * sizeof(int));
    double wmax = 0.0;
    for (int i = 0; i < n; i++) {
        int bx = (int)(s[i].x / bsize), by = (int)(s[i].y / bsize);
        home[i] = by * bk.bw + bx;
        bk.start[home[i] + 1]++;
        if (s[i].w > bk.wmax[home[i]])
            bk.wmax[home[i]] = s[i].w;
        if (s[i].w > wmax)
            wmax = s[i].w;
    }
    for (int b = 0; b < nb; b++)
        bk.start[b + 1] += bk.start[b];
    {
        int *fill = malloc((size_t)nb * sizeof(int));
        memcpy(fill, bk.start, (size_t)nb * sizeof(int));
        for (int i = 0; i < n; i++)
            bk.idx[fill[home[i]]++] = i;
        free(fill);
    }

    /* ---- label every cell ---- */
    const size_t ncells = (size_t)W * H;
    int *label = malloc(ncells * sizeof(int));
    long long evaluations = 0;
    if (!label) {
        fprintf(stderr, "voronoi_raster: out of memory\n");
        return 1;
    }

    #pragma omp parallel for reduction(+:evaluations)
    for (int y = 0; y < H; y++) {
        double py = y + 0.5;
        int by = (int)(py / bsize);
        for (int x = 0; x < W; x++) {
            double px = x + 0.5;
            int bx = (int)(px / bsize);
            double best = INFINITY;
            int arg = -1;
            for (int r = 0;; r++) {
                /* visit the ring of buckets at Chebyshev distance r */
                for (int j = by - r; j <= by + r; j++) {
                    if (j < 0 || j >= bk.bh)
                        continue;
                    int edge_row = (j == by - r || j == by + r);
                    for (int i = bx - r; i <= bx + r; i += edge_row ? 1 : 2 * r) {
                        if (i >= 0 && i < bk.bw) {
                            int b = j * bk.bw + i;
                            if (bk.start[b] != bk.start[b + 1]) {
                                /* nearest point of the bucket to the cell */
                                double qx = fmin(fmax(px, i * bsize), (i + 1) * bsize);
                                double qy = fmin(fmax(py, j * bsize), (j + 1) * bsize);
                                double lo = sqrt((qx - px) * (qx - px) + (qy - py) * (qy - py));
                                if (lo - bk.wmax[b] <= best) {
                                    for (int k = bk.start[b]; k < bk.start[b + 1]; k++) {
                                        int id = bk.idx[k];
                                        double dx = s[id].x - px, dy = s[id].y - py;
                                        double d = sqrt(dx * dx + dy * dy) - s[id].w;
                                        evaluations++;
                                        if (d < best || (d == best && id < arg)) {
                                            best = d;
                                            arg = id;
                                        }
                                    }
                                }
                            }
                        }
                        if (r == 0)
                            break;
                    }
                }
                /* every unvisited site lies outside the (2r+1)^2 block */
                double gap = fmin(fmin(px - (bx - r) * bsize, (bx + r + 1) * bsize - px),
                                  fmin(py - (by - r) * bsize, (by + r + 1) * bsize - py));
                if (gap - wmax > best)
                    break;
                if (bx - r <= 0 && by - r <= 0 && bx + r >= bk.bw - 1 && by + r >= bk.bh - 1)
                    break;
            }
            label[(size_t)y * W + x] = arg;
        }
    }

    /* ---- region measurements ---- */
    long long *area = calloc((size_t)n, sizeof(long long));
    long long *crack = calloc((size_t)n, sizeof(long long)); /* boundary edges of cells */
    long long *sx = calloc((size_t)n, sizeof(long long));
    long long *sy = calloc((size_t)n, sizeof(long long));
    int *frame = calloc((size_t)n, sizeof(int)); /* cell edges on the grid frame */

    #pragma omp parallel for reduction(+:area[:n], crack[:n], sx[:n], sy[:n])
    for (int y = 0; y < H; y++) {
        const int *row = label + (size_t)y * W;
        for (int x = 0; x < W; x++) {
            int l = row[x];
            area[l]++;
            sx[l] += x;
            sy[l] += y;
            if (x + 1 < W && row[x + 1] != l) {
                crack[l]++;
                crack[row[x + 1]]++;
            }
            if (y + 1 < H && row[x + W] != l) {
                crack[l]++;
                crack[row[x + W]]++;
            }
        }
    }
    for (int x = 0; x < W; x++) {
        frame[label[x]]++;
        frame[label[(size_t)(H - 1) * W + x]]++;
    }
    for (int y = 0; y < H; y++) {
        frame[label[(size_t)y * W]]++;
        frame[label[(size_t)y * W + W - 1]]++;
    }

    /* ---- report ---- */
    int nonempty = 0, on_border = 0;
    long long amin = -1, amax = 0;
    double mean_q = 0.0;
    int *areas = malloc((size_t)n * sizeof(int));
    int *order = malloc((size_t)n * sizeof(int));
    int *key = malloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; i++) {
        order[i] = i;
        key[i] = (int)area[i];
        if (!area[i])
            continue;
        areas[nonempty++] = (int)area[i];
        on_border += frame[i] > 0;
        if (amin < 0 || area[i] < amin)
            amin = area[i];
        if (area[i] > amax)
            amax = area[i];
        if (!frame[i]) {
            double p = M_PI / 4.0 * crack[i];
            mean_q += 4.0 * M_PI * area[i] / (p * p);
        }
    }
    qsort(areas, (size_t)nonempty, sizeof(int), cmp_int);
    double mean = (double)ncells / nonempty, var = 0.0;
    for (int k = 0; k < nonempty; k++)
        var += (areas[k] - mean) * (areas[k] - mean);
    var /= nonempty;
    long long total_crack = 0;
    for (int i = 0; i < n; i++)
        total_crack += crack[i];
    sort_key = key;
    qsort(order, (size_t)n, sizeof(int), cmp_region);

    printf("grid %d x %d, %d sites, %s distance, buckets %d x %d of %.0f cells\n", W, H, n,
           weighted ? "additively weighted" : "plain", bk.bw, bk.bh, bsize);
    printf("site distance evaluations: %lld (%.1f per cell)\n", evaluations,
           (double)evaluations / ncells);
    printf("non-empty regions: %d, swallowed sites: %d, regions touching the frame: %d\n",
           nonempty, n - nonempty, on_border);
    printf("region area: min %lld, median %d, mean %.1f, max %lld, std dev %.1f cells\n", amin,
           areas[nonempty / 2], mean, amax, sqrt(var));
    printf("total boundary length: %.0f cells (%lld cell edges, x pi/4)\n",
           M_PI / 4.0 * total_crack / 2.0, total_crack / 2);
    printf("mean isoperimetric quotient of inner regions: %.3f\n",
           nonempty - on_border > 0 ? mean_q / (nonempty - on_border) : 0.0);
    printf("largest regions:\n");
    printf("  site         x        y  weight     area  perimeter  4piA/P^2  centroid shift\n");
    for (int k = 0; k < TOP_REGIONS && k < n; k++) {
        int i = order[k];
        if (!area[i])
            break;
        /* boundary cell edges are a staircase: pi/4 turns their count into a length
           for curves of random direction; frame edges are straight */
        double p = M_PI / 4.0 * crack[i] + frame[i];
        double cx = (double)sx[i] / area[i] + 0.5, cy = (double)sy[i] / area[i] + 0.5;
        printf("  %4d  %8.2f %8.2f  %6.2f  %7lld  %9.1f  %8.3f  %8.1f%s\n", i + 1, s[i].x, s[i].y,
               s[i].w, area[i], p, 4.0 * M_PI * area[i] / (p * p),
               hypot(cx - s[i].x, cy - s[i].y), frame[i] ? "  (frame)" : "");
    }

    free(s);
    free(bk.start);
    free(bk.idx);
    free(bk.wmax);
    free(home);
    free(label);
    free(area);
    free(crack);
    free(sx);
    free(sy);
    free(frame);
    free(areas);
    free(order);
    free(key);
    return 0;
}
