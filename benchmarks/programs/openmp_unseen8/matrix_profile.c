/*
 * matrix_profile.c - brute-force matrix profile of a time series.
 *
 * Usage: matrix_profile <series file> <window length>
 *
 * The series file holds one number per line (blank lines and '#' comments
 * are skipped).  For every subsequence of the given length the program
 * finds the z-normalised Euclidean distance to its nearest neighbour,
 * ignoring trivial matches that overlap it by more than half a window,
 * and reports the best motif pair, the top discord and a histogram of the
 * profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>

#define BLOCK 16           /* candidate subsequences handled per tile */
#define HIST_BINS 12
#define BAR_WIDTH 40

static const char *prog = "matrix_profile";

static void usage(void)
{
    fprintf(stderr, "usage: %s <series file> <window length 4..1000>\n", prog);
    exit(2);
}

static double *read_series(const char *path, long *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    long cap = 4096, n = 0, lineno = 0;
    double *x = malloc(cap * sizeof *x);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (end == p || *end != '\0' || errno == ERANGE || !isfinite(v)) {
            fprintf(stderr, "%s: %s:%ld: not a number\n", prog, path, lineno);
            exit(1);
        }
        if (n == cap) {
            cap *= 2;
            x = realloc(x, cap * sizeof *x);
            if (!x) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(1);
            }
        }
        x[n++] = v;
    }
    fclose(f);
    *count = n;
    return x;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage();
    char *end;
    errno = 0;
    long m = strtol(argv[2], &end, 10);
    if (errno || end == argv[2] || *end || m < 4 || m > 1000)
        usage();

    long n;
    double *x = read_series(argv[1], &n);
    const long excl = (m + 1) / 2;       /* exclusion zone half-width */
    const long ns = n - m + 1;           /* number of subsequences */
    if (ns < 2 * excl + 2) {
        fprintf(stderr, "%s: %s: series of %ld values is too short for window %ld\n",
                prog, argv[1], n, m);
        return 1;
    }

    /* Centre the series (helps the running sums), then sliding means and
     * standard deviations from running sums. */
    double gmean = 0.0;
    for (long i = 0; i < n; i++)
        gmean += x[i];
    gmean /= n;
    for (long i = 0; i < n; i++)
        x[i] -= gmean;

    double *mu = malloc(ns * sizeof *mu), *sd = malloc(ns * sizeof *sd);
    double *isd = malloc(ns * sizeof *isd);
    double *prof = malloc(ns * sizeof *prof);
    long *nn = malloc(ns * sizeof *nn);
    if (!mu || !sd || !isd || !prof || !nn) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    double s1 = 0.0, s2 = 0.0;
    for (long i = 0; i < m; i++) {
        s1 += x[i];
        s2 += x[i] * x[i];
    }
    long flat = 0;
    for (long i = 0; i < ns; i++) {
        if (i > 0) {
            double a = x[i - 1], b = x[i + m - 1];
            s1 += b - a;
            s2 += b * b - a * a;
        }
        mu[i] = s1 / m;
        double var = s2 / m - mu[i] * mu[i];
        if (var < 1e-12) {
            var = 1e-12;        /* flat window: treat as tiny noise */
            flat++;
        }
        sd[i] = sqrt(var);
        isd[i] = 1.0 / sd[i];
    }

    /* For subsequence i, dot products with a tile of BLOCK candidates j
     * are accumulated over the window, then turned into distances:
     *   d^2 = 2m (1 - (QT - m mu_i mu_j) / (m sd_i sd_j))
     * with the divisions replaced by precomputed reciprocals. */
    #pragma omp parallel for
    for (long i = 0; i < ns; i++) {
        double qt[BLOCK];
        double best = INFINITY;
        long best_j = -1;
        const double *xi = x + i;
        const double mmi = m * mu[i], inv_msi = 1.0 / (m * sd[i]);
        for (long j0 = 0; j0 < ns; j0 += BLOCK) {
            long jn = ns - j0 < BLOCK ? ns - j0 : BLOCK;
            for (long jj = 0; jj < BLOCK; jj++)
                qt[jj] = 0.0;
            if (jn == BLOCK) {
                /* full tile: fixed trip count keeps qt[] in registers */
                for (long k = 0; k < m; k++) {
                    const double t = xi[k];
                    const double *xj = x + j0 + k;
                    for (long jj = 0; jj < BLOCK; jj++)
                        qt[jj] += t * xj[jj];
                }
            } else {
                for (long k = 0; k < m; k++) {
                    const double t = xi[k];
                    const double *xj = x + j0 + k;
                    for (long jj = 0; jj < jn; jj++)
                        qt[jj] += t * xj[jj];
                }
            }
            for (long jj = 0; jj < jn; jj++) {
                long j = j0 + jj;
                if (j > i - excl && j < i + excl)
                    continue;
                double corr = (qt[jj] - mmi * mu[j]) * inv_msi * isd[j];
                double d2 = 2.0 * m * (1.0 - corr);
                if (d2 < best) {
                    best = d2;
                    best_j = j;
                }
            }
        }
        prof[i] = sqrt(best > 0.0 ? best : 0.0);
        nn[i] = best_j;
    }

    /* ---- report ---- */
    long motif = 0, discord = 0;
    double pmin = prof[0], pmax = prof[0], psum = 0.0;
    for (long i = 0; i < ns; i++) {
        if (prof[i] < prof[motif]) motif = i;
        if (prof[i] > prof[discord]) discord = i;
        if (prof[i] < pmin) pmin = prof[i];
        if (prof[i] > pmax) pmax = prof[i];
        psum += prof[i];
    }
    printf("series: %ld values, window %ld, %ld subsequences, exclusion zone +-%ld\n",
           n, m, ns, excl - 1);
    if (flat)
        printf("warning: %ld nearly constant windows\n", flat);
    long a = motif < nn[motif] ? motif : nn[motif];
    long b = motif < nn[motif] ? nn[motif] : motif;
    printf("top motif:   subsequences %ld and %ld, distance %.4f (%.4f of sqrt(2m))\n",
           a, b, prof[motif], prof[motif] / sqrt(2.0 * m));
    printf("top discord: subsequence %ld, nearest neighbour %ld at distance %.4f\n",
           discord, nn[discord], prof[discord]);
    printf("profile: min %.4f, mean %.4f, max %.4f\n", pmin, psum / ns, pmax);

    long hist[HIST_BINS] = { 0 };
    double width = (pmax - pmin) / HIST_BINS;
    for (long i = 0; i < ns; i++) {
        int bin = width > 0 ? (int)((prof[i] - pmin) / width) : 0;
        if (bin >= HIST_BINS)
            bin = HIST_BINS - 1;
        hist[bin]++;
    }
    long hmax = 0;
    for (int k = 0; k < HIST_BINS; k++)
        if (hist[k] > hmax)
            hmax = hist[k];
    printf("profile histogram:\n");
    for (int k = 0; k < HIST_BINS; k++) {
        int bar = (int)(hist[k] * BAR_WIDTH / hmax);
        printf("  %7.3f - %7.3f %7ld %.*s\n", pmin + k * width, pmin + (k + 1) * width,
               hist[k], bar, "########################################");
    }

    free(x);
    free(mu);
    free(sd);
    free(isd);
    free(prof);
    free(nn);
    return 0;
}
