/*
 * adaptive_median.c - adaptive median filter for impulse (salt-and-pepper)
 * noise removal on 8-bit PGM images.
 *
 * For every pixel the window starts at 3x3 and grows until the window
 * median is not an impulse (zmin < zmed < zmax) or the maximum window size
 * is reached.  Pixels that are themselves not impulses are left untouched.
 * Noisy regions therefore cost much more per pixel than clean ones.
 *
 * usage: adaptive_median INPUT.pgm [MAX_WINDOW] [PASSES] [OUTPUT.pgm]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAXWIN_LIMIT 21

typedef struct {
    int w, h;
    unsigned char *px;
} image_t;

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s INPUT.pgm [MAX_WINDOW (odd, 3..%d, default 11)] "
            "[PASSES (1..10, default 3)] [OUTPUT.pgm]\n",
            prog, MAXWIN_LIMIT);
    exit(2);
}

static int skip_ws_comments(FILE *f)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        } else {
            break;
        }
    }
    if (c != EOF)
        ungetc(c, f);
    return c;
}

static int read_header_int(FILE *f, int *v)
{
    if (skip_ws_comments(f) == EOF)
        return 0;
    return fscanf(f, "%d", v) == 1;
}

static int load_pgm(const char *path, image_t *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    char magic[3] = {0};
    int w, h, maxval;
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || magic[1] != '5' ||
        !read_header_int(f, &w) || !read_header_int(f, &h) ||
        !read_header_int(f, &maxval) || w <= 0 || h <= 0 ||
        maxval <= 0 || maxval > 255 || w > 20000 || h > 20000) {
        fprintf(stderr, "error: %s is not a valid 8-bit binary PGM file\n", path);
        fclose(f);
        return 0;
    }
    fgetc(f); /* single whitespace after maxval */
    img->w = w;
    img->h = h;
    img->px = malloc((size_t)w * h);
    if (!img->px || fread(img->px, 1, (size_t)w * h, f) != (size_t)w * h) {
        fprintf(stderr, "error: %s: truncated pixel data\n", path);
        fclose(f);
        free(img->px);
        return 0;
    }
    fclose(f);
    return 1;
}

