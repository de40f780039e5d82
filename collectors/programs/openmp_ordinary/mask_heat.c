/*
 * mask_heat.c - steady-state temperature of a plate of irregular shape.
 *
 * usage: mask_heat mask.pgm tolerance max_iter [jacobi|rb] [omega]
 *
 * The shape comes from a grayscale PGM image (P2 or P5, maxval 255):
 *   0        outside the plate (insulated: no heat flows there)
 *   255      interior cell, temperature unknown
 *   1..254   boundary cell held at that temperature (a heater, a cooled edge)
 * The Laplace equation is solved on the interior cells, either with Jacobi
 * iterations (two buffers) or red-black Gauss-Seidel with over-relaxation
 * factor omega (default 1.0), until the largest change of a cell in one
 * iteration falls below `tolerance` or `max_iter` iterations have been done.
 * Rows are stored as lists of interior cells, so rows crossing holes or
 * narrow parts of the plate have little work.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define OUTSIDE 0
#define INTERIOR 255
#define PROF_R 6
#define PROF_C 8

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s mask.pgm tolerance max_iter [jacobi|rb] [omega]\n", prog);
    fprintf(stderr, "  mask.pgm   0 = outside, 255 = interior, 1..254 = fixed temperature\n");
    fprintf(stderr, "  tolerance  stop when the largest change per iteration is below this\n");
    fprintf(stderr, "  max_iter   iteration limit\n");
    fprintf(stderr, "  method     jacobi (default) or rb (red-black Gauss-Seidel / SOR)\n");
    fprintf(stderr, "  omega      over-relaxation factor for rb, 0 < omega < 2 (default 1.0)\n");
}

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
    *value = (int)v;
    return 0;
}

/* Loads the mask into a (w+2)x(h+2) array with a ring of OUTSIDE cells. */
static unsigned char *load_mask(const char *path, int *pw, int *ph, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    char magic[2];
    int w, h, maxval;
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '2' && magic[1] != '5')) {
        snprintf(err, errlen, "'%s' is not a P2/P5 PGM file", path);
        fclose(f);
        return NULL;
    }
    if (read_header_int(f, &w) || read_header_int(f, &h) || read_header_int(f, &maxval) ||
        w < 3 || h < 3 || maxval != 255) {
        snprintf(err, errlen, "'%s': malformed PGM header (need maxval 255, at least 3x3)", path);
        fclose(f);
        return NULL;
    }
    int W = w + 2;
    unsigned char *m = calloc((size_t)W * (h + 2), 1);
    unsigned char *row = malloc(w);
    if (!m || !row) {
        snprintf(err, errlen, "out of memory for a %dx%d mask", w, h);
        fclose(f);
        return NULL;
    }
    for (int y = 0; y < h; y++) {
        if (magic[1] == '5') {
            if (fread(row, 1, w, f) != (size_t)w) {
                snprintf(err, errlen, "'%s': truncated pixel data at row %d", path, y);
                fclose(f);
                return NULL;
            }
        } else {
            for (int x = 0; x < w; x++) {
                int v;
                if (fscanf(f, "%d", &v) != 1 || v < 0 || v > 255) {
                    snprintf(err, errlen, "'%s': bad pixel value at row %d column %d", path, y, x);
                    fclose(f);
                    return NULL;
                }
                row[x] = (unsigned char)v;
            }
        }
        memcpy(m + (size_t)(y + 1) * W + 1, row, w);
    }
    free(row);
    fclose(f);
    *pw = w;
    *ph = h;
    return m;
}

typedef struct {
    int W, H;            /* padded size */
    unsigned char *mask;
    int *row_start;      /* interior cells of row y: cells[row_start[y] .. row_start[y+1]) */
    int *cells;          /* padded linear index of each interior cell, row-major */
} domain_t;

