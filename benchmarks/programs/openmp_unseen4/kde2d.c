/*
 * kde2d - Gaussian kernel density estimate of 2-D point locations.
 *
 * Usage: kde2d POINTS.csv GRID_SIZE BANDWIDTH
 *
 * POINTS.csv has an optional header line and then one "x,y" pair per
 * line (projected coordinates, e.g. metres).  The density is evaluated at
 * the centres of a GRID_SIZE x GRID_SIZE grid spanning the bounding box of
 * the points.  Only points within 4 bandwidths of a grid centre contribute;
 * they are found through a bin index whose bins are 4 bandwidths wide.
 * The report lists the densest cells, density quantiles and the share of
 * the estimated mass that falls in the densest 1% of cells.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUTOFF 4.0

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s POINTS.csv GRID_SIZE BANDWIDTH\n", prog);
}

static int read_points(const char *path, double **xs, double **ys, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "kde2d: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    int cap = 4096, n = 0, lineno = 0;
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        if (lineno == 1 && (isalpha((unsigned char)*p) || *p == '"'))
            continue;                          /* header */
        char *end;
        errno = 0;
        double a = strtod(p, &end);
        int ok = !errno && end != p;
        double b = 0;
        if (ok) {
            while (*end == ' ' || *end == '\t')
                end++;
            ok = *end == ',';
        }
        if (ok) {
            p = end + 1;
            b = strtod(p, &end);
            ok = !errno && end != p && isfinite(a) && isfinite(b);
            while (ok && isspace((unsigned char)*end))
                end++;
            ok = ok && *end == '\0';
        }
        if (!ok) {
            fprintf(stderr, "kde2d: %s:%d: expected 'x,y'\n", path, lineno);
            free(x);
            free(y);
            fclose(f);
            return -1;
        }
        if (n == cap) {
            cap *= 2;
            x = realloc(x, cap * sizeof *x);
            y = realloc(y, cap * sizeof *y);
        }
        x[n] = a;
        y[n] = b;
        n++;
    }
    fclose(f);
    if (n < 2) {
        fprintf(stderr, "kde2d: %s: need at least two points\n", path);
        free(x);
        free(y);
        return -1;
    }
    *xs = x;
    *ys = y;
    *count = n;
    return 0;
}

static const double *sort_key;

