/*
 * vec_stats.c - streaming statistics over large synthetic signal arrays.
 *
 * Two signals x (a drifting measurement) and y (a noise channel) of N
 * samples are generated from a seed.  Each pass then
 *     1. computes mean and standard deviation of x,
 *     2. forms z = clip(w_p * (x - mean) / sd + y, lo, hi),
 *     3. computes mean, standard deviation, min, max and a 64-bin
 *        histogram of z,
 *     4. relaxes x towards z (mapped back to x units) and damps the
 *        noise channel with z.
 * The weights w_p, clip limits, histogram range and relaxation factor are
 * read from a small configuration file.
 *
 * Sums are formed per fixed-size block and the block results combined in
 * block order, so the statistics do not depend on the thread count.
 *
 * usage: vec_stats CONFIG N PASSES SEED
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define NBINS 64
#define BLOCK 16384
#define MAX_WEIGHTS 64

typedef struct {
    double clip_lo, clip_hi;
    double hist_lo, hist_hi;
    double mix;
    double noise;
    double drift;
    int nweights;
    double weights[MAX_WEIGHTS];
} config_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s CONFIG N PASSES SEED\n", prog);
    exit(2);
}

static void bad_config(const char *path, int line, const char *what)
{
    fprintf(stderr, "vec_stats: %s:%d: %s\n", path, line, what);
    exit(1);
}

static void read_config(const char *path, config_t *c)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "vec_stats: cannot open %s\n", path);
        exit(1);
    }
    c->clip_lo = -3.0; c->clip_hi = 3.0;
    c->hist_lo = -4.0; c->hist_hi = 4.0;
    c->mix = 0.25; c->noise = 0.5; c->drift = 1.0;
    c->nweights = 0;
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        char key[32];
        int off;
        if (sscanf(s, "%31s%n", key, &off) != 1)
            bad_config(path, lineno, "malformed line");
        char *rest = s + off;
        if (strcmp(key, "clip") == 0) {
            if (sscanf(rest, "%lf %lf", &c->clip_lo, &c->clip_hi) != 2 ||
                !(c->clip_lo < c->clip_hi))
                bad_config(path, lineno, "clip needs LO < HI");
        } else if (strcmp(key, "hist") == 0) {
            if (sscanf(rest, "%lf %lf", &c->hist_lo, &c->hist_hi) != 2 ||
                !(c->hist_lo < c->hist_hi))
                bad_config(path, lineno, "hist needs LO < HI");
        } else if (strcmp(key, "mix") == 0) {
            if (sscanf(rest, "%lf", &c->mix) != 1 || c->mix < 0.0 || c->mix > 1.0)
                bad_config(path, lineno, "mix must be in [0,1]");
        } else if (strcmp(key, "noise") == 0) {
            if (sscanf(rest, "%lf", &c->noise) != 1 || c->noise < 0.0)
                bad_config(path, lineno, "noise must be >= 0");
        } else if (strcmp(key, "drift") == 0) {
            if (sscanf(rest, "%lf", &c->drift) != 1)
                bad_config(path, lineno, "bad drift");
        } else if (strcmp(key, "weights") == 0) {
            char *p = rest, *end;
            for (;;) {
                double w = strtod(p, &end);
                if (end == p)
                    break;
                if (c->nweights == MAX_WEIGHTS)
                    bad_config(path, lineno, "too many weights");
                c->weights[c->nweights++] = w;
                p = end;
            }
            while (isspace((unsigned char)*p))
                p++;
            if (*p != '\0')
                bad_config(path, lineno, "weights must be numbers");
        } else {
            bad_config(path, lineno, "unknown keyword");
        }
    }
    fclose(f);
    if (c->nweights == 0) {
        fprintf(stderr, "vec_stats: %s: no weights given\n", path);
        exit(1);
    }
}

/* counter-based generator: value depends only on (seed, index, stream) */
static inline uint64_t splitmix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline double unit(uint64_t h)   /* (0,1) */
{
    return ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static inline double gauss(uint64_t seed, uint64_t i, uint64_t stream)
{
    uint64_t h1 = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull) ^ (stream << 56));
    uint64_t h2 = splitmix64(h1);
    double u1 = unit(h1), u2 = unit(h2);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

typedef struct {
    double n, mean, m2;
} moments_t;

/* Chan et al. combination of two partial results */
static void merge(moments_t *a, const moments_t *b)
{
    if (b->n == 0.0)
        return;
    double n = a->n + b->n;
    double d = b->mean - a->mean;
    a->mean += d * b->n / n;
    a->m2 += b->m2 + d * d * a->n * b->n / n;
    a->n = n;
}

