/*
 * stream_scale - streaming kernel exerciser with a clamped renormalisation.
 *
 * Three arrays a, b, c are filled from a seed and then put through a number
 * of passes of
 *     copy   c = a
 *     scale  b = s * c
 *     add    c = a + b'   (b' is b rotated by an offset that changes per pass)
 *     triad  a = b + s * c
 *     norm   a = clamp((a - mean(a)) / std(a), -k, k)
 * after which per-pass statistics are printed.  All sums are formed per
 * block and the block sums added in block order, so results do not depend
 * on how the work is divided.
 *
 * Configuration file: "key value" lines (keys: elements, passes, scale,
 * clamp, block); '#' starts a comment.
 *
 * usage: stream_scale <config-file> <seed>
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long elements;
    int passes;
    double scale;
    double clamp;
    long block;
} config_t;

static void __attribute__((noreturn)) usage(const char *prog)
{
    fprintf(stderr, "usage: %s <config-file> <seed>\n", prog);
    exit(2);
}

static void __attribute__((noreturn)) bad_config(const char *path, int line, const char *why)
{
    fprintf(stderr, "stream_scale: %s:%d: %s\n", path, line, why);
    exit(1);
}

static void read_config(const char *path, config_t *cfg)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "stream_scale: cannot open config file '%s'\n", path);
        exit(1);
    }
    cfg->elements = 0;
    cfg->passes = 0;
    cfg->scale = 0.0;
    cfg->clamp = 0.0;
    cfg->block = 65536;
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char key[32], val[64], extra[2];
        int n = sscanf(line, "%31s %63s %1s", key, val, extra);
        if (n <= 0) continue;
        if (n != 2) bad_config(path, lineno, "expected 'key value'");
        char *end;
        errno = 0;
        if (strcmp(key, "elements") == 0 || strcmp(key, "passes") == 0 || strcmp(key, "block") == 0) {
            long v = strtol(val, &end, 10);
            if (errno || *end || v < 1) bad_config(path, lineno, "bad integer value");
            if (key[0] == 'e') cfg->elements = v;
            else if (key[0] == 'p') cfg->passes = v > 1000 ? 1001 : (int)v;
            else cfg->block = v;
        } else if (strcmp(key, "scale") == 0 || strcmp(key, "clamp") == 0) {
            double v = strtod(val, &end);
            if (errno || *end || !isfinite(v)) bad_config(path, lineno, "bad number");
            if (key[0] == 's') cfg->scale = v;
            else cfg->clamp = v;
        } else {
            bad_config(path, lineno, "unknown key");
        }
    }
    fclose(f);
    if (cfg->elements < 1000 || cfg->elements > 200000000L)
        bad_config(path, lineno, "elements must be between 1000 and 200000000");
    if (cfg->passes < 1 || cfg->passes > 1000)
        bad_config(path, lineno, "passes must be between 1 and 1000");
    if (cfg->scale == 0.0) bad_config(path, lineno, "scale missing or zero");
    if (!(cfg->clamp > 0.0)) bad_config(path, lineno, "clamp missing or not positive");
}

static inline uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* three uniforms in [-1, 1) with 21 bits each, from one counter-based draw */
static inline void unit3(uint64_t seed, uint64_t i, double *u)
{
    uint64_t z = mix64(seed * 0x9E3779B97F4A7C15ULL + i);
    for (int k = 0; k < 3; k++) {
        u[k] = (double)(z & 0x1FFFFF) * (2.0 / 2097152.0) - 1.0;
        z >>= 21;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) usage(argv[0]);
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || argv[2][0] == '-') usage(argv[0]);

    config_t cfg;
    read_config(argv[1], &cfg);
    const long n = cfg.elements;
    const long bs = cfg.block;
    const long nblocks = (n + bs - 1) / bs;
    const double s = cfg.scale, k = cfg.clamp;

    double *a = malloc((size_t)n * sizeof *a);
    double *b = malloc((size_t)n * sizeof *b);
    double *c = malloc((size_t)n * sizeof *c);
    double *bsum = malloc((size_t)nblocks * sizeof *bsum);
    double *bsq = malloc((size_t)nblocks * sizeof *bsq);
    if (!a || !b || !c || !bsum || !bsq) {
        fprintf(stderr, "stream_scale: out of memory for %ld elements\n", n);
        return 1;
    }

    #pragma omp parallel for
    for (long i = 0; i < n; i++) {
        /* a slow triangle wave plus noise, so the statistics have some shape */
        double u[3];
        unit3(seed, (uint64_t)i, u);
        double x = (double)i / (double)n;
        double t = 6.0 * x - (double)(long)(6.0 * x);   /* sawtooth in [0,1) */
        a[i] = 4.0 * fabs(t - 0.5) - 1.0 + u[0];
        b[i] = u[1];
        c[i] = 0.5 * u[2] + x;
    }

    printf("stream_scale: %ld elements (%.1f MB per array), %d passes, scale %g, clamp %g, seed %llu\n",
           n, n * 8.0 / 1e6, cfg.passes, s, k, seed);
    printf("%4s %14s %14s %14s %14s %9s %14s\n", "pass", "triad mean", "triad std",
           "min", "max", "clamped", "sum c");

    for (int p = 1; p <= cfg.passes; p++) {
        #pragma omp parallel for
        for (long i = 0; i < n; i++)
            c[i] = a[i];

        #pragma omp parallel for
        for (long i = 0; i < n; i++)
            b[i] = s * c[i];

        /* the rotation keeps successive passes from settling into a fixed
           point; both operands are still read sequentially */
        const long shift = ((long)p * 7919L * 1021L + n / 3) % n;
        #pragma omp parallel for
        for (long i = 0; i < n; i++) {
            long j = i + shift;
            if (j >= n) j -= n;
            c[i] = a[i] + b[j];
        }

        #pragma omp parallel for
        for (long i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];

        /* block sums of a and a^2, and of c, in fixed block order */
        double amin = INFINITY, amax = -INFINITY;
        #pragma omp parallel for reduction(min:amin) reduction(max:amax)
        for (long blk = 0; blk < nblocks; blk++) {
            long lo = blk * bs, hi = lo + bs < n ? lo + bs : n;
            double sum = 0.0, sq = 0.0;
            for (long i = lo; i < hi; i++) {
                double v = a[i];
                sum += v;
                sq += v * v;
                if (v < amin) amin = v;
                if (v > amax) amax = v;
            }
            bsum[blk] = sum;
            bsq[blk] = sq;
        }
        double sum = 0.0, sq = 0.0;
        for (long blk = 0; blk < nblocks; blk++) {
            sum += bsum[blk];
            sq += bsq[blk];
        }
        double mean = sum / n;
        double var = sq / n - mean * mean;
        double sd = var > 0.0 ? sqrt(var) : 1.0;
        double inv = 1.0 / sd;

        long clamped = 0;
        #pragma omp parallel for reduction(+:clamped)
        for (long i = 0; i < n; i++) {
            double z = (a[i] - mean) * inv;
            if (z > k) { z = k; clamped++; }
            else if (z < -k) { z = -k; clamped++; }
            a[i] = z;
        }

        #pragma omp parallel for
        for (long blk = 0; blk < nblocks; blk++) {
            long lo = blk * bs, hi = lo + bs < n ? lo + bs : n;
            double t = 0.0;
            for (long i = lo; i < hi; i++) t += c[i];
            bsum[blk] = t;
        }
        double csum = 0.0;
        for (long blk = 0; blk < nblocks; blk++) csum += bsum[blk];

        printf("%4d %14.6e %14.6e %14.6e %14.6e %9ld %14.6e\n",
               p, mean, sd, amin, amax, clamped, csum);
    }

    /* final state of a: histogram of the normalised values, counted per
       block and then added up */
    enum { BINS = 8 };
    long *bhist = calloc((size_t)nblocks * BINS, sizeof *bhist);
    if (!bhist) {
        fprintf(stderr, "stream_scale: out of memory\n");
        return 1;
    }
    #pragma omp parallel for
    for (long blk = 0; blk < nblocks; blk++) {
        long lo = blk * bs, hi = lo + bs < n ? lo + bs : n;
        long *hb = bhist + blk * BINS;
        for (long i = lo; i < hi; i++) {
            int h = (int)((a[i] + k) / (2.0 * k) * BINS);
            if (h < 0) h = 0;
            if (h >= BINS) h = BINS - 1;
            hb[h]++;
        }
    }
    const int bins = BINS;
    long hist[BINS] = {0};
    for (long blk = 0; blk < nblocks; blk++)
        for (int h = 0; h < BINS; h++) hist[h] += bhist[blk * BINS + h];
    free(bhist);
    printf("final distribution of a over [-%g, %g]:\n", k, k);
    for (int h = 0; h < bins; h++) {
        double lo = -k + 2.0 * k * h / bins, hi = lo + 2.0 * k / bins;
        printf("  [%7.3f, %7.3f) %6.2f%%\n", lo, hi, 100.0 * hist[h] / n);
    }

    free(a); free(b); free(c); free(bsum); free(bsq);
    return 0;
}
