/*
 * tridiag_batch.c - solve a batch of independent tridiagonal systems with the
 * Thomas algorithm.  Each system's size, coefficients and exact solution are
 * generated from its own pseudo-random stream (seeded by the global seed and
 * the system number), the right-hand side is b = A * x_exact.  The systems
 * are solved in a parallel loop; per-system results are stored and combined
 * afterwards in system order, so the printed numbers do not depend on the
 * number of threads.
 *
 * usage: tridiag_batch PARAMS_FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <errno.h>
#include <omp.h>

#define MAXN 1024

struct params {
    unsigned long long seed;
    long systems;
    int min_size, max_size;
    double offdiag_max, diag_margin, poisson_share, poisson_shift;
};

static int read_params(const char *path, struct params *p)
{
    static const char *keys[8] = {"seed", "systems", "min_size", "max_size",
                                  "offdiag_max", "diag_margin", "poisson_share", "poisson_shift"};
    int have[8] = {0};
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "tridiag_batch: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h) *h = '\0';
        char key[64], val[64], extra[4];
        int got = sscanf(line, "%63s %63s %3s", key, val, extra);
        if (got <= 0) continue;
        int k;
        for (k = 0; k < 8; k++)
            if (strcmp(key, keys[k]) == 0) break;
        char *end;
        errno = 0;
        double d = got == 2 ? strtod(val, &end) : 0;
        if (got != 2 || k == 8 || *end != '\0' || errno) {
            fprintf(stderr, "tridiag_batch: %s:%d: malformed line (expected 'key number' with a known key)\n",
                    path, lineno);
            fclose(f);
            return -1;
        }
        have[k] = 1;
        switch (k) {
        case 0: p->seed = strtoull(val, NULL, 10); break;
        case 1: p->systems = (long)d; break;
        case 2: p->min_size = (int)d; break;
        case 3: p->max_size = (int)d; break;
        case 4: p->offdiag_max = d; break;
        case 5: p->diag_margin = d; break;
        case 6: p->poisson_share = d; break;
        case 7: p->poisson_shift = d; break;
        }
    }
    fclose(f);
    for (int k = 0; k < 8; k++)
        if (!have[k]) {
            fprintf(stderr, "tridiag_batch: %s: missing key '%s'\n", path, keys[k]);
            return -1;
        }
    if (p->systems < 1 || p->min_size < 2 || p->max_size > MAXN || p->min_size > p->max_size ||
        p->offdiag_max <= 0 || p->diag_margin <= 0 || p->poisson_share < 0 || p->poisson_share > 1 ||
        p->poisson_shift <= 0) {
        fprintf(stderr, "tridiag_batch: %s: parameter out of range\n", path);
        return -1;
    }
    return 0;
}

/* splitmix64: a small, well-mixed generator; one stream per system */
static inline uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline double uniform(uint64_t *s)   /* [0, 1) */
{
    return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PARAMS_FILE\n", argv[0]);
        return 2;
    }
    struct params p;
    memset(&p, 0, sizeof p);
    if (read_params(argv[1], &p) != 0) return 1;

    const long ns = p.systems;
    int *size = malloc(ns * sizeof *size);
    char *kind = malloc(ns);
    double *resid = malloc(ns * sizeof *resid);
    double *err = malloc(ns * sizeof *err);
    double *first = malloc(ns * sizeof *first);
    double *last = malloc(ns * sizeof *last);
    double *total = malloc(ns * sizeof *total);
    if (!size || !kind || !resid || !err || !first || !last || !total) {
        fprintf(stderr, "tridiag_batch: out of memory\n");
        return 1;
    }

    #pragma omp parallel for
    for (long s = 0; s < ns; s++) {
        double a[MAXN], b[MAXN], c[MAXN], d[MAXN], x[MAXN], xs[MAXN], cp[MAXN], dp[MAXN];
        uint64_t st = p.seed ^ ((uint64_t)s * 0xD1B54A32D192ED03ULL);
        splitmix64(&st);
        int n = p.min_size + (int)(splitmix64(&st) % (uint64_t)(p.max_size - p.min_size + 1));
        int poisson = uniform(&st) < p.poisson_share;

        /* matrix: a = sub-diagonal, b = diagonal, c = super-diagonal */
        for (int i = 0; i < n; i++) {
            if (poisson) {
                a[i] = -1.0;
                c[i] = -1.0;
                b[i] = 2.0 + p.poisson_shift;
            } else {
                a[i] = p.offdiag_max * (2.0 * uniform(&st) - 1.0);
                c[i] = p.offdiag_max * (2.0 * uniform(&st) - 1.0);
                double dom = fabs(a[i]) + fabs(c[i]) + p.diag_margin + uniform(&st);
                b[i] = uniform(&st) < 0.1 ? -dom : dom;
            }
            xs[i] = sin(0.05 * i + 6.283185307179586 * uniform(&st)) + 0.5 * (2.0 * uniform(&st) - 1.0);
        }
        a[0] = 0.0;
        c[n - 1] = 0.0;
        for (int i = 0; i < n; i++) {
            double r = b[i] * xs[i];
            if (i > 0) r += a[i] * xs[i - 1];
            if (i < n - 1) r += c[i] * xs[i + 1];
            d[i] = r;
        }

        /* Thomas algorithm */
        cp[0] = c[0] / b[0];
        dp[0] = d[0] / b[0];
        for (int i = 1; i < n; i++) {
            double m = b[i] - a[i] * cp[i - 1];
            cp[i] = c[i] / m;
            dp[i] = (d[i] - a[i] * dp[i - 1]) / m;
        }
        x[n - 1] = dp[n - 1];
        for (int i = n - 2; i >= 0; i--)
            x[i] = dp[i] - cp[i] * x[i + 1];

        /* relative residual max|Ax-b| / max|b| and error against the exact solution */
        double rmax = 0.0, bmax = 0.0, emax = 0.0, sum = 0.0;
        for (int i = 0; i < n; i++) {
            double r = b[i] * x[i] - d[i];
            if (i > 0) r += a[i] * x[i - 1];
            if (i < n - 1) r += c[i] * x[i + 1];
            if (fabs(r) > rmax) rmax = fabs(r);
            if (fabs(d[i]) > bmax) bmax = fabs(d[i]);
            if (fabs(x[i] - xs[i]) > emax) emax = fabs(x[i] - xs[i]);
            sum += x[i];
        }
        size[s] = n;
        kind[s] = (char)poisson;
        resid[s] = bmax > 0 ? rmax / bmax : rmax;
        err[s] = emax;
        first[s] = x[0];
        last[s] = x[n - 1];
        total[s] = sum;
    }

    /* combine per-system results in system order */
    long unknowns = 0, npoisson = 0, over = 0;
    double rmax = 0.0, rsum = 0.0, emax = 0.0, emax_poisson = 0.0;
    double sfirst = 0.0, slast = 0.0, sall = 0.0;
    long worst = 0;
    for (long s = 0; s < ns; s++) {
        unknowns += size[s];
        npoisson += kind[s];
        rsum += resid[s];
        if (resid[s] > rmax) { rmax = resid[s]; worst = s; }
        if (resid[s] > 2.5e-16) over++;
        if (kind[s]) { if (err[s] > emax_poisson) emax_poisson = err[s]; }
        else if (err[s] > emax) emax = err[s];
        sfirst += first[s];
        slast += last[s];
        sall += total[s];
    }

    printf("systems: %ld (%ld shifted Poisson, %ld random diagonally dominant), %ld unknowns\n",
           ns, npoisson, ns - npoisson, unknowns);
    printf("relative residual: max %.3e (system %ld, size %d), mean %.3e, above 2.5e-16: %ld\n",
           rmax, worst, size[worst], rsum / ns, over);
    printf("max error vs exact solution: random %.3e, Poisson %.3e\n", emax, emax_poisson);
    printf("sum of first components: %.6g\n", sfirst);
    printf("sum of last components:  %.6g\n", slast);
    printf("sum of all components:   %.6g\n", sall);
    printf("mean component:          %.6g\n", sall / unknowns);

    free(size); free(kind); free(resid); free(err); free(first); free(last); free(total);
    return 0;
}
