/*
 * histeq.c - histogram equalisation, Sobel edges and Otsu threshold for a
 * grayscale PGM image (P2 or P5, maxval <= 255).
 *
 * usage: histeq input.pgm [passes] [output.pgm]
 *
 * The whole pipeline (statistics, histogram, equalisation, 3x3 blur, Sobel
 * gradient magnitude, Otsu threshold on the edge image) is repeated
 * `passes` times, which is handy for benchmarking.  The equalised image of
 * the last pass is written to output.pgm when that argument is given.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    int w, h, maxval;
    unsigned char *pix;
} image_t;

typedef struct {
    double mean;
    int min, max;
} stats_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s input.pgm [passes] [output.pgm]\n", prog);
    fprintf(stderr, "  input.pgm   8-bit grayscale image, P2 (ASCII) or P5 (binary)\n");
    fprintf(stderr, "  passes      number of times to run the pipeline (default 1)\n");
    fprintf(stderr, "  output.pgm  write the equalised image here (default: none)\n");
}

/* Read the next header integer, skipping whitespace and '#' comments. */
static int read_header_int(FILE *f, int *value)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == EOF)
            return -1;
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
            continue;
        }
        if (!isspace(c))
            break;
    }
    if (!isdigit(c))
        return -1;
    long v = 0;
    while (c != EOF && isdigit(c)) {
        v = v * 10 + (c - '0');
        if (v > 1000000)
            return -1;
        c = fgetc(f);
    }
    /* exactly one whitespace character ends the token (matters for P5) */
    *value = (int)v;
    return 0;
}

static int load_pgm(const char *path, image_t *img, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    char magic[3] = {0};
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '2' && magic[1] != '5')) {
        snprintf(err, errlen, "'%s' is not a P2/P5 PGM file", path);
        fclose(f);
        return -1;
    }
    int binary = (magic[1] == '5');
    if (read_header_int(f, &img->w) || read_header_int(f, &img->h) ||
        read_header_int(f, &img->maxval)) {
        snprintf(err, errlen, "'%s': malformed PGM header", path);
        fclose(f);
        return -1;
    }
    if (img->w <= 2 || img->h <= 2 || img->maxval < 1 || img->maxval > 255) {
        snprintf(err, errlen, "'%s': unsupported size %dx%d or maxval %d (need >2x2, maxval<=255)",
                 path, img->w, img->h, img->maxval);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)img->w * img->h;
    img->pix = malloc(n);
    if (!img->pix) {
        snprintf(err, errlen, "out of memory for %zu pixels", n);
        fclose(f);
        return -1;
    }
    if (binary) {
        if (fread(img->pix, 1, n, f) != n) {
            snprintf(err, errlen, "'%s': truncated pixel data", path);
            fclose(f);
            return -1;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            int v;
            if (fscanf(f, "%d", &v) != 1 || v < 0 || v > img->maxval) {
                snprintf(err, errlen, "'%s': bad or missing pixel value at index %zu", path, i);
                fclose(f);
                return -1;
            }
            img->pix[i] = (unsigned char)v;
        }
    }
    fclose(f);
    /* rescale to the full 8-bit range if maxval is smaller */
    if (img->maxval != 255) {
        for (size_t i = 0; i < n; i++)
            img->pix[i] = (unsigned char)((img->pix[i] * 255 + img->maxval / 2) / img->maxval);
        img->maxval = 255;
    }
    return 0;
}

