/*
 * tile_equalize.c - contrast-limited adaptive histogram equalisation (CLAHE).
 *
 * Usage: tile_equalize <input.pgm> <output.pgm> <clip limit> <sweep steps>
 *
 * The image (binary 8-bit PGM) is split into 8x8 tiles.  For each tile the
 * histogram is clipped at <clip limit> times the mean bin height, the clipped
 * excess is spread over all bins, and the cumulative histogram gives the tile's
 * mapping table.  Every pixel is then mapped through the tables of the four
 * nearest tile centres and blended bilinearly in integer fixed point.
 * To help choose the clip limit the equalisation is run as a sweep: <sweep
 * steps> evenly spaced clip limits from 1 (almost no change) up to the given
 * limit.  A table of output statistics along the sweep is printed, then full
 * statistics of the result at the given limit, which is written to <output.pgm>.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILES_X 8
#define TILES_Y 8
#define WBITS 12
#define WONE (1 << WBITS)
#define MAX_STEPS 10000

typedef struct {
    int lo, hi;     /* tile index pair */
    int w;          /* weight of hi, 0..WONE */
} Interp;

static int skip_ws_comments(FILE *f)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while ((c = fgetc(f)) != '\n' && c != EOF)
                ;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
    }
    if (c == EOF)
        return 0;
    ungetc(c, f);
    return 1;
}

static unsigned char *read_pgm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "tile_equalize: cannot open %s\n", path);
        return NULL;
    }
    char magic[3] = {0};
    int maxval;
    if (fread(magic, 1, 2, f) != 2 || strcmp(magic, "P5") != 0 ||
        !skip_ws_comments(f) || fscanf(f, "%d", w) != 1 ||
        !skip_ws_comments(f) || fscanf(f, "%d", h) != 1 ||
        !skip_ws_comments(f) || fscanf(f, "%d", &maxval) != 1 ||
        *w < TILES_X * 2 || *h < TILES_Y * 2 || *w > 20000 || *h > 20000 || maxval != 255) {
        fprintf(stderr, "tile_equalize: %s: not an 8-bit binary PGM of at least %dx%d pixels\n",
                path, TILES_X * 2, TILES_Y * 2);
        fclose(f);
        return NULL;
    }
    fgetc(f);   /* the single whitespace after maxval */
    size_t n = (size_t)*w * (size_t)*h;
    unsigned char *img = malloc(n);
    if (!img || fread(img, 1, n, f) != n) {
        fprintf(stderr, "tile_equalize: %s: pixel data truncated\n", path);
        free(img);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return img;
}

static void interp_table(Interp *t, int n, int tiles)
{
    /* doubled coordinates: pixel centre 2i+1, tile centre start+end */
    int centre[64];
    for (int k = 0; k < tiles; k++)
        centre[k] = (int)((long)k * n / tiles + (long)(k + 1) * n / tiles);
    for (int i = 0; i < n; i++) {
        int p = 2 * i + 1;
        if (p <= centre[0]) {
            t[i].lo = t[i].hi = 0;
            t[i].w = 0;
        } else if (p >= centre[tiles - 1]) {
            t[i].lo = t[i].hi = tiles - 1;
            t[i].w = 0;
        } else {
            int k = 0;
            while (centre[k + 1] < p)
                k++;
            t[i].lo = k;
            t[i].hi = k + 1;
            t[i].w = (int)((long)(p - centre[k]) * WONE / (centre[k + 1] - centre[k]));
        }
    }
}

static void histogram(const unsigned char *img, int w, int h, long hist[256])
{
    long hs[256] = {0};
#pragma omp parallel for reduction(+:hs[:256])
    for (int y = 0; y < h; y++) {
        const unsigned char *row = img + (size_t)y * w;
        for (int x = 0; x < w; x++)
            hs[row[x]]++;
    }
    memcpy(hist, hs, sizeof hs);
}

typedef struct {
    double mean, std;
    int lo, hi, used;
    int pv[5];      /* percentiles 1, 25, 50, 75, 99 */
} Stats;

