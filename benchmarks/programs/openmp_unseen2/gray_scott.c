/*
 * gray_scott.c - Gray-Scott reaction-diffusion model on a periodic 2-D grid.
 *
 *   dU/dt = Du lap(U) - U V^2 + F (1 - U)
 *   dV/dt = Dv lap(V) + U V^2 - (F + k) V
 *
 * Explicit Euler time stepping with a 9-point isotropic Laplacian.  The
 * initial state is U = 1, V = 0 with a number of randomly placed square
 * seeds (fixed seed).  Every REPORT steps the pattern is summarised
 * (coverage of the V phase, number of V spots found as local maxima).
 *
 * usage: gray_scott [N] [STEPS] [F] [K] [SEEDS] [REPORT]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [N (grid size, 16..4096, default 192)] [STEPS (default 2500)]\n"
            "          [F (feed, default 0.0545)] [K (kill, default 0.062)]\n"
            "          [SEEDS (default 24)] [REPORT (steps between reports, default 500)]\n",
            prog);
    exit(2);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end || !(v >= lo && v <= hi))
        return 0;
    *out = v;
    return 1;
}

/* small deterministic PRNG (xorshift64*) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double rng_uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
    double coverage;   /* fraction of cells with V > 0.2 */
    long spots;        /* strict local maxima of V above 0.2 */
    double mean_u, mean_v;
    double min_u, max_v;
} summary_t;

static void summarise(int n, const double *u, const double *v, double *rowbuf_u,
                      double *rowbuf_v, summary_t *s)
{
    long covered = 0, spots = 0;
#pragma omp parallel for reduction(+ : covered, spots)
    for (int i = 0; i < n; i++) {
        int im = (i + n - 1) % n, ip = (i + 1) % n;
        double su = 0.0, sv = 0.0;
        for (int j = 0; j < n; j++) {
            int jm = (j + n - 1) % n, jp = (j + 1) % n;
            double c = v[(size_t)i * n + j];
            su += u[(size_t)i * n + j];
            sv += c;
            if (c > 0.2) {
                covered++;
                if (c > v[(size_t)im * n + j] && c > v[(size_t)ip * n + j] &&
                    c > v[(size_t)i * n + jm] && c > v[(size_t)i * n + jp] &&
                    c > v[(size_t)im * n + jm] && c > v[(size_t)im * n + jp] &&
                    c > v[(size_t)ip * n + jm] && c > v[(size_t)ip * n + jp])
                    spots++;
            }
        }
        rowbuf_u[i] = su;
        rowbuf_v[i] = sv;
    }
    /* row sums combined in a fixed order so the result is reproducible */
    double tu = 0.0, tv = 0.0;
    for (int i = 0; i < n; i++) {
        tu += rowbuf_u[i];
        tv += rowbuf_v[i];
    }
    double mn = 2.0, mx = -1.0;
    for (size_t idx = 0; idx < (size_t)n * n; idx++) {
        if (u[idx] < mn)
            mn = u[idx];
        if (v[idx] > mx)
            mx = v[idx];
    }
    s->coverage = (double)covered / ((double)n * n);
    s->spots = spots;
    s->mean_u = tu / ((double)n * n);
    s->mean_v = tv / ((double)n * n);
    s->min_u = mn;
    s->max_v = mx;
}

