/*
 * pyramid_blend - multiresolution (Laplacian pyramid) image blending.
 *
 * Reads a grayscale PGM image and a mask of the same size.  The second
 * image is derived from the first (mirrored left-right and tone-inverted).
 * Gaussian and Laplacian pyramids of both images and a Gaussian pyramid of
 * the mask are built down to levels of at least 8x8 pixels; the Laplacian
 * levels are blended with the mask level and the blended pyramid is
 * collapsed.  Prints statistics of every blended level and of the result,
 * and optionally writes the result as a PGM.
 *
 * usage: pyramid_blend <image.pgm> <mask.pgm> [max-levels] [out.pgm]
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 16
#define MIN_SIZE 8

static const char *prog = "pyramid_blend";

/* 5-tap binomial kernel of Burt and Adelson */
static const float kern[5] = {1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};

typedef struct {
    int w, h;
    float *p;
} image;

static void usage(void)
{
    fprintf(stderr, "usage: %s <image.pgm> <mask.pgm> [max-levels] [out.pgm]\n", prog);
    exit(2);
}

static image new_image(int w, int h)
{
    image im = {w, h, malloc((size_t)w * (size_t)h * sizeof(float))};
    if (!im.p) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(1);
    }
    return im;
}

static void die_file(const char *path, const char *msg)
{
    fprintf(stderr, "%s: %s: %s\n", prog, path, msg);
    exit(1);
}

static long pgm_number(FILE *f, const char *path)
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
    if (!isdigit(c))
        die_file(path, "malformed PGM header");
    long v = 0;
    while (isdigit(c)) {
        v = v * 10 + (c - '0');
        if (v > 1000000)
            die_file(path, "malformed PGM header");
        c = fgetc(f);
    }
    if (!isspace(c))
        die_file(path, "malformed PGM header");
    return v;
}

static image read_pgm(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    if (fgetc(f) != 'P' || fgetc(f) != '5')
        die_file(path, "not a binary PGM (P5) file");
    long w = pgm_number(f, path), h = pgm_number(f, path), maxval = pgm_number(f, path);
    if (w < MIN_SIZE || h < MIN_SIZE || w > 30000 || h > 30000)
        die_file(path, "image size out of range");
    if (maxval != 255)
        die_file(path, "only 8-bit images (maxval 255) are supported");
    size_t n = (size_t)w * (size_t)h;
    unsigned char *buf = malloc(n);
    if (!buf)
        die_file(path, "out of memory");
    if (fread(buf, 1, n, f) != n)
        die_file(path, "truncated pixel data");
    fclose(f);
    image im = new_image((int)w, (int)h);
    for (size_t i = 0; i < n; i++)
        im.p[i] = (float)buf[i];
    free(buf);
    return im;
}

static int write_pgm(const char *path, const image *im)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fprintf(f, "P5\n%d %d\n255\n", im->w, im->h);
    size_t n = (size_t)im->w * (size_t)im->h;
    for (size_t i = 0; i < n; i++) {
        float v = im->p[i];
        int q = v < 0.0f ? 0 : v > 255.0f ? 255 : (int)lrintf(v);
        fputc(q, f);
    }
    return fclose(f) == 0;
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* REDUCE: blur with the 5x5 kernel and keep every second pixel */
static image reduce(const image *src)
{
    image dst = new_image((src->w + 1) / 2, (src->h + 1) / 2);
    int sw = src->w, sh = src->h;
#pragma omp parallel for
    for (int i = 0; i < dst.h; i++) {
        for (int j = 0; j < dst.w; j++) {
            float s = 0.0f;
            for (int m = -2; m <= 2; m++) {
                const float *row = src->p + (size_t)clampi(2 * i + m, 0, sh - 1) * sw;
                float rs = 0.0f;
                for (int n = -2; n <= 2; n++)
                    rs += kern[n + 2] * row[clampi(2 * j + n, 0, sw - 1)];
                s += kern[m + 2] * rs;
            }
            dst.p[(size_t)i * dst.w + j] = s;
        }
    }
    return dst;
}