static void compute_stats(const long hist[256], long n, Stats *st)
{
    long sum = 0, sum2 = 0;
    st->lo = -1;
    st->hi = -1;
    st->used = 0;
    for (int v = 0; v < 256; v++) {
        sum += hist[v] * v;
        sum2 += hist[v] * v * v;
        if (hist[v]) {
            if (st->lo < 0) st->lo = v;
            st->hi = v;
            st->used++;
        }
    }
    st->mean = (double)sum / n;
    double var = ((double)sum2 - (double)sum * (double)sum / n) / n;
    st->std = sqrt(var > 0 ? var : 0);
    static const int pct[5] = {1, 25, 50, 75, 99};
    for (int k = 0; k < 5; k++) {
        long target = (n * pct[k] + 99) / 100, acc = 0;
        int v = 0;
        for (; v < 255; v++) {
            acc += hist[v];
            if (acc >= target)
                break;
        }
        st->pv[k] = v;
    }
}

/* mean absolute difference to the right and lower neighbour (detail contrast) */
static double local_contrast(const unsigned char *img, int w, int h)
{
    long total = 0;
#pragma omp parallel for reduction(+:total)
    for (int y = 0; y < h - 1; y++) {
        const unsigned char *row = img + (size_t)y * w;
        const unsigned char *below = row + w;
        long s = 0;
        for (int x = 0; x < w - 1; x++)
            s += abs(row[x + 1] - row[x]) + abs(below[x] - row[x]);
        total += s;
    }
    return (double)total / (2.0 * (double)(w - 1) * (double)(h - 1));
}

