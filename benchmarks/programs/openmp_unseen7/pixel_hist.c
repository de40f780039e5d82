/*
 * pixel_hist - per-region intensity statistics of an 8-bit image.
 *
 * Reads a binary PGM (P5, maxval 255) and a list of rectangular regions of
 * interest ("name x y width height" per line).  For each region it builds
 * a 256-bin histogram of the intensities and one of the local gradient
 * magnitude, and reports the mean, standard deviation, Otsu's threshold
 * with the share of pixels above it, a few percentiles, the median and
 * 99th percentile of the gradient and the share of edge pixels.
 *
 * usage: pixel_hist <image.pgm> <regions-file> [percentile ...]
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REGIONS 256
#define MAX_PCT 16
#define EDGE_LEVEL 24 /* gradient magnitude counted as an edge */

static const char *prog = "pixel_hist";

struct region {
    char name[32];
    long x, y, w, h;
};

static void usage(void)
{
    fprintf(stderr, "usage: %s <image.pgm> <regions-file> [percentile ...]\n", prog);
    exit(2);
}

static void die_file(const char *path, const char *msg)
{
    fprintf(stderr, "%s: %s: %s\n", prog, path, msg);
    exit(1);
}

/* read one header number, skipping white space and comments */
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
        if (v > 100000000)
            die_file(path, "malformed PGM header");
        c = fgetc(f);
    }
    if (!isspace(c))
        die_file(path, "malformed PGM header");
    return v;
}

static unsigned char *read_pgm(const char *path, long *w, long *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    if (fgetc(f) != 'P' || fgetc(f) != '5')
        die_file(path, "not a binary PGM (P5) file");
    *w = pgm_number(f, path);
    *h = pgm_number(f, path);
    long maxval = pgm_number(f, path);
    if (*w < 1 || *h < 1 || *w > 100000 || *h > 100000)
        die_file(path, "bad image size");
    if (maxval != 255)
        die_file(path, "only 8-bit images (maxval 255) are supported");
    size_t n = (size_t)*w * (size_t)*h;
    unsigned char *px = malloc(n);
    if (!px)
        die_file(path, "out of memory");
    if (fread(px, 1, n, f) != n)
        die_file(path, "truncated pixel data");
    fclose(f);
    return px;
}

static int read_regions(const char *path, struct region *r, long iw, long ih)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    char line[256], extra;
    long lineno = 0;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (n == MAX_REGIONS) {
            fprintf(stderr, "%s: %s:%ld: too many regions\n", prog, path, lineno);
            exit(1);
        }
        struct region *q = &r[n];
        if (sscanf(p, "%31s %ld %ld %ld %ld %c", q->name, &q->x, &q->y, &q->w, &q->h, &extra) !=
            5) {
            fprintf(stderr, "%s: %s:%ld: expected: name x y width height\n", prog, path, lineno);
            exit(1);
        }
        if (q->x < 0 || q->y < 0 || q->w < 1 || q->h < 1 || q->x + q->w > iw ||
            q->y + q->h > ih) {
            fprintf(stderr, "%s: %s:%ld: region '%s' lies outside the %ldx%ld image\n", prog,
                    path, lineno, q->name, iw, ih);
            exit(1);
        }
        n++;
    }
    fclose(f);
    if (n == 0)
        die_file(path, "no regions");
    return n;
}

/* Otsu's threshold: the t maximising between-class variance (class 0 = v <= t) */
static int otsu(const unsigned long long *hist, unsigned long long total)
{
    double sum_all = 0.0;
    for (int v = 0; v < 256; v++)
        sum_all += (double)v * (double)hist[v];
    double w0 = 0.0, sum0 = 0.0, best = -1.0;
    int best_t = 0;
    for (int t = 0; t < 255; t++) {
        w0 += (double)hist[t];
        sum0 += (double)t * (double)hist[t];
        double w1 = (double)total - w0;
        if (w0 == 0.0 || w1 == 0.0)
            continue;
        double m0 = sum0 / w0, m1 = (sum_all - sum0) / w1;
        double between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (between > best) {
            best = between;
            best_t = t;
        }
    }
    return best_t;
}