/* EXPAND: upsample src to w x h, interpolating with the 5x5 kernel */
static image expand(const image *src, int w, int h)
{
    image dst = new_image(w, h);
    int sw = src->w, sh = src->h;
#pragma omp parallel for
    for (int i = 0; i < h; i++) {
        for (int j = 0; j < w; j++) {
            float s = 0.0f;
            for (int m = -2; m <= 2; m++) {
                if ((i - m) & 1)
                    continue;
                const float *row = src->p + (size_t)clampi((i - m) / 2, 0, sh - 1) * sw;
                float rs = 0.0f;
                for (int n = -2; n <= 2; n++) {
                    if ((j - n) & 1)
                        continue;
                    rs += kern[n + 2] * row[clampi((j - n) / 2, 0, sw - 1)];
                }
                s += kern[m + 2] * rs;
            }
            dst.p[(size_t)i * w + j] = 4.0f * s;
        }
    }
    return dst;
}

/* Gaussian pyramid g[0..levels-1], g[0] a copy of im */
static void gaussian_pyramid(const image *im, image *g, int levels)
{
    g[0] = new_image(im->w, im->h);
    memcpy(g[0].p, im->p, (size_t)im->w * im->h * sizeof(float));
    for (int k = 1; k < levels; k++)
        g[k] = reduce(&g[k - 1]);
}

/* Laplacian pyramid from a Gaussian one: l[k] = g[k] - expand(g[k+1]) */
static void laplacian_pyramid(const image *g, image *l, int levels)
{
    for (int k = 0; k < levels - 1; k++) {
        image up = expand(&g[k + 1], g[k].w, g[k].h);
        l[k] = new_image(g[k].w, g[k].h);
        int w = g[k].w;
#pragma omp parallel for
        for (int i = 0; i < g[k].h; i++)
            for (int j = 0; j < w; j++) {
                size_t q = (size_t)i * w + j;
                l[k].p[q] = g[k].p[q] - up.p[q];
            }
        free(up.p);
    }
    l[levels - 1] = new_image(g[levels - 1].w, g[levels - 1].h);
    memcpy(l[levels - 1].p, g[levels - 1].p,
           (size_t)g[levels - 1].w * g[levels - 1].h * sizeof(float));
}

struct stats {
    double mean, sd, min, max;
};

/* row sums are formed in parallel and added in row order */
static struct stats image_stats(const image *im)
{
    double *rs = malloc((size_t)im->h * sizeof *rs), *rq = malloc((size_t)im->h * sizeof *rq);
    float *rmin = malloc((size_t)im->h * sizeof *rmin), *rmax = malloc((size_t)im->h * sizeof *rmax);
#pragma omp parallel for
    for (int i = 0; i < im->h; i++) {
        const float *row = im->p + (size_t)i * im->w;
        double s = 0.0, q = 0.0;
        float lo = row[0], hi = row[0];
        for (int j = 0; j < im->w; j++) {
            s += row[j];
            q += (double)row[j] * row[j];
            if (row[j] < lo)
                lo = row[j];
            if (row[j] > hi)
                hi = row[j];
        }
        rs[i] = s;
        rq[i] = q;
        rmin[i] = lo;
        rmax[i] = hi;
    }
    double s = 0.0, q = 0.0;
    float lo = rmin[0], hi = rmax[0];
    for (int i = 0; i < im->h; i++) {
        s += rs[i];
        q += rq[i];
        if (rmin[i] < lo)
            lo = rmin[i];
        if (rmax[i] > hi)
            hi = rmax[i];
    }
    double n = (double)im->w * im->h;
    struct stats st = {s / n, sqrt(fmax(0.0, q / n - (s / n) * (s / n))), lo, hi};
    free(rs);
    free(rq);
    free(rmin);
    free(rmax);
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5)
        usage();
    int max_levels = MAX_LEVELS;
    if (argc >= 4) {
        char *end;
        errno = 0;
        long v = strtol(argv[3], &end, 10);
        if (errno || *end || end == argv[3] || v < 1 || v > MAX_LEVELS)
            usage();
        max_levels = (int)v;
    }
    const char *out_path = argc == 5 ? argv[4] : NULL;

    image a = read_pgm(argv[1]);
    image mask = read_pgm(argv[2]);
    if (mask.w != a.w || mask.h != a.h) {
        fprintf(stderr, "%s: mask is %dx%d but image is %dx%d\n", prog, mask.w, mask.h, a.w,
                a.h);
        return 1;
    }

    /* second image: mirrored left-right and tone-inverted */
    image b = new_image(a.w, a.h);
