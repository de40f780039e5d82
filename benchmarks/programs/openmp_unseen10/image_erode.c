/*
 * image_erode: grey-scale morphological opening then closing of a PGM image
 * with a disc-shaped structuring element.
 *
 * Usage: image_erode <input.pgm> <radius> <output.pgm>
 *
 * Opening is erosion followed by dilation, closing is dilation followed by
 * erosion; each of the four passes is a parallel loop over the output rows.
 * Pixels of the disc that fall outside the image are ignored.  The program
 * prints image statistics before and after and writes the result as a binary
 * PGM (P5).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    int w, h;
    uint8_t *px;
} image_t;

static void bad_file(const char *path, const char *msg)
{
    fprintf(stderr, "image_erode: %s: %s\n", path, msg);
    exit(1);
}

/* reads the next header integer of a PGM file, skipping white space and comments */
static int pgm_int(FILE *f, const char *path)
{
    int c = fgetc(f);
    for (;;) {
        while (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            c = fgetc(f);
        if (c != '#')
            break;
        while (c != '\n' && c != EOF)
            c = fgetc(f);
    }
    if (c < '0' || c > '9')
        bad_file(path, "malformed PGM header");
    long v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        if (v > 1000000)
            bad_file(path, "PGM header value too large");
        c = fgetc(f);
    }
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        bad_file(path, "malformed PGM header");
    return (int)v;
}

static image_t read_pgm(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "image_erode: cannot open %s\n", path);
        exit(1);
    }
    if (fgetc(f) != 'P' || fgetc(f) != '5')
        bad_file(path, "not a binary PGM (P5) file");
    image_t im;
    im.w = pgm_int(f, path);
    im.h = pgm_int(f, path);
    int maxval = pgm_int(f, path);
    if (im.w < 1 || im.h < 1 || (long)im.w * im.h > 200000000L)
        bad_file(path, "bad image size");
    if (maxval < 1 || maxval > 255)
        bad_file(path, "only 8-bit PGM images are supported");
    size_t n = (size_t)im.w * im.h;
    im.px = malloc(n);
    if (!im.px)
        bad_file(path, "out of memory");
    if (fread(im.px, 1, n, f) != n)
        bad_file(path, "truncated pixel data");
    fclose(f);
    return im;
}

/* disc offsets: for each dy in [-r, r] the half width of the disc's row */
static int *disc_half_widths(int r)
{
    int *hw = malloc((size_t)(2 * r + 1) * sizeof *hw);
    if (!hw) {
        fprintf(stderr, "image_erode: out of memory\n");
        exit(1);
    }
    for (int dy = -r; dy <= r; dy++) {
        int w = 0;
        while ((w + 1) * (w + 1) + dy * dy <= r * r)
            w++;
        hw[dy + r] = w;
    }
    return hw;
}

/* one pass: dst = min (erode) or max (dilate) of src over the disc */
static void morph(const uint8_t *src, uint8_t *dst, int w, int h, int r, const int *hw, int dilate)
{
#pragma omp parallel for
    for (int y = 0; y < h; y++) {
        uint8_t *out = dst + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            uint8_t m = dilate ? 0 : 255;
            for (int dy = -r; dy <= r; dy++) {
                int yy = y + dy;
                if (yy < 0 || yy >= h)
                    continue;
                const uint8_t *row = src + (size_t)yy * w;
                int x0 = x - hw[dy + r], x1 = x + hw[dy + r];
                if (x0 < 0)
                    x0 = 0;
                if (x1 > w - 1)
                    x1 = w - 1;
                if (dilate) {
                    for (int xx = x0; xx <= x1; xx++)
                        m = row[xx] > m ? row[xx] : m;
                } else {
                    for (int xx = x0; xx <= x1; xx++)
                        m = row[xx] < m ? row[xx] : m;
                }
            }
            out[x] = m;
        }
    }
}