static int cmp_desc(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_key[i] != sort_key[j])
        return sort_key[i] > sort_key[j] ? -1 : 1;
    return (i > j) - (i < j);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    long G = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || G < 2 || G > 10000) {
        usage(argv[0]);
        return 2;
    }
    errno = 0;
    double h = strtod(argv[3], &end);
    if (errno || *end || end == argv[3] || !(h > 0) || !isfinite(h)) {
        usage(argv[0]);
        return 2;
    }

    double *px, *py;
    int n;
    if (read_points(argv[1], &px, &py, &n))
        return 1;

    double xmin = px[0], xmax = px[0], ymin = py[0], ymax = py[0];
    for (int i = 1; i < n; i++) {
        if (px[i] < xmin) xmin = px[i];
        if (px[i] > xmax) xmax = px[i];
        if (py[i] < ymin) ymin = py[i];
        if (py[i] > ymax) ymax = py[i];
    }
    if (xmax <= xmin || ymax <= ymin) {
        fprintf(stderr, "kde2d: %s: points do not span an area\n", argv[1]);
        return 1;
    }

    /* bin index: square bins as wide as the cutoff radius */
    double radius = CUTOFF * h;
    int nbx = (int)((xmax - xmin) / radius) + 1;
    int nby = (int)((ymax - ymin) / radius) + 1;
    int nbins = nbx * nby;
    int *bin_of = malloc((size_t)n * sizeof *bin_of);
    int *start = calloc((size_t)nbins + 1, sizeof *start);
    double *sx = malloc((size_t)n * sizeof *sx), *sy = malloc((size_t)n * sizeof *sy);

    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        int bx = (int)((px[i] - xmin) / radius);
        int by = (int)((py[i] - ymin) / radius);
        if (bx >= nbx) bx = nbx - 1;
        if (by >= nby) by = nby - 1;
        bin_of[i] = by * nbx + bx;
    }
    for (int i = 0; i < n; i++)
        start[bin_of[i] + 1]++;
    for (int b = 0; b < nbins; b++)
        start[b + 1] += start[b];
    int *fill = malloc((size_t)nbins * sizeof *fill);
    memcpy(fill, start, (size_t)nbins * sizeof *fill);
    for (int i = 0; i < n; i++) {
        int k = fill[bin_of[i]]++;
        sx[k] = px[i];
        sy[k] = py[i];
    }
    free(fill);

    /* density at the grid centres */
    size_t ncell = (size_t)G * G;
    double *dens = malloc(ncell * sizeof *dens);
    double dx = (xmax - xmin) / G, dy = (ymax - ymin) / G;
    double r2 = radius * radius;
    double inv2h2 = 1.0 / (2.0 * h * h);
    double norm = 1.0 / (n * 2.0 * M_PI * h * h);

    #pragma omp parallel for
    for (long j = 0; j < G; j++) {
        double cy = ymin + (j + 0.5) * dy;
        int by0 = (int)floor((cy - radius - ymin) / radius);
        int by1 = (int)floor((cy + radius - ymin) / radius);
        if (by0 < 0) by0 = 0;
        if (by1 >= nby) by1 = nby - 1;
        for (long i = 0; i < G; i++) {
            double cx = xmin + (i + 0.5) * dx;
            int bx0 = (int)floor((cx - radius - xmin) / radius);
            int bx1 = (int)floor((cx + radius - xmin) / radius);
            if (bx0 < 0) bx0 = 0;
            if (bx1 >= nbx) bx1 = nbx - 1;
            double sum = 0.0;
            for (int by = by0; by <= by1; by++) {
                for (int bx = bx0; bx <= bx1; bx++) {
                    int b = by * nbx + bx;
                    for (int k = start[b]; k < start[b + 1]; k++) {
                        double ex = sx[k] - cx, ey = sy[k] - cy;
                        double d2 = ex * ex + ey * ey;
                        if (d2 < r2)
                            sum += exp(-d2 * inv2h2);
                    }
                }
            }
            dens[j * G + i] = sum * norm;
        }
    }

    /* rank the cells */
    int *idx = malloc(ncell * sizeof *idx);
    for (size_t c = 0; c < ncell; c++)
        idx[c] = (int)c;
    sort_key = dens;
    qsort(idx, ncell, sizeof *idx, cmp_desc);

    double total = 0.0;
    long empty = 0;
    for (size_t c = 0; c < ncell; c++) {
        total += dens[c];
        if (dens[c] == 0.0)
            empty++;
    }
    size_t top1 = (ncell + 99) / 100;
    double top_mass = 0.0;
    for (size_t k = 0; k < top1; k++)
        top_mass += dens[idx[k]];

    /* report intensities as points per square kilometre */
    double scale = n * 1e6;
    printf("%d points, grid %ld x %ld over [%.1f, %.1f] x [%.1f, %.1f], bandwidth %.1f\n",
           n, G, G, xmin, xmax, ymin, ymax, h);
    printf("cell size %.2f x %.2f, bins %d x %d\n", dx, dy, nbx, nby);
    printf("densest cells (points per km2):\n");
    printf("  rank    row    col          x          y  intensity\n");
    int top = ncell < 10 ? (int)ncell : 10;
    for (int k = 0; k < top; k++) {
        int c = idx[k];
        int row = c / (int)G, col = c % (int)G;
        printf("  %4d  %5d  %5d  %9.1f  %9.1f  %9.2f\n", k + 1, row, col,
               xmin + (col + 0.5) * dx, ymin + (row + 0.5) * dy, dens[c] * scale);
    }
    static const double qs[] = {0.50, 0.75, 0.90, 0.99, 0.999};
    printf("intensity quantiles:");
    for (int q = 0; q < 5; q++) {
        size_t rank = (size_t)((1.0 - qs[q]) * (double)(ncell - 1));
        printf("  q%.1f=%.2f", qs[q] * 100, dens[idx[rank]] * scale);
    }
    printf("\n");
    printf("cells beyond the cutoff of every point: %ld (%.2f%%)\n", empty, 100.0 * empty / ncell);
    printf("estimated mass inside the grid: %.4f\n", total * dx * dy);
    printf("share of mass in the densest 1%% of cells (%zu): %.2f%%\n", top1,
           100.0 * top_mass / total);

    free(idx);
    free(dens);
    free(sx);
    free(sy);
    free(start);
    free(bin_of);
    free(px);
    free(py);
    return 0;
}
