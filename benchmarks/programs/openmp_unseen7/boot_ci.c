/*
 * boot_ci - bootstrap confidence intervals for paired data.
 *
 * Reads a file of "x y" pairs (lines starting with '#' are comments) and
 * draws a number of bootstrap resamples.  For each resample it computes the
 * median and the 10% trimmed mean of both columns and Pearson's correlation
 * of the pairs.  Each resample uses its own generator, seeded from the base
 * seed plus the resample number, so the result does not depend on how the
 * resamples are shared among threads.
 *
 * usage: boot_ci <data-file> <resamples> [seed]
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSTAT 5
#define TRIM 0.10
#define LEVEL 0.95

static const char *prog = "boot_ci";
static const char *stat_name[NSTAT] = {
    "median(x)", "trimmed mean(x)", "median(y)", "trimmed mean(y)", "correlation r"};

static void usage(void)
{
    fprintf(stderr, "usage: %s <data-file> <resamples> [seed]\n", prog);
    exit(2);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* uniform integer in [0, n) */
static size_t draw_index(uint64_t *s, size_t n)
{
    return (size_t)(((splitmix64(s) >> 32) * (uint64_t)n) >> 32);
}

static double median_sorted(const double *v, size_t n)
{
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double trimmed_mean_sorted(const double *v, size_t n)
{
    size_t cut = (size_t)(TRIM * (double)n);
    double s = 0.0;
    for (size_t i = cut; i < n - cut; i++)
        s += v[i];
    return s / (double)(n - 2 * cut);
}

static double pearson(const double *x, const double *y, size_t n)
{
    double mx = 0.0, my = 0.0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0.0, syy = 0.0, sxy = 0.0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    if (sxx <= 0.0 || syy <= 0.0)
        return 0.0;
    return sxy / sqrt(sxx * syy);
}

/* all five statistics of the sample (x, y); sx, sy are scratch arrays */
static void statistics(const double *x, const double *y, size_t n, double *sx, double *sy,
                       double out[NSTAT])
{
    out[4] = pearson(x, y, n);
    memcpy(sx, x, n * sizeof *sx);
    memcpy(sy, y, n * sizeof *sy);
    qsort(sx, n, sizeof *sx, cmp_double);
    qsort(sy, n, sizeof *sy, cmp_double);
    out[0] = median_sorted(sx, n);
    out[1] = trimmed_mean_sorted(sx, n);
    out[2] = median_sorted(sy, n);
    out[3] = trimmed_mean_sorted(sy, n);
}

static void read_data(const char *path, double **xo, double **yo, size_t *no)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    size_t cap = 1024, n = 0;
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y);
    char line[512];
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        double a, b;
        char extra;
        if (sscanf(p, "%lf %lf %c", &a, &b, &extra) != 2 || !isfinite(a) || !isfinite(b)) {
            fprintf(stderr, "%s: %s:%ld: expected two numbers\n", prog, path, lineno);
            exit(1);
        }
        if (n == cap) {
            cap *= 2;
            x = realloc(x, cap * sizeof *x);
            y = realloc(y, cap * sizeof *y);
            if (!x || !y) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(1);
            }
        }
        x[n] = a;
        y[n] = b;
        n++;
    }
    fclose(f);
    if (n < 10) {
        fprintf(stderr, "%s: %s: need at least 10 pairs, found %zu\n", prog, path, n);
        exit(1);
    }
    *xo = x;
    *yo = y;
    *no = n;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4)
        usage();
    char *end;
    errno = 0;
    long nres = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || nres < 20 || nres > 10000000)
        usage();
    unsigned long long seed = 1;
    if (argc == 4) {
        errno = 0;
        seed = strtoull(argv[3], &end, 10);
        if (errno || *end || end == argv[3] || argv[3][0] == '-')
            usage();
    }

    double *x, *y;
    size_t n;
    read_data(argv[1], &x, &y, &n);

    double *sx = malloc(n * sizeof *sx), *sy = malloc(n * sizeof *sy);
    double est[NSTAT];
    statistics(x, y, n, sx, sy, est);

    /* boot[s * nres + b] = statistic s of resample b */
    double *boot = malloc((size_t)NSTAT * (size_t)nres * sizeof *boot);
    if (!boot) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }

#pragma omp parallel
    {
        double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
        double *tx = malloc(n * sizeof *tx), *ty = malloc(n * sizeof *ty);
#pragma omp for
        for (long b = 0; b < nres; b++) {
            uint64_t state = seed + (uint64_t)b;
            for (size_t i = 0; i < n; i++) {
                size_t k = draw_index(&state, n);
                rx[i] = x[k];
                ry[i] = y[k];
            }
            double st[NSTAT];
            statistics(rx, ry, n, tx, ty, st);
            for (int s = 0; s < NSTAT; s++)
                boot[(size_t)s * nres + b] = st[s];
        }
        free(rx);
        free(ry);
        free(tx);
        free(ty);
    }

    printf("%zu pairs, %ld bootstrap resamples, seed %llu\n", n, nres, seed);
    printf("%-16s %10s %9s   %-21s  %-21s\n", "statistic", "estimate", "std.err",
           "95% percentile CI", "95% basic CI");
    double alpha = 1.0 - LEVEL;
    for (int s = 0; s < NSTAT; s++) {
        double *v = boot + (size_t)s * nres;
        double mean = 0.0, ss = 0.0;
        for (long b = 0; b < nres; b++)
            mean += v[b];
        mean /= (double)nres;
        for (long b = 0; b < nres; b++)
            ss += (v[b] - mean) * (v[b] - mean);
        double se = sqrt(ss / (double)(nres - 1));
        qsort(v, (size_t)nres, sizeof *v, cmp_double);
        long lo_i = (long)floor(alpha / 2 * (double)(nres - 1));
        long hi_i = (long)ceil((1.0 - alpha / 2) * (double)(nres - 1));
        double lo = v[lo_i], hi = v[hi_i];
        printf("%-16s %10.4f %9.4f   [%8.4f, %8.4f]   [%8.4f, %8.4f]\n", stat_name[s], est[s],
               se, lo, hi, 2.0 * est[s] - hi, 2.0 * est[s] - lo);
    }
    double bias_med = 0.0;
    for (long b = 0; b < nres; b++)
        bias_med += boot[b];
    printf("bootstrap bias of median(x): %.4f\n", bias_med / (double)nres - est[0]);

    free(boot);
    free(sx);
    free(sy);
    free(x);
    free(y);
    return 0;
}
