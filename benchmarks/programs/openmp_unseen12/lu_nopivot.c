/*
 * lu_nopivot: dense LU factorisation without pivoting (right-looking, in
 * place) for diagonally dominant systems, followed by forward/back
 * substitution and a residual check against the original matrix.
 *
 * The system is solved for a family of diagonal shifts (A + sigma I), as when
 * scanning a resolvent; every shift is a full factorisation.
 *
 * usage: lu_nopivot MATRIX.bin RHS.txt NSHIFTS
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn static void die(const char *msg, const char *path)
{
    fprintf(stderr, "lu_nopivot: %s: %s\n", path, msg);
    exit(1);
}

static double *read_matrix(const char *path, int *n_out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open matrix file", path);
    char magic[8];
    uint32_t hdr[2];
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "LUMATRX1", 8) != 0)
        die("not a LUMATRX1 matrix file", path);
    if (fread(hdr, sizeof(uint32_t), 2, f) != 2 || hdr[0] == 0 || hdr[0] > 20000)
        die("bad matrix header", path);
    int n = (int)hdr[0];
    size_t cnt = (size_t)n * (size_t)n;
    double *a = malloc(cnt * sizeof(double));
    if (!a)
        die("out of memory", path);
    if (fread(a, sizeof(double), cnt, f) != cnt)
        die("matrix data truncated", path);
    if (fgetc(f) != EOF)
        die("trailing data after matrix", path);
    fclose(f);
    for (size_t i = 0; i < cnt; i++)
        if (!isfinite(a[i]))
            die("non-finite matrix entry", path);
    *n_out = n;
    return a;
}

static double *read_rhs(const char *path, int n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot open right-hand side file", path);
    int m;
    if (fscanf(f, "%d", &m) != 1 || m != n)
        die("right-hand side length does not match the matrix", path);
    double *b = malloc((size_t)n * sizeof(double));
    if (!b)
        die("out of memory", path);
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%lf", &b[i]) != 1 || !isfinite(b[i]))
            die("malformed right-hand side value", path);
    fclose(f);
    return b;
}

/* Factor (A + sigma I) in place (right-looking, no pivoting), returning 0 on
   success.  After step k, rows below k hold their L multiplier in column k and
   the updated trailing part in columns k+1..n-1. */
static int lu_factor(double *a, int n)
{
    for (int k = 0; k < n - 1; k++) {
        const double pivot = a[(size_t)k * n + k];
        if (fabs(pivot) < 1e-300)
            return -1;
        const double *rowk = a + (size_t)k * n;
#pragma omp parallel for
        for (int i = k + 1; i < n; i++) {
            double *rowi = a + (size_t)i * n;
            double l = rowi[k] / pivot;
            rowi[k] = l;
            for (int j = k + 1; j < n; j++)
                rowi[j] -= l * rowk[j];
        }
    }
    return fabs(a[(size_t)(n - 1) * n + (n - 1)]) < 1e-300 ? -1 : 0;
}

static void lu_solve(const double *a, int n, const double *b, double *y, double *x)
{
    for (int i = 0; i < n; i++) { /* L y = b, unit lower triangle */
        double s = b[i];
        const double *rowi = a + (size_t)i * n;
        for (int j = 0; j < i; j++)
            s -= rowi[j] * y[j];
        y[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) { /* U x = y */
        double s = y[i];
        const double *rowi = a + (size_t)i * n;
        for (int j = i + 1; j < n; j++)
            s -= rowi[j] * x[j];
        x[i] = s / rowi[i];
    }
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long nshift = argc == 4 ? strtol(argv[3], &end, 10) : 0;
    if (argc != 4 || *end != '\0' || nshift < 1 || nshift > 1000) {
        fprintf(stderr, "usage: %s MATRIX.bin RHS.txt NSHIFTS   (solves (A + s*d*I) x = b for s = 0..NSHIFTS-1)\n",
                argv[0]);
        return 2;
    }
    int n;
    double *orig = read_matrix(argv[1], &n);
    double *b = read_rhs(argv[2], n);
    size_t cnt = (size_t)n * (size_t)n;
    double *a = malloc(cnt * sizeof(double));
    double *y = malloc((size_t)n * sizeof(double));
    double *x = malloc((size_t)n * sizeof(double));
    double *r = malloc((size_t)n * sizeof(double));
    if (!a || !y || !x || !r) {
        fprintf(stderr, "lu_nopivot: out of memory\n");
        return 1;
    }

    /* shift step: 5% of the mean absolute diagonal entry */
    double dmean = 0.0;
    for (int i = 0; i < n; i++)
        dmean += fabs(orig[(size_t)i * n + i]);
    dmean /= n;
    const double step = 0.05 * dmean;
    double bn = 0.0;
    for (int i = 0; i < n; i++)
        bn += b[i] * b[i];
    bn = sqrt(bn);

    printf("matrix order: %d, shifts: %ld, shift step: %.6f\n", n, nshift, step);
    printf("%5s %12s %5s %16s %16s %12s %10s\n", "shift", "sigma", "sign", "log|det|", "x[0]", "x[n-1]",
           "resid*1e12");
    for (long s = 0; s < nshift; s++) {
        const double sigma = (double)s * step;
        memcpy(a, orig, cnt * sizeof(double));
        for (int i = 0; i < n; i++)
            a[(size_t)i * n + i] += sigma;
        if (lu_factor(a, n) != 0) {
            printf("%5ld %12.4f  zero pivot, system skipped\n", s, sigma);
            continue;
        }
        double logdet = 0.0;
        int negatives = 0;
        for (int k = 0; k < n; k++) {
            double u = a[(size_t)k * n + k];
            if (u < 0)
                negatives++;
            logdet += log(fabs(u));
        }
        lu_solve(a, n, b, y, x);

        /* residual r = b - (A + sigma I) x with the original matrix */
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            const double *rowi = orig + (size_t)i * n;
            double acc = sigma * x[i];
            for (int j = 0; j < n; j++)
                acc += rowi[j] * x[j];
            r[i] = b[i] - acc;
        }
        double rn = 0.0;
        for (int i = 0; i < n; i++)
            rn += r[i] * r[i];
        rn = sqrt(rn);
        printf("%5ld %12.4f %5s %16.6f %16.10f %12.8f %10.3f%s\n", s, sigma, (negatives % 2) ? "-" : "+", logdet,
               x[0], x[n - 1], rn * 1e12, rn / bn < 1e-10 ? "" : "  (residual large)");
    }

    free(a); free(b); free(orig); free(y); free(x); free(r);
    return 0;
}
