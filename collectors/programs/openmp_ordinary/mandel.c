/*
 * mandel.c - escape-time Mandelbrot / Julia set renderer with statistics.
 *
 * usage: mandel width height max_iter center_x center_y scale [julia_re julia_im] [out.ppm]
 *
 * `scale` is the width of the viewed region in the complex plane.  With the
 * two optional julia_* arguments the Julia set for c = julia_re + i julia_im
 * is rendered instead of the Mandelbrot set.  Every pixel is iterated until
 * |z| > 2 or max_iter is reached; the program then reports iteration
 * statistics, the share of points inside the set and a colour histogram.
 * If the last argument ends in ".ppm" the coloured image is written there.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOLORS 24          /* palette entries for escaping points */
#define NSTRIPS 8           /* horizontal strips in the cost profile */

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s width height max_iter center_x center_y scale [julia_re julia_im] [out.ppm]\n"
            "  width, height  image size in pixels (1..20000)\n"
            "  max_iter       iteration limit (1..10000000)\n"
            "  center_x/y     centre of the view in the complex plane\n"
            "  scale          width of the view (> 0)\n"
            "  julia_re/im    render the Julia set of this c instead\n"
            "example: %s 800 600 1000 -0.5 0 3.0\n", prog, prog);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0' || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lt = strlen(suffix);
    return ls >= lt && strcmp(s + ls - lt, suffix) == 0;
}

/* Map an escape count to a palette index: bands get wider for higher counts
 * (roughly logarithmic), which is what most renderers do. */
static int color_index(int it, int max_iter)
{
    double t = log((double)it + 1.0) / log((double)max_iter + 1.0);
    int c = (int)(t * NCOLORS);
    return c >= NCOLORS ? NCOLORS - 1 : c;
}

static void palette(int c, unsigned char rgb[3])
{
    double t = (double)c / (NCOLORS - 1);
    rgb[0] = (unsigned char)(9.0 * (1 - t) * t * t * t * 255.0);
    rgb[1] = (unsigned char)(15.0 * (1 - t) * (1 - t) * t * t * 255.0);
    rgb[2] = (unsigned char)(8.5 * (1 - t) * (1 - t) * (1 - t) * t * 255.0);
}