static void print_stats(const char *label, const uint8_t *px, long n)
{
    long hist[256];
    memset(hist, 0, sizeof hist);
    long long sum = 0, sumsq = 0;
#pragma omp parallel for reduction(+ : hist[:256], sum, sumsq)
    for (long i = 0; i < n; i++) {
        int v = px[i];
        hist[v]++;
        sum += v;
        sumsq += (long long)v * v;
    }
    int lo = 0, hi = 255, levels = 0, median = 0;
    while (hist[lo] == 0)
        lo++;
    while (hist[hi] == 0)
        hi--;
    long cum = 0;
    for (int v = 0; v < 256; v++) {
        if (hist[v])
            levels++;
        if (cum < (n + 1) / 2 && cum + hist[v] >= (n + 1) / 2)
            median = v;
        cum += hist[v];
    }
    long black = hist[0] + hist[1] + hist[2] + hist[3];
    long white = hist[252] + hist[253] + hist[254] + hist[255];
    double mean = (double)sum / n;
    double var = ((double)sumsq - (double)sum * sum / n) / n;
    printf("%-7s mean %7.3f  std %7.3f  min %3d  max %3d  median %3d  levels %3d  "
           "near-black %7ld  near-white %7ld\n",
           label, mean, var > 0 ? __builtin_sqrt(var) : 0.0, lo, hi, median, levels, black,
           white);
}

int main(int argc, char **argv)
{
    char *end;
    if (argc != 4) {
        fprintf(stderr, "usage: %s <input.pgm> <radius> <output.pgm>\n", argv[0]);
        return 2;
    }
    long r = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || r < 0 || r > 100) {
        fprintf(stderr, "usage: %s <input.pgm> <radius> <output.pgm>  (radius 0..100)\n",
                argv[0]);
        return 2;
    }
    image_t im = read_pgm(argv[1]);
    int w = im.w, h = im.h;
    long n = (long)w * h;
    int *hw = disc_half_widths((int)r);
    long disc = 0;
    for (int i = 0; i <= 2 * r; i++)
        disc += 2 * hw[i] + 1;

    uint8_t *a = malloc((size_t)n), *b = malloc((size_t)n);
    if (!a || !b) {
        fprintf(stderr, "image_erode: out of memory\n");
        return 1;
    }
    printf("image %d x %d, disc radius %ld (%ld pixels)\n", w, h, r, disc);
    print_stats("input", im.px, n);

    morph(im.px, a, w, h, (int)r, hw, 0); /* opening: erode ... */
    morph(a, b, w, h, (int)r, hw, 1);     /* ... then dilate */
    print_stats("opened", b, n);
    morph(b, a, w, h, (int)r, hw, 1);     /* closing: dilate ... */
    morph(a, b, w, h, (int)r, hw, 0);     /* ... then erode */
    print_stats("result", b, n);

    long changed = 0, absdiff = 0;
#pragma omp parallel for reduction(+ : changed, absdiff)
    for (long i = 0; i < n; i++) {
        int d = (int)b[i] - (int)im.px[i];
        if (d) {
            changed++;
            absdiff += d < 0 ? -d : d;
        }
    }
    printf("pixels changed: %ld (%.2f%%), mean absolute change %.4f\n", changed,
           100.0 * changed / n, (double)absdiff / n);

    FILE *f = fopen(argv[3], "wb");
    if (!f) {
        fprintf(stderr, "image_erode: cannot write %s\n", argv[3]);
        return 1;
    }
    fprintf(f, "P5\n# opened and closed with a disc of radius %ld\n%d %d\n255\n", r, w, h);
    if (fwrite(b, 1, (size_t)n, f) != (size_t)n || fclose(f) != 0) {
        fprintf(stderr, "image_erode: error writing %s\n", argv[3]);
        return 1;
    }
    free(a);
    free(b);
    free(hw);
    free(im.px);
    return 0;
}