static void print_stats(const char *label, const long hist[256], long n)
{
    Stats st;
    compute_stats(hist, n, &st);
    printf("%s mean %.3f, std dev %.3f, range %d..%d, %d levels used\n",
           label, st.mean, st.std, st.lo, st.hi, st.used);
    printf("%*s percentiles 1/25/50/75/99: %d %d %d %d %d; per 32 levels (permille):",
           (int)strlen(label), "", st.pv[0], st.pv[1], st.pv[2], st.pv[3], st.pv[4]);
    for (int b = 0; b < 8; b++) {
        long c = 0;
        for (int v = b * 32; v < b * 32 + 32; v++)
            c += hist[v];
        printf(" %ld", (c * 1000 + n / 2) / n);
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *usage = "usage: %s <input.pgm> <output.pgm> <clip limit> <sweep steps>\n"
                        "       (clip limit 1..256, sweep steps 1..10000)\n";
    if (argc != 5) {
        fprintf(stderr, usage, argv[0]);
        return 2;
    }
    char *end1, *end2;
    double clip_max = strtod(argv[3], &end1);
    long nsteps = strtol(argv[4], &end2, 10);
    if (*end1 != '\0' || *end2 != '\0' || !(clip_max >= 1.0 && clip_max <= 256.0) ||
        nsteps < 1 || nsteps > MAX_STEPS) {
        fprintf(stderr, usage, argv[0]);
        return 2;
    }
    int w, h;
    unsigned char *img = read_pgm(argv[1], &w, &h);
    if (!img)
        return 1;
    long npix = (long)w * h;
    unsigned char *out = malloc((size_t)npix);
    Interp *ix = malloc(sizeof(Interp) * w);
    Interp *iy = malloc(sizeof(Interp) * h);
    static unsigned char lut[TILES_Y * TILES_X][256];
    static long tile_clipped[TILES_Y * TILES_X];
    interp_table(ix, w, TILES_X);
    interp_table(iy, h, TILES_Y);

    printf("image %dx%d, %dx%d tiles\n", w, h, TILES_X, TILES_Y);
    long hist[256];
    histogram(img, w, h, hist);
    print_stats("input: ", hist, npix);
    double lc_in = local_contrast(img, w, h);
    printf("        local contrast (mean neighbour difference) %.4f\n", lc_in);

    printf("clip limit sweep 1.00..%.2f in %ld steps:\n", clip_max, nsteps);
    printf("   limit  redistributed    mean   std dev  p1  p99  levels  local contrast\n");
    double lc = 0.0;
    for (long k = 1; k <= nsteps; k++) {
        double limit = 1.0 + (clip_max - 1.0) * (double)k / (double)nsteps;
        /* clipped histograms and mapping tables, one tile per iteration */
#pragma omp parallel for
        for (int t = 0; t < TILES_X * TILES_Y; t++) {
            int tx = t % TILES_X, ty = t / TILES_X;
            int x0 = (int)((long)tx * w / TILES_X), x1 = (int)((long)(tx + 1) * w / TILES_X);
            int y0 = (int)((long)ty * h / TILES_Y), y1 = (int)((long)(ty + 1) * h / TILES_Y);
            long th[256] = {0};
            for (int y = y0; y < y1; y++) {
                const unsigned char *row = img + (size_t)y * w;
                for (int x = x0; x < x1; x++)
                    th[row[x]]++;
            }
            long tpix = (long)(x1 - x0) * (y1 - y0);
            long cl = (long)(limit * (double)tpix / 256.0);
            if (cl < 1)
                cl = 1;
            long excess = 0;
            for (int v = 0; v < 256; v++)
                if (th[v] > cl) {
                    excess += th[v] - cl;
                    th[v] = cl;
                }
            tile_clipped[t] = excess;
            long add = excess / 256, rest = excess % 256;
            for (int v = 0; v < 256; v++)
                th[v] += add;
            if (rest > 0) {
                long step = 256 / rest;
                if (step < 1) step = 1;
                for (int v = 0; v < 256 && rest > 0; v += (int)step, rest--)
                    th[v]++;
            }
            long cdf = 0;
            for (int v = 0; v < 256; v++) {
                cdf += th[v];
                long m = (cdf * 255 + tpix / 2) / tpix;
                lut[t][v] = (unsigned char)(m > 255 ? 255 : m);
            }
        }

        /* bilinear blend of the four nearest tile mappings, one row per iteration */
#pragma omp parallel for
        for (int y = 0; y < h; y++) {
            const Interp ry = iy[y];
            const unsigned char *src = img + (size_t)y * w;
            unsigned char *dst = out + (size_t)y * w;
            for (int x = 0; x < w; x++) {
                const Interp rx = ix[x];
                int v = src[x];
                int64_t a = lut[ry.lo * TILES_X + rx.lo][v];
                int64_t b = lut[ry.lo * TILES_X + rx.hi][v];
                int64_t cc = lut[ry.hi * TILES_X + rx.lo][v];
                int64_t d = lut[ry.hi * TILES_X + rx.hi][v];
                int64_t top = a * (WONE - rx.w) + b * rx.w;
                int64_t bot = cc * (WONE - rx.w) + d * rx.w;
                int64_t val = (top * (WONE - ry.w) + bot * ry.w + ((int64_t)1 << (2 * WBITS - 1))) >> (2 * WBITS);
                dst[x] = (unsigned char)val;
            }
        }

        long clipped = 0;
        for (int t = 0; t < TILES_X * TILES_Y; t++)
            clipped += tile_clipped[t];
        histogram(out, w, h, hist);
        Stats st;
        compute_stats(hist, npix, &st);
        lc = local_contrast(out, w, h);
        if (k == nsteps || (k * 10) / nsteps != ((k - 1) * 10) / nsteps)
            printf("  %6.2f  %11.2f%%  %7.3f  %7.3f  %3d  %3d  %6d  %8.4f\n", limit, 100.0 * clipped / npix,
                   st.mean, st.std, st.pv[0], st.pv[4], st.used, lc);
    }
    print_stats("output:", hist, npix);
    printf("        local contrast %.4f (%.2f times the input)\n", lc, lc / lc_in);

    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        fprintf(stderr, "tile_equalize: cannot write %s\n", argv[2]);
        return 1;
    }
    fprintf(f, "P5\n%d %d\n255\n", w, h);
    fwrite(out, 1, (size_t)npix, f);
    fclose(f);
    printf("output (clip limit %.2f) written to %s\n", clip_max, argv[2]);
    free(img);
    free(out);
    free(ix);
    free(iy);
    return 0;
}