int main(int argc, char **argv)
{
    const char *outpath = NULL;
    if (argc >= 2 && ends_with(argv[argc - 1], ".ppm")) {
        outpath = argv[argc - 1];
        argc--;
    }
    if (argc != 7 && argc != 9) {
        usage(argv[0]);
        return 2;
    }
    long width, height, max_iter;
    double cx, cy, scale, jre = 0.0, jim = 0.0;
    int julia = (argc == 9);
    if (parse_long(argv[1], 1, 20000, &width) || parse_long(argv[2], 1, 20000, &height) ||
        parse_long(argv[3], 1, 10000000, &max_iter) || parse_double(argv[4], &cx) ||
        parse_double(argv[5], &cy) || parse_double(argv[6], &scale) || scale <= 0.0 ||
        (julia && (parse_double(argv[7], &jre) || parse_double(argv[8], &jim)))) {
        fprintf(stderr, "mandel: invalid argument\n");
        usage(argv[0]);
        return 2;
    }

    const int w = (int)width, h = (int)height, maxit = (int)max_iter;
    const double step = scale / w;
    const double x0 = cx - 0.5 * scale;
    const double y0 = cy + 0.5 * step * h;   /* top row */

    int *iters = malloc((size_t)w * h * sizeof *iters);
    long long *row_cost = malloc((size_t)h * sizeof *row_cost);
    if (!iters || !row_cost) {
        fprintf(stderr, "mandel: out of memory for a %dx%d image\n", w, h);
        return 1;
    }

    long long hist[NCOLORS + 1] = {0};   /* last entry: inside the set */
    long long inside = 0, total_iter = 0;
    int max_escape = 0;
    int min_escape = maxit;

    /* Rows that cross the set cost up to max_iter per pixel, rows far
     * outside only a handful: the work per row is very uneven. */
#pragma omp parallel for reduction(+:hist[:NCOLORS + 1], inside, total_iter) reduction(max:max_escape) reduction(min:min_escape)
    for (int y = 0; y < h; y++) {
        const double ci_pix = y0 - y * step;
        long long cost = 0;
        for (int x = 0; x < w; x++) {
            const double cr_pix = x0 + x * step;
            double zr, zi, cr, ci;
            if (julia) {
                zr = cr_pix; zi = ci_pix; cr = jre; ci = jim;
            } else {
                zr = 0.0; zi = 0.0; cr = cr_pix; ci = ci_pix;
            }
            double zr2 = zr * zr, zi2 = zi * zi;
            int it = 0;
            while (it < maxit && zr2 + zi2 <= 4.0) {
                zi = 2.0 * zr * zi + ci;
                zr = zr2 - zi2 + cr;
                zr2 = zr * zr;
                zi2 = zi * zi;
                it++;
            }
            iters[(size_t)y * w + x] = it;
            cost += it;
            if (it >= maxit) {
                hist[NCOLORS]++;
                inside++;
            } else {
                hist[color_index(it, maxit)]++;
                if (it > max_escape) max_escape = it;
                if (it < min_escape) min_escape = it;
            }
        }
        row_cost[y] = cost;
        total_iter += cost;
    }

    long long npix = (long long)w * h;
    long long outside = npix - inside;
    if (outside == 0)
        min_escape = max_escape = 0;

    /* per-strip cost profile (sequential over the stored row costs) */
    long long strip[NSTRIPS] = {0};
    for (int y = 0; y < h; y++)
        strip[(long long)y * NSTRIPS / h] += row_cost[y];
    long long heaviest_row = 0;
    int heaviest_y = 0;
    for (int y = 0; y < h; y++)
        if (row_cost[y] > heaviest_row) {
            heaviest_row = row_cost[y];
            heaviest_y = y;
        }

    if (julia)
        printf("julia set c = %.6f%+.6fi, ", jre, jim);
    else
        printf("mandelbrot set, ");
    printf("%d x %d pixels, max_iter %d\n", w, h, maxit);
    printf("view: centre (%.6f, %.6f), width %.6g, pixel size %.3e\n", cx, cy, scale, step);
    printf("total iterations: %lld (%.2f per pixel)\n", total_iter, (double)total_iter / npix);
    printf("inside the set: %lld pixels (%.3f%%)\n", inside, 100.0 * inside / npix);
    printf("escaping points: min %d, max %d iterations\n", min_escape, max_escape);
    printf("most expensive row: %d (%lld iterations)\n", heaviest_y, heaviest_row);
    printf("cost per strip (%% of all iterations):");
    for (int s = 0; s < NSTRIPS; s++)
        printf(" %.1f", total_iter ? 100.0 * strip[s] / total_iter : 0.0);
    printf("\n");

    /* top-5 palette entries by pixel count */
    printf("top colour bands:\n");
    int used[NCOLORS + 1] = {0};
    for (int k = 0; k < 5; k++) {
        int best = -1;
        for (int c = 0; c <= NCOLORS; c++)
            if (!used[c] && (best < 0 || hist[c] > hist[best]))
                best = c;
        if (best < 0 || hist[best] == 0)
            break;
        used[best] = 1;
        if (best == NCOLORS)
            printf("  inside     %9lld pixels (%6.2f%%)\n", hist[best], 100.0 * hist[best] / npix);
        else
            printf("  band %2d    %9lld pixels (%6.2f%%)\n", best, hist[best], 100.0 * hist[best] / npix);
    }

    if (outpath) {
        FILE *f = fopen(outpath, "wb");
        if (!f) {
            fprintf(stderr, "mandel: cannot write '%s': %s\n", outpath, strerror(errno));
            return 1;
        }
        unsigned char *img = malloc((size_t)npix * 3);
        if (!img) {
            fprintf(stderr, "mandel: out of memory for the output image\n");
            fclose(f);
            return 1;
        }
#pragma omp parallel for
        for (long long i = 0; i < npix; i++) {
            unsigned char *rgb = img + 3 * i;
            rgb[0] = rgb[1] = rgb[2] = 0;
            if (iters[i] < maxit)
                palette(color_index(iters[i], maxit), rgb);
        }
        fprintf(f, "P6\n%d %d\n255\n", w, h);
        size_t nw = fwrite(img, 3, (size_t)npix, f);
        free(img);
        if (fclose(f) != 0 || nw != (size_t)npix) {
            fprintf(stderr, "mandel: error writing '%s'\n", outpath);
            return 1;
        }
        printf("wrote %s\n", outpath);
    }

    free(iters);
    free(row_cost);
    return 0;
}