/* new value of one interior cell from the current field */
static inline double relax(const double *t, const unsigned char *mask, int i, int W)
{
    double s = 0.0;
    int n = 0;
    if (mask[i - 1] != OUTSIDE) { s += t[i - 1]; n++; }
    if (mask[i + 1] != OUTSIDE) { s += t[i + 1]; n++; }
    if (mask[i - W] != OUTSIDE) { s += t[i - W]; n++; }
    if (mask[i + W] != OUTSIDE) { s += t[i + W]; n++; }
    return n ? s / n : t[i];
}

static double jacobi_step(const domain_t *d, const double *t, double *tn)
{
    double maxdiff = 0.0;
#pragma omp parallel for reduction(max:maxdiff)
    for (int y = 1; y < d->H - 1; y++) {
        for (int k = d->row_start[y]; k < d->row_start[y + 1]; k++) {
            int i = d->cells[k];
            double v = relax(t, d->mask, i, d->W);
            double diff = fabs(v - t[i]);
            if (diff > maxdiff)
                maxdiff = diff;
            tn[i] = v;
        }
    }
    return maxdiff;
}

static double redblack_step(const domain_t *d, double *t, double omega)
{
    double maxdiff = 0.0;
    for (int colour = 0; colour < 2; colour++) {
#pragma omp parallel for reduction(max:maxdiff)
        for (int y = 1; y < d->H - 1; y++) {
            for (int k = d->row_start[y]; k < d->row_start[y + 1]; k++) {
                int i = d->cells[k];
                int x = i - y * d->W;
                if (((x + y) & 1) != colour)
                    continue;
                double v = t[i] + omega * (relax(t, d->mask, i, d->W) - t[i]);
                double diff = fabs(v - t[i]);
                if (diff > maxdiff)
                    maxdiff = diff;
                t[i] = v;
            }
        }
    }
    return maxdiff;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    double tol = strtod(argv[2], &end);
    if (*end || end == argv[2] || !(tol > 0)) {
        usage(argv[0]);
        return 2;
    }
    long max_iter = strtol(argv[3], &end, 10);
    if (*end || end == argv[3] || max_iter < 1 || max_iter > 100000000) {
        usage(argv[0]);
        return 2;
    }
    int use_rb = 0;
    if (argc > 4) {
        if (strcmp(argv[4], "rb") == 0)
            use_rb = 1;
        else if (strcmp(argv[4], "jacobi") != 0) {
            usage(argv[0]);
            return 2;
        }
    }
    double omega = 1.0;
    if (argc > 5) {
        omega = strtod(argv[5], &end);
        if (*end || end == argv[5] || !(omega > 0 && omega < 2)) {
            usage(argv[0]);
            return 2;
        }
    }

    char err[512];
    int w, h;
    domain_t d;
    d.mask = load_mask(argv[1], &w, &h, err, sizeof err);
    if (!d.mask) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    d.W = w + 2;
    d.H = h + 2;
    size_t npad = (size_t)d.W * d.H;

    /* interior cell lists per row; boundary statistics */
    d.row_start = malloc(sizeof(int) * (d.H + 1));
    long n_int = 0, n_bnd = 0, bnd_sum = 0;
    int bmin = 255, bmax = 0;
    for (size_t i = 0; i < npad; i++) {
        unsigned char m = d.mask[i];
        if (m == INTERIOR)
            n_int++;
        else if (m != OUTSIDE) {
            n_bnd++;
            bnd_sum += m;
            if (m < bmin) bmin = m;
            if (m > bmax) bmax = m;
        }
    }
    if (n_int == 0 || n_bnd == 0) {
        fprintf(stderr, "%s: '%s' has %ld interior and %ld boundary cells; need both\n",
                argv[0], argv[1], n_int, n_bnd);
        return 1;
    }
    d.cells = malloc(sizeof(int) * n_int);
    int k = 0, busiest = 0;
    for (int y = 0; y < d.H; y++) {
        d.row_start[y] = k;
        for (int x = 0; x < d.W; x++)
            if (d.mask[(size_t)y * d.W + x] == INTERIOR)
                d.cells[k++] = y * d.W + x;
        if (k - d.row_start[y] > busiest)
            busiest = k - d.row_start[y];
    }
    d.row_start[d.H] = k;

    double t0 = (double)bnd_sum / n_bnd;
    double *t = malloc(sizeof(double) * npad), *tn = malloc(sizeof(double) * npad);
    if (!t || !tn) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
#pragma omp parallel for
    for (int y = 0; y < d.H; y++) {
        for (int x = 0; x < d.W; x++) {
            size_t i = (size_t)y * d.W + x;
            unsigned char m = d.mask[i];
            t[i] = (m == INTERIOR) ? t0 : (double)m;
            tn[i] = t[i];
        }
    }

    printf("mask %s: %dx%d, %ld interior cells, %ld fixed cells (%d..%d), widest row %d cells\n",
           argv[1], w, h, n_int, n_bnd, bmin, bmax, busiest);
    if (use_rb)
        printf("method: red-black Gauss-Seidel, omega %.3f, tolerance %g, max %ld iterations\n",
               omega, tol, max_iter);
    else
        printf("method: Jacobi, tolerance %g, max %ld iterations\n", tol, max_iter);

    long it = 0;
    double res = 0.0;
    while (it < max_iter) {
        if (use_rb) {
            res = redblack_step(&d, t, omega);
        } else {
            res = jacobi_step(&d, t, tn);
            double *s = t; t = tn; tn = s;
        }
        it++;
        if (res < tol)
            break;
    }
    printf("iterations: %ld (%s)\n", it, res < tol ? "converged" : "iteration limit reached");
    printf("final residual (max change): %.6e\n", res);

    /* per-row partial sums, added in row order afterwards */
    double *rowsum = calloc((size_t)d.H * PROF_C, sizeof(double));
    int *rowcnt = calloc((size_t)d.H * PROF_C, sizeof(int));
    double tmin = 1e300, tmax = -1e300;
#pragma omp parallel for reduction(min:tmin) reduction(max:tmax)
    for (int y = 1; y < d.H - 1; y++) {
        for (int k2 = d.row_start[y]; k2 < d.row_start[y + 1]; k2++) {
            int i = d.cells[k2];
            int x = i - y * d.W;
            int c = (x - 1) * PROF_C / w;
            rowsum[(size_t)y * PROF_C + c] += t[i];
            rowcnt[(size_t)y * PROF_C + c]++;
            if (t[i] < tmin) tmin = t[i];
            if (t[i] > tmax) tmax = t[i];
        }
    }
    double total = 0.0;
    double prof[PROF_R][PROF_C] = {{0}};
    long pcnt[PROF_R][PROF_C] = {{0}};
    for (int y = 1; y < d.H - 1; y++) {
        int r = (y - 1) * PROF_R / h;
        for (int c = 0; c < PROF_C; c++) {
            total += rowsum[(size_t)y * PROF_C + c];
            prof[r][c] += rowsum[(size_t)y * PROF_C + c];
            pcnt[r][c] += rowcnt[(size_t)y * PROF_C + c];
        }
    }
    printf("mean interior temperature: %.6f (min %.4f, max %.4f)\n", total / n_int, tmin, tmax);
    printf("coarse profile (mean temperature per block, '-' = no interior cells):\n");
    for (int r = 0; r < PROF_R; r++) {
        for (int c = 0; c < PROF_C; c++) {
            if (pcnt[r][c])
                printf(" %7.2f", prof[r][c] / pcnt[r][c]);
            else
                printf("       -");
        }
        printf("\n");
    }
    free(rowsum);
    free(rowcnt);
    free(t);
    free(tn);
    free(d.cells);
    free(d.row_start);
    free(d.mask);
    return 0;
}