static int save_pgm(const char *path, const image_t *img)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fprintf(f, "P5\n%d %d\n255\n", img->w, img->h);
    size_t n = (size_t)img->w * img->h;
    int ok = fwrite(img->px, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* k-th smallest of a[0..n-1] (Hoare quickselect, reorders a) */
static unsigned char select_kth(unsigned char *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        unsigned char pivot = a[(lo + hi) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                unsigned char t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return a[k];
}

static inline int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/*
 * Filter one pixel.  Returns the new value; *used_win receives the window
 * size that terminated the search.
 */
static unsigned char filter_pixel(const image_t *src, int x, int y, int maxwin,
                                  unsigned char *buf, int *used_win)
{
    const int w = src->w, h = src->h;
    const unsigned char zxy = src->px[(size_t)y * w + x];
    unsigned char zmed = zxy;
    for (int win = 3; win <= maxwin; win += 2) {
        int r = win / 2, n = 0;
        unsigned char zmin = 255, zmax = 0;
        for (int dy = -r; dy <= r; dy++) {
            const unsigned char *row = src->px + (size_t)clampi(y + dy, 0, h - 1) * w;
            for (int dx = -r; dx <= r; dx++) {
                unsigned char v = row[clampi(x + dx, 0, w - 1)];
                if (v < zmin)
                    zmin = v;
                if (v > zmax)
                    zmax = v;
                buf[n++] = v;
            }
        }
        zmed = select_kth(buf, n, n / 2);
        if (zmin < zmed && zmed < zmax) {
            *used_win = win;
            if (zmin < zxy && zxy < zmax)
                return zxy;
            return zmed;
        }
    }
    *used_win = maxwin + 2; /* search exhausted */
    return zmed;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5)
        usage(argv[0]);
    int maxwin = 11, passes = 3;
    const char *outpath = NULL;
    char *end;
    if (argc >= 3) {
        maxwin = (int)strtol(argv[2], &end, 10);
        if (*end || maxwin < 3 || maxwin > MAXWIN_LIMIT || maxwin % 2 == 0)
            usage(argv[0]);
    }
    if (argc >= 4) {
        passes = (int)strtol(argv[3], &end, 10);
        if (*end || passes < 1 || passes > 10)
            usage(argv[0]);
    }
    if (argc >= 5)
        outpath = argv[4];

    image_t img;
    if (!load_pgm(argv[1], &img))
        return 1;
    const int w = img.w, h = img.h;
    const size_t npix = (size_t)w * h;

    /* impulse estimate of the input: fraction of pure black/white pixels */
    long long n_extreme = 0;
#pragma omp parallel for reduction(+ : n_extreme)
    for (size_t i = 0; i < npix; i++)
        n_extreme += (img.px[i] == 0 || img.px[i] == 255);

    image_t out = {w, h, malloc(npix)};
    if (!out.px) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    enum { NBINS = MAXWIN_LIMIT / 2 + 2 };
    long long wincount[NBINS];
    long long total_changed = 0;

    printf("image %dx%d, max window %d, %d pass(es)\n", w, h, maxwin, passes);
    printf("input impulse fraction: %.4f\n", (double)n_extreme / (double)npix);

    for (int p = 0; p < passes; p++) {
        long long changed = 0;
        memset(wincount, 0, sizeof wincount);
#pragma omp parallel reduction(+ : changed) reduction(+ : wincount[:NBINS])
        {
            unsigned char buf[MAXWIN_LIMIT * MAXWIN_LIMIT];
#pragma omp for
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int used;
                    unsigned char v = filter_pixel(&img, x, y, maxwin, buf, &used);
                    out.px[(size_t)y * w + x] = v;
                    changed += (v != img.px[(size_t)y * w + x]);
                    wincount[(used - 3) / 2]++;
                }
            }
        }
        total_changed += changed;
        printf("pass %d: %lld pixels replaced; windows used:", p + 1, changed);
        for (int b = 0; b * 2 + 3 <= maxwin; b++)
            printf(" %dx%d=%lld", b * 2 + 3, b * 2 + 3, wincount[b]);
        printf(" exhausted=%lld\n", wincount[(maxwin - 1) / 2]);
        unsigned char *t = img.px;
        img.px = out.px;
        out.px = t;
    }

    /* residual roughness: mean absolute 4-neighbour Laplacian */
    long long lap_sum = 0, remaining = 0;
#pragma omp parallel for reduction(+ : lap_sum, remaining)
    for (int y = 1; y < h - 1; y++) {
        for (int x = 1; x < w - 1; x++) {
            const unsigned char *c = img.px + (size_t)y * w + x;
            int l = 4 * c[0] - c[-1] - c[1] - c[-w] - c[w];
            lap_sum += l < 0 ? -l : l;
            remaining += (c[0] == 0 || c[0] == 255);
        }
    }

    /* intensity histogram and checksum (sequential, cheap) */
    long long hist[256] = {0};
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < npix; i++) {
        hist[img.px[i]]++;
        hash = (hash ^ img.px[i]) * 16777619u;
    }
    long long sum = 0;
    int vmin = 255, vmax = 0;
    for (int v = 0; v < 256; v++) {
        sum += hist[v] * v;
        if (hist[v]) {
            if (v < vmin)
                vmin = v;
            if (v > vmax)
                vmax = v;
        }
    }
    long long acc = 0;
    int median = 0;
    for (int v = 0; v < 256; v++) {
        acc += hist[v];
        if (2 * acc >= (long long)npix) {
            median = v;
            break;
        }
    }

    printf("total replacements: %lld\n", total_changed);
    printf("output: mean %.4f, median %d, range [%d, %d], residual impulses %lld\n",
           (double)sum / (double)npix, median, vmin, vmax, remaining);
    printf("mean |laplacian|: %.4f\n",
           (double)lap_sum / ((double)(w - 2) * (double)(h - 2)));
    printf("checksum (FNV-1a): %08x\n", hash);

    if (outpath) {
        if (!save_pgm(outpath, &img)) {
            fprintf(stderr, "error: cannot write %s\n", outpath);
            return 1;
        }
        printf("wrote %s\n", outpath);
    }
    free(img.px);
    free(out.px);
    return 0;
}