int main(int argc, char **argv)
{
    long n = 192, steps = 2500, nseeds = 24, report = 500;
    double F = 0.0545, K = 0.062;
    const double Du = 1.0, Dv = 0.5, dt = 1.0;

    if (argc > 7)
        usage(argv[0]);
    if (argc > 1 && !parse_long(argv[1], 16, 4096, &n))
        usage(argv[0]);
    if (argc > 2 && !parse_long(argv[2], 1, 10000000, &steps))
        usage(argv[0]);
    if (argc > 3 && !parse_double(argv[3], 0.0, 0.2, &F))
        usage(argv[0]);
    if (argc > 4 && !parse_double(argv[4], 0.0, 0.2, &K))
        usage(argv[0]);
    if (argc > 5 && !parse_long(argv[5], 0, 100000, &nseeds))
        usage(argv[0]);
    if (argc > 6 && !parse_long(argv[6], 1, 10000000, &report))
        usage(argv[0]);

    const size_t cells = (size_t)n * n;
    double *u = malloc(cells * sizeof *u), *v = malloc(cells * sizeof *v);
    double *u2 = malloc(cells * sizeof *u2), *v2 = malloc(cells * sizeof *v2);
    double *rb_u = malloc(n * sizeof *rb_u), *rb_v = malloc(n * sizeof *rb_v);
    int *up = malloc(n * sizeof *up), *dn = malloc(n * sizeof *dn);
    if (!u || !v || !u2 || !v2 || !rb_u || !rb_v || !up || !dn) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (long i = 0; i < n; i++) {
        up[i] = (int)((i + n - 1) % n);
        dn[i] = (int)((i + 1) % n);
    }

#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            u[i * n + j] = 1.0;
            v[i * n + j] = 0.0;
        }

    /* random square seeds with a little noise inside */
    for (long s = 0; s < nseeds; s++) {
        long ci = (long)(rng_uniform() * n), cj = (long)(rng_uniform() * n);
        long half = 2 + (long)(rng_uniform() * 4);
        for (long di = -half; di <= half; di++)
            for (long dj = -half; dj <= half; dj++) {
                long i = ((ci + di) % n + n) % n, j = ((cj + dj) % n + n) % n;
                u[i * n + j] = 0.5 + 0.05 * (rng_uniform() - 0.5);
                v[i * n + j] = 0.25 + 0.05 * (rng_uniform() - 0.5);
            }
    }

    printf("Gray-Scott %ldx%ld, F=%.4f k=%.4f, Du=%.2f Dv=%.2f, %ld seeds, %ld steps\n",
           n, n, F, K, Du, Dv, nseeds, steps);

    summary_t sm;
    for (long step = 1; step <= steps; step++) {
#pragma omp parallel for
        for (long i = 0; i < n; i++) {
            const double *ur = u + i * n, *vr = v + i * n;
            const double *uu = u + (size_t)up[i] * n, *vu = v + (size_t)up[i] * n;
            const double *ud = u + (size_t)dn[i] * n, *vd = v + (size_t)dn[i] * n;
            for (long j = 0; j < n; j++) {
                long jm = j == 0 ? n - 1 : j - 1, jp = j == n - 1 ? 0 : j + 1;
                double lu = 0.2 * (uu[j] + ud[j] + ur[jm] + ur[jp]) +
                            0.05 * (uu[jm] + uu[jp] + ud[jm] + ud[jp]) - ur[j];
                double lv = 0.2 * (vu[j] + vd[j] + vr[jm] + vr[jp]) +
                            0.05 * (vu[jm] + vu[jp] + vd[jm] + vd[jp]) - vr[j];
                double uvv = ur[j] * vr[j] * vr[j];
                u2[i * n + j] = ur[j] + dt * (Du * lu - uvv + F * (1.0 - ur[j]));
                v2[i * n + j] = vr[j] + dt * (Dv * lv + uvv - (F + K) * vr[j]);
            }
        }
        double *t = u;
        u = u2;
        u2 = t;
        t = v;
        v = v2;
        v2 = t;

        if (step % report == 0 || step == steps) {
            summarise((int)n, u, v, rb_u, rb_v, &sm);
            printf("step %7ld: V coverage %.5f, spots %4ld, <U> %.6f, <V> %.6f\n", step,
                   sm.coverage, sm.spots, sm.mean_u, sm.mean_v);
        }
    }

    /* radially averaged structure: dominant wavelength from V autocorrelation
       along rows (lag with the first minimum of the autocorrelation) */
    long maxlag = n / 2;
    double *acf = calloc(maxlag + 1, sizeof *acf);
    double *rowacf = malloc((size_t)n * (maxlag + 1) * sizeof *rowacf);
    if (!acf || !rowacf) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    double vbar = sm.mean_v;
#pragma omp parallel for collapse(2)
    for (long i = 0; i < n; i++)
        for (long lag = 0; lag <= maxlag; lag++) {
            const double *vr = v + i * n;
            double s = 0.0;
            for (long j = 0; j < n; j++)
                s += (vr[j] - vbar) * (vr[(j + lag) % n] - vbar);
            rowacf[i * (maxlag + 1) + lag] = s;
        }
    for (long i = 0; i < n; i++)
        for (long lag = 0; lag <= maxlag; lag++)
            acf[lag] += rowacf[i * (maxlag + 1) + lag];
    long firstmin = 0, peak = 0;
    for (long lag = 1; lag < maxlag; lag++)
        if (acf[lag] < acf[lag - 1] && acf[lag] <= acf[lag + 1]) {
            firstmin = lag;
            break;
        }
    if (firstmin)
        for (long lag = firstmin + 1; lag < maxlag; lag++)
            if (acf[lag] > acf[lag - 1] && acf[lag] >= acf[lag + 1]) {
                peak = lag;
                break;
            }

    printf("final: min U %.6f, max V %.6f\n", sm.min_u, sm.max_v);
    if (acf[0] > 0.0 && peak)
        printf("row autocorrelation: first minimum at lag %ld (%.4f), "
               "next peak at lag %ld (%.4f)\n",
               firstmin, acf[firstmin] / acf[0], peak, acf[peak] / acf[0]);
    else if (acf[0] > 0.0)
        printf("row autocorrelation: first minimum at lag %ld (%.4f), no later peak\n",
               firstmin, acf[firstmin] / acf[0]);
    else
        printf("row autocorrelation: pattern is uniform\n");

    free(u);
    free(v);
    free(u2);
    free(v2);
    free(rb_u);
    free(rb_v);
    free(up);
    free(dn);
    free(acf);
    free(rowacf);
    return 0;
}
