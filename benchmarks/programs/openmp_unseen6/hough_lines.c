/*
 * hough_lines - find straight lines in a grey-level picture.
 *
 * Reads a PGM image (binary P5 or ASCII P2), smooths it with a 3x3 Gaussian,
 * computes Sobel gradients, thins the edges by non-maximum suppression along
 * the gradient direction, and accumulates a (theta, rho) Hough transform of
 * the surviving edge pixels.  Each vote is split linearly between the two
 * nearest rho bins, so peaks do not smear over neighbouring cells.  Local maxima of the accumulator are ranked and
 * the strongest lines are reported together with the longest run of edge
 * pixels found along each of them.
 *
 * usage: hough_lines IMAGE.pgm [THETA_STEPS] [EDGE_THRESHOLD]
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_LINES 15
#define NMS_DEGREES 1.0 /* half window of accumulator peak search (degrees)  */
#define NMS_RHO 6       /* half window of accumulator peak search (rho bins) */
#define MAX_GAP 4     /* pixels a segment may be interrupted for             */

typedef struct {
    int width, height;
    float *pix; /* width*height, scaled to 0..255 */
} image_t;

typedef struct {
    float votes;
    int t;   /* theta bin */
    int r;   /* rho bin   */
} peak_t;

typedef struct {
    int length;      /* pixels covered by the longest segment, gaps included */
    int on;          /* edge pixels inside that segment                       */
    double x0, y0, x1, y1;
} segment_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s IMAGE.pgm [THETA_STEPS (90..20000, default 1800)] "
                    "[EDGE_THRESHOLD (default 50)]\n", prog);
}

/* skip white space and '#' comments in a PNM header */
static int pnm_skip(FILE *f)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        } else if (!isspace(c)) {
            break;
        }
    }
    if (c != EOF)
        ungetc(c, f);
    return c;
}

static int pnm_int(FILE *f, int *v)
{
    if (pnm_skip(f) == EOF)
        return 0;
    return fscanf(f, "%d", v) == 1;
}

static int read_pgm(const char *path, image_t *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hough_lines: cannot open '%s'\n", path);
        return 0;
    }
    char magic[3] = {0};
    int w, h, maxval;
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '2') ||
        !pnm_int(f, &w) || !pnm_int(f, &h) || !pnm_int(f, &maxval) ||
        w < 8 || h < 8 || w > 20000 || h > 20000 || maxval < 1 || maxval > 65535) {
        fprintf(stderr, "hough_lines: '%s' is not a valid PGM (P5/P2) image\n", path);
        fclose(f);
        return 0;
    }
    size_t n = (size_t)w * h;
    img->width = w;
    img->height = h;
    img->pix = malloc(n * sizeof(float));
    if (!img->pix) {
        fprintf(stderr, "hough_lines: out of memory\n");
        fclose(f);
        return 0;
    }
    float scale = 255.0f / (float)maxval;
    int ok = 1;
    if (magic[1] == '5') {
        fgetc(f); /* the single white-space character after maxval */
        int bps = maxval > 255 ? 2 : 1;
        unsigned char *raw = malloc(n * bps);
        if (!raw || fread(raw, bps, n, f) != n) {
            ok = 0;
        } else {
            for (size_t i = 0; i < n; i++) {
                int v = bps == 1 ? raw[i] : (raw[2 * i] << 8 | raw[2 * i + 1]);
                img->pix[i] = (float)v * scale;
            }
        }
        free(raw);
    } else {
        for (size_t i = 0; i < n && ok; i++) {
            int v;
            if (!pnm_int(f, &v) || v < 0 || v > maxval)
                ok = 0;
            else
                img->pix[i] = (float)v * scale;
        }
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "hough_lines: '%s': truncated or corrupt pixel data\n", path);
        free(img->pix);
        return 0;
    }
    return 1;
}