static int save_pgm(const char *path, const unsigned char *pix, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    fprintf(f, "P5\n# written by histeq\n%d %d\n255\n", w, h);
    size_t n = (size_t)w * h;
    int ok = fwrite(pix, 1, n, f) == n;
    if (fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

static stats_t image_stats(const unsigned char *pix, int w, int h)
{
    long long sum = 0;
    int mn = 255, mx = 0;
#pragma omp parallel for reduction(+:sum) reduction(min:mn) reduction(max:mx)
    for (int y = 0; y < h; y++) {
        const unsigned char *row = pix + (long)y * w;
        for (int x = 0; x < w; x++) {
            int v = row[x];
            sum += v;
            if (v < mn) mn = v;
            if (v > mx) mx = v;
        }
    }
    stats_t s = { (double)sum / ((double)w * h), mn, mx };
    return s;
}

static void histogram(const unsigned char *pix, int w, int h, long hist[256])
{
    long hs[256] = {0};
#pragma omp parallel for reduction(+:hs[:256])
    for (int y = 0; y < h; y++) {
        const unsigned char *row = pix + (long)y * w;
        for (int x = 0; x < w; x++)
            hs[row[x]]++;
    }
    memcpy(hist, hs, sizeof hs);
}

/* Classic Otsu: maximise the between-class variance. */
static int otsu_threshold(const long hist[256], long n)
{
    double total = 0.0;
    for (int v = 0; v < 256; v++)
        total += (double)v * hist[v];
    double sum_b = 0.0, best = -1.0;
    long w_b = 0;
    int thr = 0;
    for (int t = 0; t < 256; t++) {
        w_b += hist[t];
        if (w_b == 0)
            continue;
        long w_f = n - w_b;
        if (w_f == 0)
            break;
        sum_b += (double)t * hist[t];
        double m_b = sum_b / w_b;
        double m_f = (total - sum_b) / w_f;
        double between = (double)w_b * (double)w_f * (m_b - m_f) * (m_b - m_f);
        if (between > best) {
            best = between;
            thr = t;
        }
    }
    return thr;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int passes = 1;
    if (argc >= 3) {
        char *end;
        long p = strtol(argv[2], &end, 10);
        if (*end != '\0' || p < 1 || p > 100000) {
            fprintf(stderr, "histeq: passes must be an integer in 1..100000, got '%s'\n", argv[2]);
            usage(argv[0]);
            return 2;
        }
        passes = (int)p;
    }
    const char *outpath = argc == 4 ? argv[3] : NULL;

    image_t img;
    char err[512];
    if (load_pgm(argv[1], &img, err, sizeof err) != 0) {
        fprintf(stderr, "histeq: %s\n", err);
        return 1;
    }
    const int w = img.w, h = img.h;
    const long n = (long)w * h;

    unsigned char *eq = malloc(n);
    unsigned char *blur = malloc(n);
    unsigned char *edge = malloc(n);
    float *mag = malloc(n * sizeof *mag);
    if (!eq || !blur || !edge || !mag) {
        fprintf(stderr, "histeq: out of memory\n");
        return 1;
    }

    stats_t before = {0}, after = {0};
    long hist[256], ehist[256];
    int thr = 0;
    long edge_count = 0;
    float maxmag = 0.0f;

    for (int pass = 0; pass < passes; pass++) {
        before = image_stats(img.pix, w, h);
        histogram(img.pix, w, h, hist);

        /* cumulative distribution -> lookup table */
        long cdf[256], cdf_min = 0, acc = 0;
        for (int v = 0; v < 256; v++) {
            acc += hist[v];
            cdf[v] = acc;
            if (cdf_min == 0 && acc > 0)
                cdf_min = acc;
        }
        unsigned char lut[256];
        for (int v = 0; v < 256; v++) {
            if (n == cdf_min)
                lut[v] = (unsigned char)v;
            else {
                long num = (cdf[v] - cdf_min) * 255L;
                long q = (num + (n - cdf_min) / 2) / (n - cdf_min);
                lut[v] = (unsigned char)(q < 0 ? 0 : (q > 255 ? 255 : q));
            }
        }

#pragma omp parallel for
        for (int y = 0; y < h; y++) {
            const unsigned char *src = img.pix + (long)y * w;
            unsigned char *dst = eq + (long)y * w;
            for (int x = 0; x < w; x++)
                dst[x] = lut[src[x]];
        }

        after = image_stats(eq, w, h);

        /* 3x3 binomial blur followed by Sobel gradient magnitude */
        float mmax = 0.0f;
#pragma omp parallel
        {
#pragma omp for
            for (int y = 0; y < h; y++) {
                int ym = y > 0 ? y - 1 : 0, yp = y < h - 1 ? y + 1 : h - 1;
                const unsigned char *r0 = eq + (long)ym * w;
                const unsigned char *r1 = eq + (long)y * w;
                const unsigned char *r2 = eq + (long)yp * w;
                for (int x = 0; x < w; x++) {
                    int xm = x > 0 ? x - 1 : 0, xp = x < w - 1 ? x + 1 : w - 1;
                    int s = r0[xm] + 2 * r0[x] + r0[xp]
                          + 2 * r1[xm] + 4 * r1[x] + 2 * r1[xp]
                          + r2[xm] + 2 * r2[x] + r2[xp];
                    blur[(long)y * w + x] = (unsigned char)((s + 8) >> 4);
                }
            }
            /* implicit barrier: blur is complete */
#pragma omp for reduction(max:mmax)
            for (int y = 1; y < h - 1; y++) {
                const unsigned char *r0 = blur + (long)(y - 1) * w;
                const unsigned char *r1 = blur + (long)y * w;
                const unsigned char *r2 = blur + (long)(y + 1) * w;
                float *m = mag + (long)y * w;
                m[0] = m[w - 1] = 0.0f;
                for (int x = 1; x < w - 1; x++) {
                    int gx = (r0[x + 1] + 2 * r1[x + 1] + r2[x + 1])
                           - (r0[x - 1] + 2 * r1[x - 1] + r2[x - 1]);
                    int gy = (r2[x - 1] + 2 * r2[x] + r2[x + 1])
                           - (r0[x - 1] + 2 * r0[x] + r0[x + 1]);
                    float g = sqrtf((float)(gx * gx + gy * gy));
                    m[x] = g;
                    if (g > mmax)
                        mmax = g;
                }
            }
        }
        memset(mag, 0, (size_t)w * sizeof *mag);
        memset(mag + (long)(h - 1) * w, 0, (size_t)w * sizeof *mag);
        maxmag = mmax;

        /* quantise the magnitude to 8 bits */
        float scale = maxmag > 0.0f ? 255.0f / maxmag : 0.0f;
#pragma omp parallel for
        for (int y = 0; y < h; y++) {
            const float *m = mag + (long)y * w;
            unsigned char *e = edge + (long)y * w;
            for (int x = 0; x < w; x++) {
                int q = (int)(m[x] * scale + 0.5f);
                e[x] = (unsigned char)(q > 255 ? 255 : q);
            }
        }

        histogram(edge, w, h, ehist);
        thr = otsu_threshold(ehist, n);

        long cnt = 0;
#pragma omp parallel for reduction(+:cnt)
        for (int y = 0; y < h; y++) {
            const unsigned char *e = edge + (long)y * w;
            for (int x = 0; x < w; x++)
                cnt += e[x] > thr;
        }
        edge_count = cnt;
    }

    /* a few histogram landmarks of the equalised image */
    long eh[256];
    histogram(eq, w, h, eh);
    int p10 = -1, p50 = -1, p90 = -1;
    long acc = 0;
    for (int v = 0; v < 256; v++) {
        acc += eh[v];
        if (p10 < 0 && acc * 10 >= n) p10 = v;
        if (p50 < 0 && acc * 2 >= n) p50 = v;
        if (p90 < 0 && acc * 10 >= 9 * n) p90 = v;
    }
    int used_before = 0, used_after = 0;
    for (int v = 0; v < 256; v++) {
        used_before += hist[v] > 0;
        used_after += eh[v] > 0;
    }

    printf("image: %s, %d x %d (%ld pixels), passes: %d\n", argv[1], w, h, n, passes);
    printf("before equalisation: mean %8.3f  min %3d  max %3d  grey levels used %d\n",
           before.mean, before.min, before.max, used_before);
    printf("after  equalisation: mean %8.3f  min %3d  max %3d  grey levels used %d\n",
           after.mean, after.min, after.max, used_after);
    printf("equalised percentiles: p10 %d  p50 %d  p90 %d\n", p10, p50, p90);
    printf("sobel: max gradient magnitude %.2f\n", maxmag);
    printf("otsu threshold on edge image: %d\n", thr);
    printf("edge pixels: %ld (%.3f%%)\n", edge_count, 100.0 * edge_count / n);

    if (outpath) {
        if (save_pgm(outpath, eq, w, h) != 0) {
            fprintf(stderr, "histeq: cannot write '%s': %s\n", outpath, strerror(errno));
            return 1;
        }
        printf("wrote equalised image to %s\n", outpath);
    }

    free(img.pix);
    free(eq);
    free(blur);
    free(edge);
    free(mag);
    return 0;
}