#pragma omp parallel for
    for (int i = 0; i < a.h; i++)
        for (int j = 0; j < a.w; j++)
            b.p[(size_t)i * a.w + j] = 255.0f - a.p[(size_t)i * a.w + (a.w - 1 - j)];
    size_t npx = (size_t)a.w * a.h;
    for (size_t q = 0; q < npx; q++)
        mask.p[q] /= 255.0f;

    int levels = 1, w = a.w, h = a.h;
    while (levels < max_levels && (w + 1) / 2 >= MIN_SIZE && (h + 1) / 2 >= MIN_SIZE) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
        levels++;
    }

    image ga[MAX_LEVELS], gb[MAX_LEVELS], gm[MAX_LEVELS];
    image la[MAX_LEVELS], lb[MAX_LEVELS];
    gaussian_pyramid(&a, ga, levels);
    gaussian_pyramid(&b, gb, levels);
    gaussian_pyramid(&mask, gm, levels);
    laplacian_pyramid(ga, la, levels);
    laplacian_pyramid(gb, lb, levels);

    printf("image %dx%d, %d pyramid levels\n", a.w, a.h, levels);
    printf("%5s %11s %10s %10s %10s %10s %8s\n", "level", "size", "mean", "std", "min", "max",
           "mask");
    /* blend level by level into la */
    for (int k = 0; k < levels; k++) {
        int lw = la[k].w;
#pragma omp parallel for
        for (int i = 0; i < la[k].h; i++)
            for (int j = 0; j < lw; j++) {
                size_t q = (size_t)i * lw + j;
                float m = gm[k].p[q];
                la[k].p[q] = m * la[k].p[q] + (1.0f - m) * lb[k].p[q];
            }
        struct stats st = image_stats(&la[k]);
        struct stats sm = image_stats(&gm[k]);
        char size[32];
        snprintf(size, sizeof size, "%dx%d", la[k].w, la[k].h);
        printf("%5d %11s %10.4f %10.4f %10.3f %10.3f %8.4f\n", k, size, st.mean, st.sd, st.min,
               st.max, sm.mean);
    }

    /* collapse: r = l[top]; r = expand(r) + l[k] going down */
    image r = la[levels - 1];
    for (int k = levels - 2; k >= 0; k--) {
        image up = expand(&r, la[k].w, la[k].h);
        int lw = la[k].w;
#pragma omp parallel for
        for (int i = 0; i < la[k].h; i++)
            for (int j = 0; j < lw; j++) {
                size_t q = (size_t)i * lw + j;
                up.p[q] += la[k].p[q];
            }
        if (r.p != la[levels - 1].p)
            free(r.p);
        r = up;
    }

    /* clip to the 8-bit range and count what was clipped */
    long clipped = 0;
    for (size_t q = 0; q < npx; q++) {
        if (r.p[q] < 0.0f) {
            r.p[q] = 0.0f;
            clipped++;
        } else if (r.p[q] > 255.0f) {
            r.p[q] = 255.0f;
            clipped++;
        }
    }
    struct stats sr = image_stats(&r);
    struct stats sa = image_stats(&a);
    printf("input:  mean %.4f, std %.4f\n", sa.mean, sa.sd);
    printf("result: mean %.4f, std %.4f, variance %.3f, range [%.2f, %.2f], %ld pixels clipped\n",
           sr.mean, sr.sd, sr.sd * sr.sd, sr.min, sr.max, clipped);

    /* seam check: mean absolute step across the mask border, row by row */
    double seam = 0.0;
    long seam_n = 0;
    for (int i = 0; i < a.h; i++)
        for (int j = 1; j < a.w; j++) {
            size_t q = (size_t)i * a.w + j;
            if ((mask.p[q] > 0.5f) != (mask.p[q - 1] > 0.5f)) {
                seam += fabs((double)r.p[q] - r.p[q - 1]);
                seam_n++;
            }
        }
    printf("seam: %ld border pixels, mean step %.4f\n", seam_n, seam_n ? seam / seam_n : 0.0);

    if (out_path && !write_pgm(out_path, &r)) {
        fprintf(stderr, "%s: cannot write '%s'\n", prog, out_path);
        return 1;
    }
    return 0;
}
