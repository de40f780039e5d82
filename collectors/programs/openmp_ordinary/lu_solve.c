/*
 * lu_solve.c - solve a dense linear system A x = b by LU decomposition with
 * partial pivoting.
 *
 * usage: lu_solve matrix.txt
 *        lu_solve n [seed]
 *
 * The text file holds n on the first line, then the n rows of A, then the n
 * entries of b (any whitespace separates numbers).  If the argument is a
 * number instead, a random n x n system with a known solution is generated
 * from the seed (default 1).
 *
 * Prints n, the number of row swaps, the sign of det(A) and log|det(A)|,
 * the residual norms and the first few solution values.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 20000
#define SHOW 6

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s matrix.txt\n", prog);
    fprintf(stderr, "       %s n [seed]\n", prog);
    fprintf(stderr, "  matrix.txt  first line n, then n rows of n numbers (A), then n numbers (b)\n");
    fprintf(stderr, "  n           generate a random n x n system instead (1..%d)\n", MAX_N);
    fprintf(stderr, "  seed        seed for the generated system (default 1)\n");
}

static int is_number(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

/* splitmix64: a tiny stateless hash, so each matrix entry can be generated
 * independently (and therefore in parallel). */
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform_pm1(uint64_t seed, uint64_t i, uint64_t j)
{
    uint64_t h = mix64(seed * 0x100000001b3ULL ^ mix64(i * 0x9e3779b1ULL + j));
    return (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static int read_system(const char *path, int *n_out, double **a_out, double **b_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "lu_solve: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int n;
    if (fscanf(f, "%d", &n) != 1 || n < 1 || n > MAX_N) {
        fprintf(stderr, "lu_solve: '%s': first entry must be the size n (1..%d)\n", path, MAX_N);
        fclose(f);
        return -1;
    }
    double *a = malloc((size_t)n * n * sizeof *a);
    double *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "lu_solve: out of memory for n = %d\n", n);
        fclose(f);
        return -1;
    }
    for (long i = 0; i < (long)n * n; i++) {
        if (fscanf(f, "%lf", &a[i]) != 1) {
            fprintf(stderr, "lu_solve: '%s': matrix entry (%ld,%ld) missing or not a number\n",
                    path, i / n + 1, i % n + 1);
            fclose(f);
            return -1;
        }
    }
    for (int i = 0; i < n; i++) {
        if (fscanf(f, "%lf", &b[i]) != 1) {
            fprintf(stderr, "lu_solve: '%s': right-hand side entry %d missing or not a number\n",
                    path, i + 1);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    *n_out = n;
    *a_out = a;
    *b_out = b;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        usage(argv[0]);
        return 2;
    }
    int n;
    double *a0, *b, *xtrue = NULL;
    int generated = is_number(argv[1]);
    unsigned long seed = 1;

    if (generated) {
        long nn = strtol(argv[1], NULL, 10);
        if (nn < 1 || nn > MAX_N) {
            fprintf(stderr, "lu_solve: n must be in 1..%d\n", MAX_N);
            usage(argv[0]);
            return 2;
        }
        if (argc == 3) {
            char *end;
            errno = 0;
            seed = strtoul(argv[2], &end, 10);
            if (errno || *end != '\0' || end == argv[2]) {
                fprintf(stderr, "lu_solve: bad seed '%s'\n", argv[2]);
                usage(argv[0]);
                return 2;
            }
        }
        n = (int)nn;
        a0 = malloc((size_t)n * n * sizeof *a0);
        b = malloc((size_t)n * sizeof *b);
        xtrue = malloc((size_t)n * sizeof *xtrue);
        if (!a0 || !b || !xtrue) {
            fprintf(stderr, "lu_solve: out of memory for n = %d\n", n);
            return 1;
        }
#pragma omp parallel for collapse(2)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                a0[(size_t)i * n + j] = uniform_pm1(seed, (uint64_t)i, (uint64_t)j);
        for (int i = 0; i < n; i++)
            xtrue[i] = 1.0 + 0.5 * sin(0.1 * i);
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            const double *row = a0 + (size_t)i * n;
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += row[j] * xtrue[j];
            b[i] = s;
        }
    } else {
        if (argc != 2) {
            usage(argv[0]);
            return 2;
        }
        if (read_system(argv[1], &n, &a0, &b) != 0)
            return 1;
    }

    /* working copy, addressed through row pointers so pivoting swaps pointers */
    double *lu = malloc((size_t)n * n * sizeof *lu);
    double **row = malloc((size_t)n * sizeof *row);
    int *perm = malloc((size_t)n * sizeof *perm);
    double *y = malloc((size_t)n * sizeof *y);
    double *x = malloc((size_t)n * sizeof *x);
    double *res = malloc((size_t)n * sizeof *res);
    double *rowabs = malloc((size_t)n * sizeof *rowabs);
    if (!lu || !row || !perm || !y || !x || !res || !rowabs) {
        fprintf(stderr, "lu_solve: out of memory for n = %d\n", n);
        return 1;
    }
    memcpy(lu, a0, (size_t)n * n * sizeof *lu);
    for (int i = 0; i < n; i++) {
        row[i] = lu + (size_t)i * n;
        perm[i] = i;
    }

    /* ---- factorisation PA = LU ---- */
    int det_sign = 1, swaps = 0;
    double log_det = 0.0;
    for (int k = 0; k < n; k++) {
        int p = k;
        double best = fabs(row[k][k]);
        for (int i = k + 1; i < n; i++) {
            double v = fabs(row[i][k]);
            if (v > best) {
                best = v;
                p = i;
            }
        }
        if (best == 0.0) {
            fprintf(stderr, "lu_solve: matrix is singular (zero pivot in column %d)\n", k + 1);
            return 1;
        }
        if (p != k) {
            double *t = row[p]; row[p] = row[k]; row[k] = t;
            int ti = perm[p]; perm[p] = perm[k]; perm[k] = ti;
            det_sign = -det_sign;
            swaps++;
        }
        const double *rk = row[k];
        const double pivot = rk[k];
        if (pivot < 0.0)
            det_sign = -det_sign;
        log_det += log(fabs(pivot));

        /* eliminate below the pivot: each row is independent */
#pragma omp parallel for
        for (int i = k + 1; i < n; i++) {
            double *ri = row[i];
            const double l = ri[k] / pivot;
            ri[k] = l;
            for (int j = k + 1; j < n; j++)
                ri[j] -= l * rk[j];
        }
    }

    /* ---- forward substitution L y = P b (unit diagonal) ---- */
    for (int i = 0; i < n; i++) {
        const double *ri = row[i];
        double s = b[perm[i]];
        for (int j = 0; j < i; j++)
            s -= ri[j] * y[j];
        y[i] = s;
    }

    /* ---- back substitution U x = y, column-oriented ---- */
    for (int k = n - 1; k >= 0; k--) {
        const double xk = y[k] / row[k][k];
        x[k] = xk;
#pragma omp parallel for
        for (int i = 0; i < k; i++)
            y[i] -= row[i][k] * xk;
    }

    /* ---- residual r = b - A x with the original matrix ---- */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        const double *ai = a0 + (size_t)i * n;
        double s = b[i], sa = 0.0;
        for (int j = 0; j < n; j++) {
            s -= ai[j] * x[j];
            sa += fabs(ai[j]);
        }
        res[i] = s;
        rowabs[i] = sa;
    }
    double r2 = 0.0, rinf = 0.0, ainf = 0.0, xinf = 0.0, binf = 0.0, err = 0.0;
    for (int i = 0; i < n; i++) {
        r2 += res[i] * res[i];
        if (fabs(res[i]) > rinf) rinf = fabs(res[i]);
        if (rowabs[i] > ainf) ainf = rowabs[i];
        if (fabs(x[i]) > xinf) xinf = fabs(x[i]);
        if (fabs(b[i]) > binf) binf = fabs(b[i]);
        if (xtrue && fabs(x[i] - xtrue[i]) > err) err = fabs(x[i] - xtrue[i]);
    }
    r2 = sqrt(r2);

    if (generated)
        printf("system: random %d x %d (seed %lu)\n", n, n, seed);
    else
        printf("system: %s, n = %d\n", argv[1], n);
    printf("row swaps during pivoting: %d\n", swaps);
    printf("determinant: sign %+d, log|det| = %.6f (log10 %.6f)\n",
           det_sign, log_det, log_det / log(10.0));
    printf("||A||_inf = %.6g, ||b||_inf = %.6g, ||x||_inf = %.6g\n", ainf, binf, xinf);
    printf("residual: ||b - Ax||_2 = %.3e, scaled ||b - Ax||_inf / (||A|| ||x||) = %.3e\n",
           r2, rinf / (ainf * xinf > 0.0 ? ainf * xinf : 1.0));
    if (xtrue)
        printf("max error against the known solution: %.3e\n", err);
    printf("solution:");
    for (int i = 0; i < n && i < SHOW; i++)
        printf(" x[%d]=%.6f", i, x[i]);
    if (n > SHOW)
        printf(" ...");
    printf("\n");

    free(a0); free(b); free(xtrue); free(lu); free(row); free(perm);
    free(y); free(x); free(res); free(rowabs);
    return 0;
}