static int cmp_peak(const void *a, const void *b)
{
    const peak_t *p = a, *q = b;
    if (p->votes != q->votes)
        return p->votes > q->votes ? -1 : 1;
    if (p->t != q->t)
        return p->t < q->t ? -1 : 1;
    return (p->r > q->r) - (p->r < q->r);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int ntheta = 1800;
    double threshold = 50.0;
    char *end;
    if (argc > 2) {
        long v = strtol(argv[2], &end, 10);
        if (*end || v < 90 || v > 20000) {
            usage(argv[0]);
            return 2;
        }
        ntheta = (int)v;
    }
    if (argc > 3) {
        threshold = strtod(argv[3], &end);
        if (*end || !(threshold > 0.0) || threshold > 2000.0) {
            usage(argv[0]);
            return 2;
        }
    }

    image_t img;
    if (!read_pgm(argv[1], &img))
        return 1;
    const int W = img.width, H = img.height;
    const size_t N = (size_t)W * H;

    float *smooth = calloc(N, sizeof(float));
    float *mag = calloc(N, sizeof(float));
    unsigned char *dir = calloc(N, 1);
    unsigned char *edge = calloc(N, 1);
    int *row_count = calloc((size_t)H + 1, sizeof(int));
    if (!smooth || !mag || !dir || !edge || !row_count) {
        fprintf(stderr, "hough_lines: out of memory\n");
        return 1;
    }

    /* 3x3 Gaussian smoothing (borders copied) */
    #pragma omp parallel for
    for (int y = 0; y < H; y++) {
        const float *p = img.pix;
        float *s = smooth + (size_t)y * W;
        if (y == 0 || y == H - 1) {
            memcpy(s, p + (size_t)y * W, W * sizeof(float));
            continue;
        }
        const float *a = p + (size_t)(y - 1) * W, *b = p + (size_t)y * W, *c = p + (size_t)(y + 1) * W;
        s[0] = b[0];
        s[W - 1] = b[W - 1];
        for (int x = 1; x < W - 1; x++)
            s[x] = (a[x - 1] + 2 * a[x] + a[x + 1] + 2 * b[x - 1] + 4 * b[x] + 2 * b[x + 1] +
                    c[x - 1] + 2 * c[x] + c[x + 1]) * (1.0f / 16.0f);
    }

    /* Sobel gradient magnitude and quantised direction (0: -, 1: /, 2: |, 3: \) */
    #pragma omp parallel for
    for (int y = 1; y < H - 1; y++) {
        const float *a = smooth + (size_t)(y - 1) * W;
        const float *b = smooth + (size_t)y * W;
        const float *c = smooth + (size_t)(y + 1) * W;
        for (int x = 1; x < W - 1; x++) {
            float gx = (a[x + 1] + 2 * b[x + 1] + c[x + 1]) - (a[x - 1] + 2 * b[x - 1] + c[x - 1]);
            float gy = (c[x - 1] + 2 * c[x] + c[x + 1]) - (a[x - 1] + 2 * a[x] + a[x + 1]);
            mag[(size_t)y * W + x] = sqrtf(gx * gx + gy * gy);
            float ax = fabsf(gx), ay = fabsf(gy);
            unsigned char d;
            if (ay <= 0.41421356f * ax)
                d = 0;              /* gradient horizontal: compare left/right */
            else if (ax <= 0.41421356f * ay)
                d = 2;              /* gradient vertical: compare up/down      */
            else
                d = (gx > 0) == (gy > 0) ? 3 : 1;
            dir[(size_t)y * W + x] = d;
        }
    }

    /* thin: keep local maxima of the magnitude across the edge */
    #pragma omp parallel for
    for (int y = 2; y < H - 2; y++) {
        int cnt = 0;
        for (int x = 2; x < W - 2; x++) {
            size_t i = (size_t)y * W + x;
            float m = mag[i];
            if (m < threshold)
                continue;
            float m1, m2;
            switch (dir[i]) {
            case 0: m1 = mag[i - 1]; m2 = mag[i + 1]; break;
            case 2: m1 = mag[i - W]; m2 = mag[i + W]; break;
            case 3: m1 = mag[i - W - 1]; m2 = mag[i + W + 1]; break;
            default: m1 = mag[i - W + 1]; m2 = mag[i + W - 1]; break;
            }
            if (m >= m1 && m > m2) {
                edge[i] = 1;
                cnt++;
            }
        }
        row_count[y] = cnt;
    }

    /* compact the edge pixels into a coordinate list, in raster order */
    int *row_start = malloc(((size_t)H + 1) * sizeof(int));
    row_start[0] = 0;
    for (int y = 0; y < H; y++)
        row_start[y + 1] = row_start[y] + row_count[y];
    const int nedge = row_start[H];
    float *ex = malloc((size_t)(nedge > 0 ? nedge : 1) * sizeof(float));
    float *ey = malloc((size_t)(nedge > 0 ? nedge : 1) * sizeof(float));
    #pragma omp parallel for
    for (int y = 0; y < H; y++) {
        int k = row_start[y];
        for (int x = 0; x < W; x++)
            if (edge[(size_t)y * W + x]) {
                ex[k] = (float)x;
                ey[k] = (float)y;
                k++;
            }
    }

    /* Hough accumulator: rho = x cos(theta) + y sin(theta), origin at image centre */
    const float cx = 0.5f * (W - 1), cy = 0.5f * (H - 1);
    const int rmax = (int)ceil(0.5 * sqrt((double)W * W + (double)H * H)) + 1;
    const int nrho = 2 * rmax + 1;
    float *acc = calloc((size_t)ntheta * nrho, sizeof(float));
    if (!acc || !ex || !ey) {
        fprintf(stderr, "hough_lines: out of memory\n");
        return 1;
    }
    for (int k = 0; k < nedge; k++) {
        ex[k] -= cx;
        ey[k] -= cy;
    }

    #pragma omp parallel for
    for (int t = 0; t < ntheta; t++) {
        double th = M_PI * t / ntheta;
        float c = (float)cos(th), s = (float)sin(th);
        float *row = acc + (size_t)t * nrho;
        for (int k = 0; k < nedge; k++) {
            float rho = ex[k] * c + ey[k] * s + (float)rmax;
            float fl = floorf(rho);
            int r = (int)fl;
            float frac = rho - fl;
            row[r] += 1.0f - frac;
            row[r + 1] += frac;
        }
    }

    /* peak search: strict local maxima in a (2*nms_t+1)x(2*NMS_RHO+1) window,
       theta wrapping around with rho mirrored */
    const float min_votes = 20.0f;
    int nms_t = (int)floor(NMS_DEGREES * ntheta / 180.0 + 0.5);
    if (nms_t < 1)
        nms_t = 1;
    int *peak_count = calloc((size_t)ntheta, sizeof(int));
    peak_t **peak_rows = calloc((size_t)ntheta, sizeof(peak_t *));
    float acc_max = 0.0f;
    #pragma omp parallel for reduction(max:acc_max)
    for (int t = 0; t < ntheta; t++) {
        const float *row = acc + (size_t)t * nrho;
        int cap = 0, n = 0;
        peak_t *list = NULL;
        for (int r = 0; r < nrho; r++) {
            float v = row[r];
            if (v > acc_max)
                acc_max = v;
            if (v < min_votes)
                continue;
            int is_max = 1;
            for (int dt = -nms_t; dt <= nms_t && is_max; dt++) {
                int tt = t + dt, mirror = 0;
                if (tt < 0) { tt += ntheta; mirror = 1; }
                if (tt >= ntheta) { tt -= ntheta; mirror = 1; }
                const float *nrow = acc + (size_t)tt * nrho;
                for (int dr = -NMS_RHO; dr <= NMS_RHO; dr++) {
                    if (dt == 0 && dr == 0)
                        continue;
                    int rr = r + dr;
                    if (mirror)
                        rr = nrho - 1 - rr;
                    if (rr < 0 || rr >= nrho)
                        continue;
                    float u = nrow[rr];
                    /* ties are broken towards the smaller (t, r) pair */
                    if (u > v || (u == v && (tt < t || (tt == t && rr < r)))) {
                        is_max = 0;
                        break;
                    }
                }
            }
            if (is_max) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 8;
                    list = realloc(list, (size_t)cap * sizeof(peak_t));
                }
                list[n].votes = v;
                list[n].t = t;
                list[n].r = r;
                n++;
            }
        }
        peak_rows[t] = list;
        peak_count[t] = n;
    }

    int npeaks = 0;
    for (int t = 0; t < ntheta; t++)
        npeaks += peak_count[t];
    peak_t *peaks = malloc((size_t)(npeaks > 0 ? npeaks : 1) * sizeof(peak_t));
    for (int t = 0, k = 0; t < ntheta; t++) {
        if (peak_count[t])
            memcpy(peaks + k, peak_rows[t], (size_t)peak_count[t] * sizeof(peak_t));
        k += peak_count[t];
        free(peak_rows[t]);
    }
    qsort(peaks, (size_t)npeaks, sizeof(peak_t), cmp_peak);
    int ntop = npeaks < TOP_LINES ? npeaks : TOP_LINES;

    /* longest supported segment along each of the strongest lines */
    segment_t seg[TOP_LINES];
    #pragma omp parallel for
    for (int i = 0; i < ntop; i++) {
        double th = M_PI * peaks[i].t / ntheta;
        double c = cos(th), s = sin(th);
        double rho = peaks[i].r - rmax;
        /* point on the line closest to the centre, and the direction along it */
        double px = cx + rho * c, py = cy + rho * s;
        double dx = -s, dy = c;
        int span = 2 * rmax;
        int best_len = 0, best_on = 0, best_a = 0, best_b = 0;
        int run_start = -1, run_on = 0, gap = 0, last_on = 0;
        for (int k = -span; k <= span + MAX_GAP + 1; k++) {
            int hit = 0;
            if (k <= span) {
                double fx = px + k * dx, fy = py + k * dy;
                int x = (int)floor(fx + 0.5), y = (int)floor(fy + 0.5);
                /* accept an edge pixel within one pixel across the line */
                for (int o = -1; o <= 1 && !hit; o++) {
                    int xx = x + (int)floor(o * c + 0.5), yy = y + (int)floor(o * s + 0.5);
                    if (xx >= 0 && yy >= 0 && xx < W && yy < H && edge[(size_t)yy * W + xx])
                        hit = 1;
                }
            }
            if (hit) {
                if (run_start < 0) {
                    run_start = k;
                    run_on = 0;
                }
                run_on++;
                last_on = k;
                gap = 0;
            } else if (run_start >= 0 && ++gap > MAX_GAP) {
                int len = last_on - run_start + 1;
                if (len > best_len) {
                    best_len = len;
                    best_on = run_on;
                    best_a = run_start;
                    best_b = last_on;
                }
                run_start = -1;
            }
        }
        seg[i].length = best_len;
        seg[i].on = best_on;
        seg[i].x0 = px + best_a * dx;
        seg[i].y0 = py + best_a * dy;
        seg[i].x1 = px + best_b * dx;
        seg[i].y1 = py + best_b * dy;
    }

    long long total_votes = (long long)nedge * ntheta;
    printf("image %s: %d x %d pixels\n", argv[1], W, H);
    printf("edge pixels (threshold %.1f, thinned): %d (%.2f%% of image)\n",
           threshold, nedge, 100.0 * nedge / (double)N);
    printf("accumulator: %d theta bins x %d rho bins, %lld votes, max cell %.1f\n",
           ntheta, nrho, total_votes, acc_max);
    printf("local maxima with at least %.0f votes: %d\n", min_votes, npeaks);
    printf("strongest %d lines:\n", ntop);
    printf("  #  theta(deg)    rho   votes  segment length  support   from (x,y)      to (x,y)\n");
    for (int i = 0; i < ntop; i++) {
        double deg = 180.0 * peaks[i].t / ntheta;
        printf(" %2d  %9.2f  %5d  %6.1f  %14d  %6.1f%%   (%4.0f,%4.0f)  (%4.0f,%4.0f)\n",
               i + 1, deg, peaks[i].r - rmax, peaks[i].votes, seg[i].length,
               seg[i].length ? 100.0 * seg[i].on / seg[i].length : 0.0,
               seg[i].x0, seg[i].y0, seg[i].x1, seg[i].y1);
    }

    free(img.pix);
    free(smooth);
    free(mag);
    free(dir);
    free(edge);
    free(row_count);
    free(row_start);
    free(ex);
    free(ey);
    free(acc);
    free(peak_count);
    free(peak_rows);
    free(peaks);
    return 0;
}