/* block-wise mean / M2 of v, combined in block order */
static moments_t moments(const double *v, long n, moments_t *part, long nblk)
{
#pragma omp parallel for
    for (long b = 0; b < nblk; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        double s = 0.0;
        for (long i = lo; i < hi; i++)
            s += v[i];
        double m = s / (double)(hi - lo);
        double q = 0.0;
        for (long i = lo; i < hi; i++) {
            double d = v[i] - m;
            q += d * d;
        }
        part[b].n = (double)(hi - lo);
        part[b].mean = m;
        part[b].m2 = q;
    }
    moments_t tot = {0.0, 0.0, 0.0};
    for (long b = 0; b < nblk; b++)
        merge(&tot, &part[b]);
    return tot;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage(argv[0]);
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (*end != '\0' || n < 2 || n > 200000000L)
        usage(argv[0]);
    long passes = strtol(argv[3], &end, 10);
    if (*end != '\0' || passes < 1 || passes > 100000)
        usage(argv[0]);
    unsigned long long seed = strtoull(argv[4], &end, 10);
    if (*end != '\0' || argv[4][0] == '-' || argv[4][0] == '\0')
        usage(argv[0]);

    config_t cfg;
    read_config(argv[1], &cfg);

    double *x = malloc((size_t)n * sizeof(double));
    double *y = malloc((size_t)n * sizeof(double));
    double *z = malloc((size_t)n * sizeof(double));
    long nblk = (n + BLOCK - 1) / BLOCK;
    moments_t *part = malloc((size_t)nblk * sizeof(moments_t));
    if (!x || !y || !z || !part) {
        fprintf(stderr, "vec_stats: out of memory for %ld samples\n", n);
        return 1;
    }

    const double drift = cfg.drift, noise = cfg.noise;
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        double t = (double)i / (double)n;
        x[i] = 10.0 + drift * (t + 0.3 * sin(40.0 * t)) + 0.8 * gauss(seed, (uint64_t)i, 1);
        y[i] = noise * gauss(seed, (uint64_t)i, 2);
    }

    const double lo = cfg.clip_lo, hi = cfg.clip_hi;
    const double hlo = cfg.hist_lo, hwid = (cfg.hist_hi - cfg.hist_lo) / NBINS;
    const double mix = cfg.mix;
    long hist[NBINS];

    printf("samples: %ld, passes: %ld, seed: %llu, clip [%g, %g], mix %g\n", n, passes,
           seed, lo, hi, mix);
    printf("%4s %7s %10s %9s %10s %9s %9s %9s %8s\n", "pass", "weight", "mean_x", "sd_x",
           "mean_z", "sd_z", "min_z", "max_z", "clip%");

    for (long p = 0; p < passes; p++) {
        double w = cfg.weights[p % cfg.nweights];

        /* 1. statistics of x */
        moments_t mx = moments(x, n, part, nblk);
        double mean_x = mx.mean;
        double sd_x = sqrt(mx.m2 / (mx.n - 1.0));
        double scale = sd_x > 0.0 ? w / sd_x : 0.0;

        /* 2. normalise, combine with the noise channel, clip */
        long clipped = 0;
#pragma omp parallel for reduction(+:clipped)
        for (long i = 0; i < n; i++) {
            double v = scale * (x[i] - mean_x) + y[i];
            if (v < lo) { v = lo; clipped++; }
            else if (v > hi) { v = hi; clipped++; }
            z[i] = v;
        }

        /* 3. statistics and histogram of z */
        moments_t mz = moments(z, n, part, nblk);
        double zmin = HUGE_VAL, zmax = -HUGE_VAL;
        memset(hist, 0, sizeof hist);
#pragma omp parallel for reduction(min:zmin) reduction(max:zmax) reduction(+:hist)
        for (long i = 0; i < n; i++) {
            double v = z[i];
            if (v < zmin) zmin = v;
            if (v > zmax) zmax = v;
            long b = (long)floor((v - hlo) / hwid);
            if (b < 0) b = 0;
            if (b >= NBINS) b = NBINS - 1;
            hist[b]++;
        }

        /* 4. relax x towards z, damp the noise channel with z */
#pragma omp parallel for
        for (long i = 0; i < n; i++) {
            x[i] += mix * (mean_x + sd_x * z[i] - x[i]);
            y[i] = 0.95 * y[i] - 0.05 * (z[i] - mz.mean);
        }

        printf("%4ld %7.3f %10.5f %9.5f %10.5f %9.5f %9.4f %9.4f %8.3f\n", p + 1, w, mean_x,
               sd_x, mz.mean, sqrt(mz.m2 / (mz.n - 1.0)), zmin, zmax,
               100.0 * (double)clipped / (double)n);
    }

    /* last pass histogram, summarised */
    long peak = 0, cum = 0;
    int pbin = 0, mbin = -1, q1 = -1, q3 = -1;
    for (int b = 0; b < NBINS; b++) {
        if (hist[b] > peak) { peak = hist[b]; pbin = b; }
        cum += hist[b];
        if (q1 < 0 && 4 * cum >= n) q1 = b;
        if (mbin < 0 && 2 * cum >= n) mbin = b;
        if (q3 < 0 && 4 * cum >= 3 * n) q3 = b;
    }
    printf("final histogram of z (%d bins over [%g, %g]):\n", NBINS, cfg.hist_lo,
           cfg.hist_hi);
    for (int b = 0; b < NBINS; b += 8) {
        printf("  %7.3f:", hlo + b * hwid);
        for (int k = b; k < b + 8; k++)
            printf(" %7ld", hist[k]);
        printf("\n");
    }
    printf("mode bin [%.3f, %.3f) with %ld samples; quartile bins start at %.3f / %.3f / %.3f\n",
           hlo + pbin * hwid, hlo + (pbin + 1) * hwid, peak, hlo + q1 * hwid,
           hlo + mbin * hwid, hlo + q3 * hwid);

    free(x); free(y); free(z); free(part);
    return 0;
}