/* smallest value v with at least pct% of the pixels <= v */
static int percentile(const unsigned long long *hist, unsigned long long total, double pct)
{
    double need = pct / 100.0 * (double)total;
    unsigned long long cum = 0;
    for (int v = 0; v < 256; v++) {
        cum += hist[v];
        if ((double)cum >= need && cum > 0)
            return v;
    }
    return 255;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 3 + MAX_PCT)
        usage();
    double pct[MAX_PCT] = {5.0, 50.0, 95.0};
    int npct = 3;
    if (argc > 3) {
        npct = argc - 3;
        for (int k = 0; k < npct; k++) {
            char *end;
            pct[k] = strtod(argv[3 + k], &end);
            if (*end || end == argv[3 + k] || !(pct[k] >= 0.0 && pct[k] <= 100.0))
                usage();
        }
    }

    long iw, ih;
    unsigned char *px = read_pgm(argv[1], &iw, &ih);
    static struct region reg[MAX_REGIONS];
    int nreg = read_regions(argv[2], reg, iw, ih);

    printf("image %s: %ldx%ld, %d regions\n", argv[1], iw, ih, nreg);
    printf("%-10s %9s %7s %6s %6s %7s", "region", "pixels", "mean", "std", "otsu", "above");
    for (int k = 0; k < npct; k++) {
        char lab[16];
        snprintf(lab, sizeof lab, "p%g", pct[k]);
        printf("  %5s", lab);
    }
    printf("  %5s %5s %7s\n", "g50", "g99", "edges");

    for (int r = 0; r < nreg; r++) {
        const struct region *q = &reg[r];
        unsigned long long hist[256], ghist[256];
        memset(hist, 0, sizeof hist);
        memset(ghist, 0, sizeof ghist);

#pragma omp parallel for
        for (long y = q->y; y < q->y + q->h; y++) {
            const unsigned char *row = px + (size_t)y * (size_t)iw;
            for (long x = q->x; x < q->x + q->w; x++) {
                unsigned char v = row[x];
#pragma omp atomic
                hist[v]++;
                /* central differences, clamped at the image border */
                long xl = x > 0 ? x - 1 : x, xr = x + 1 < iw ? x + 1 : x;
                long yu = y > 0 ? y - 1 : y, yd = y + 1 < ih ? y + 1 : y;
                int gx = (int)row[xr] - (int)row[xl];
                int gy = (int)px[(size_t)yd * iw + x] - (int)px[(size_t)yu * iw + x];
                int g = (abs(gx) + abs(gy)) / 2;
                if (g > 255)
                    g = 255;
#pragma omp atomic
                ghist[g]++;
            }
        }

        unsigned long long total = 0, sum = 0, sumsq = 0;
        for (int v = 0; v < 256; v++) {
            total += hist[v];
            sum += (unsigned long long)v * hist[v];
            sumsq += (unsigned long long)v * v * hist[v];
        }
        double mean = (double)sum / (double)total;
        double var = (double)sumsq / (double)total - mean * mean;
        int t = otsu(hist, total);
        unsigned long long above = 0;
        for (int v = t + 1; v < 256; v++)
            above += hist[v];

        printf("%-10s %9llu %7.2f %6.2f %6d %6.2f%%", q->name, total, mean,
               sqrt(var > 0.0 ? var : 0.0), t, 100.0 * (double)above / (double)total);
        for (int k = 0; k < npct; k++)
            printf("  %5d", percentile(hist, total, pct[k]));
        unsigned long long edges = 0;
        for (int v = EDGE_LEVEL; v < 256; v++)
            edges += ghist[v];
        printf("  %5d %5d %6.2f%%\n", percentile(ghist, total, 50.0),
               percentile(ghist, total, 99.0),
               100.0 * (double)edges / (double)total);
    }
    free(px);
    return 0;
}
