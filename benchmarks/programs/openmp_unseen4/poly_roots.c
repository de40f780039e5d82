/*
 * poly_roots: find all complex roots of a batch of real polynomials with the
 * Durand-Kerner (Weierstrass) simultaneous iteration.
 *
 * usage: poly_roots <polys.txt> <tolerance> <max_iterations>
 *
 * Input format: first line N, then N lines "d c_d c_{d-1} ... c_0".
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEG 64

typedef struct {
    int deg;
    double coef[MAX_DEG + 1];   /* highest power first */
} poly_t;

typedef struct {
    int iterations;             /* iterations used */
    int converged;
    int real_roots;
    double max_modulus;
    double complex max_root;
} result_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <polys.txt> <tolerance> <max_iterations>\n", prog);
}

static poly_t *read_polys(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "poly_roots: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    int n;
    if (fscanf(f, "%d", &n) != 1 || n <= 0 || n > 10000000) {
        fprintf(stderr, "poly_roots: '%s': bad polynomial count\n", path);
        fclose(f);
        return NULL;
    }
    poly_t *p = malloc((size_t)n * sizeof *p);
    if (!p) {
        fprintf(stderr, "poly_roots: out of memory\n");
        fclose(f);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if (fscanf(f, "%d", &p[i].deg) != 1 || p[i].deg < 1 || p[i].deg > MAX_DEG) {
            fprintf(stderr, "poly_roots: '%s': bad degree for polynomial %d\n", path, i + 1);
            free(p);
            fclose(f);
            return NULL;
        }
        for (int k = 0; k <= p[i].deg; k++) {
            if (fscanf(f, "%lf", &p[i].coef[k]) != 1 || !isfinite(p[i].coef[k])) {
                fprintf(stderr, "poly_roots: '%s': bad coefficient in polynomial %d\n", path, i + 1);
                free(p);
                fclose(f);
                return NULL;
            }
        }
        if (p[i].coef[0] == 0.0) {
            fprintf(stderr, "poly_roots: '%s': polynomial %d has a zero leading coefficient\n", path, i + 1);
            free(p);
            fclose(f);
            return NULL;
        }
    }
    fclose(f);
    *count = n;
    return p;
}

/* Durand-Kerner on one polynomial; roots are written to z[0..deg-1]. */
static void solve(const poly_t *p, double tol, int max_iter, double complex *z, result_t *res)
{
    int n = p->deg;
    double a[MAX_DEG + 1];
    for (int k = 0; k <= n; k++)
        a[k] = p->coef[k] / p->coef[0];

    /* Fujiwara-style bound on the root moduli for the starting circle. */
    double bound = 0.0;
    for (int k = 1; k <= n; k++) {
        double b = pow(fabs(a[k]), 1.0 / k);
        if (b > bound)
            bound = b;
    }
    if (bound == 0.0)
        bound = 1.0;
    for (int k = 0; k < n; k++)
        z[k] = bound * cexp(I * (2.0 * M_PI * k / n + 0.4));

    int it = 0, done = 0;
    while (it < max_iter && !done) {
        it++;
        double worst = 0.0;
        for (int k = 0; k < n; k++) {
            double complex zk = z[k];
            double complex num = 1.0;
            for (int j = 1; j <= n; j++)
                num = num * zk + a[j];
            double complex den = 1.0;
            for (int j = 0; j < n; j++)
                if (j != k)
                    den *= zk - z[j];
            if (den == 0.0)
                den = 1e-12;
            double complex step = num / den;
            z[k] = zk - step;
            double scale = cabs(z[k]);
            double rel = cabs(step) / (scale > 1.0 ? scale : 1.0);
            if (rel > worst)
                worst = rel;
        }
        if (worst <= tol)
            done = 1;
    }

    res->iterations = it;
    res->converged = done;
    res->real_roots = 0;
    res->max_modulus = -1.0;
    res->max_root = 0.0;
    for (int k = 0; k < n; k++) {
        double m = cabs(z[k]);
        if (fabs(cimag(z[k])) <= 1e-7 * (m > 1.0 ? m : 1.0))
            res->real_roots++;
        if (m > res->max_modulus) {
            res->max_modulus = m;
            res->max_root = z[k];
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    double tol = strtod(argv[2], &end);
    if (*end != '\0' || !(tol > 0.0) || tol >= 1.0) {
        usage(argv[0]);
        return 2;
    }
    long max_iter = strtol(argv[3], &end, 10);
    if (*end != '\0' || max_iter < 1 || max_iter > 1000000) {
        usage(argv[0]);
        return 2;
    }

    int np;
    poly_t *polys = read_polys(argv[1], &np);
    if (!polys)
        return 1;

    result_t *res = malloc((size_t)np * sizeof *res);
    if (!res) {
        fprintf(stderr, "poly_roots: out of memory\n");
        return 1;
    }

    #pragma omp parallel
    {
        double complex z[MAX_DEG];
        #pragma omp for
        for (int i = 0; i < np; i++)
            solve(&polys[i], tol, (int)max_iter, z, &res[i]);
    }

    /* Summaries, combined in input order. */
    enum { NBINS = 8 };
    static const int bin_hi[NBINS] = { 15, 31, 63, 127, 255, 511, 1023, 1 << 30 };
    long hist[NBINS] = { 0 };
    long hist_fail = 0;
    long converged = 0, total_iter = 0, total_roots = 0, real_roots = 0;
    int best = -1;
    for (int i = 0; i < np; i++) {
        total_iter += res[i].iterations;
        if (!res[i].converged) {
            hist_fail++;
            continue;
        }
        converged++;
        total_roots += polys[i].deg;
        real_roots += res[i].real_roots;
        for (int b = 0; b < NBINS; b++)
            if (res[i].iterations <= bin_hi[b]) {
                hist[b]++;
                break;
            }
        if (best < 0 || res[i].max_modulus > res[best].max_modulus)
            best = i;
    }

    printf("polynomials:        %d\n", np);
    printf("tolerance:          %g, max iterations %ld\n", tol, max_iter);
    printf("converged:          %ld (%.1f%%)\n", converged, 100.0 * converged / np);
    printf("total iterations:   %ld\n", total_iter);
    printf("iterations needed (converged polynomials):\n");
    int lo = 1;
    for (int b = 0; b < NBINS; b++) {
        if (b == NBINS - 1)
            printf("  %5d+       %6ld\n", lo, hist[b]);
        else
            printf("  %5d-%-5d  %6ld\n", lo, bin_hi[b], hist[b]);
        lo = bin_hi[b] + 1;
    }
    printf("  not converged %5ld\n", hist_fail);
    printf("roots found:        %ld, of which real: %ld\n", total_roots, real_roots);
    if (best >= 0)
        printf("largest root:       polynomial %d (degree %d), |z| = %.6f at %.6f %+.6fi\n",
               best + 1, polys[best].deg, res[best].max_modulus,
               creal(res[best].max_root), cimag(res[best].max_root));

    free(res);
    free(polys);
    return 0;
}
