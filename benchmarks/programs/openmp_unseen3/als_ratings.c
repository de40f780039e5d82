/* als_ratings: explicit-feedback matrix factorisation by alternating least
 * squares.  Each half-iteration solves one k x k regularised normal-equation
 * system per user (then per item) by Cholesky factorisation.
 *
 * usage: als_ratings RATINGS.csv K ITERATIONS LAMBDA
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <omp.h>

typedef struct { int u, i; float r; } Rating;

static int nusers, nitems, k;
static long nratings;
static Rating *ratings;
/* CSR by user and by item: index lists and rating values */
static long *uptr, *iptr;
static int *uidx, *iidx;
static float *uval, *ival;

static void read_csv(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "als_ratings: cannot open %s\n", path);
        exit(1);
    }
    char line[256];
    long cap = 1 << 16, lineno = 0;
    ratings = malloc(sizeof(Rating) * (size_t)cap);
    nratings = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '#')
            continue;
        if (lineno == 1 && strncmp(line, "user", 4) == 0)
            continue;
        int u, i;
        float r;
        char extra;
        if (sscanf(line, "%d,%d,%f %c", &u, &i, &r, &extra) != 3 || u < 0 || i < 0 ||
            u > 50000000 || i > 50000000 || !(r >= -1e6f && r <= 1e6f)) {
            fprintf(stderr, "als_ratings: %s:%ld: malformed rating line\n", path, lineno);
            exit(1);
        }
        if (nratings == cap) {
            cap *= 2;
            ratings = realloc(ratings, sizeof(Rating) * (size_t)cap);
        }
        ratings[nratings].u = u;
        ratings[nratings].i = i;
        ratings[nratings].r = r;
        nratings++;
        if (u + 1 > nusers) nusers = u + 1;
        if (i + 1 > nitems) nitems = i + 1;
    }
    fclose(f);
    if (nratings == 0) {
        fprintf(stderr, "als_ratings: %s: no ratings found\n", path);
        exit(1);
    }
}

static void build_csr(int nrows, int by_user, long **ptr_out, int **idx_out, float **val_out)
{
    long *ptr = calloc((size_t)nrows + 1, sizeof(long));
    int *idx = malloc(sizeof(int) * (size_t)nratings);
    float *val = malloc(sizeof(float) * (size_t)nratings);
    for (long t = 0; t < nratings; t++)
        ptr[(by_user ? ratings[t].u : ratings[t].i) + 1]++;
    for (int r = 0; r < nrows; r++)
        ptr[r + 1] += ptr[r];
    long *fill = malloc(sizeof(long) * (size_t)nrows);
    memcpy(fill, ptr, sizeof(long) * (size_t)nrows);
    for (long t = 0; t < nratings; t++) {
        int row = by_user ? ratings[t].u : ratings[t].i;
        long p = fill[row]++;
        idx[p] = by_user ? ratings[t].i : ratings[t].u;
        val[p] = ratings[t].r;
    }
    free(fill);
    *ptr_out = ptr;
    *idx_out = idx;
    *val_out = val;
}

/* solve (sum f f^T + lambda*n*I) x = sum r f for one row; returns 0 if row is empty */
static void solve_row(long p0, long p1, const int *idx, const float *val, const double *other,
                      double lambda, double *x, double *A, double *b)
{
    long n = p1 - p0;
    if (n == 0) {
        for (int a = 0; a < k; a++)
            x[a] = 0.0;
        return;
    }
    memset(A, 0, sizeof(double) * (size_t)k * k);
    memset(b, 0, sizeof(double) * (size_t)k);
    for (long p = p0; p < p1; p++) {
        const double *f = other + (size_t)idx[p] * k;
        double r = val[p];
        for (int a = 0; a < k; a++) {
            double fa = f[a];
            b[a] += r * fa;
            double *Aa = A + (size_t)a * k;
            for (int c = 0; c <= a; c++)
                Aa[c] += fa * f[c];
        }
    }
    for (int a = 0; a < k; a++)
        A[(size_t)a * k + a] += lambda * (double)n;
    /* Cholesky: lower triangle, in place */
    for (int j = 0; j < k; j++) {
        double d = A[(size_t)j * k + j];
        for (int c = 0; c < j; c++)
            d -= A[(size_t)j * k + c] * A[(size_t)j * k + c];
        d = sqrt(d > 1e-300 ? d : 1e-300);
        A[(size_t)j * k + j] = d;
        for (int i = j + 1; i < k; i++) {
            double s = A[(size_t)i * k + j];
            for (int c = 0; c < j; c++)
                s -= A[(size_t)i * k + c] * A[(size_t)j * k + c];
            A[(size_t)i * k + j] = s / d;
        }
    }
    for (int i = 0; i < k; i++) {
        double s = b[i];
        for (int c = 0; c < i; c++)
            s -= A[(size_t)i * k + c] * x[c];
        x[i] = s / A[(size_t)i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double s = x[i];
        for (int c = i + 1; c < k; c++)
            s -= A[(size_t)c * k + i] * x[c];
        x[i] = s / A[(size_t)i * k + i];
    }
}

static void half_step(int nrows, const long *ptr, const int *idx, const float *val,
                      const double *other, double *mine, double lambda)
{
    #pragma omp parallel
    {
        double *A = malloc(sizeof(double) * (size_t)k * k);
        double *b = malloc(sizeof(double) * (size_t)k);
        #pragma omp for
        for (int r = 0; r < nrows; r++)
            solve_row(ptr[r], ptr[r + 1], idx, val, other, lambda, mine + (size_t)r * k, A, b);
        free(A);
        free(b);
    }
}

static double dot(const double *a, const double *b)
{
    double s = 0.0;
    for (int c = 0; c < k; c++)
        s += a[c] * b[c];
    return s;
}

static double rmse(const double *U, const double *V, double *row_err)
{
    #pragma omp parallel for
    for (int u = 0; u < nusers; u++) {
        double s = 0.0;
        for (long p = uptr[u]; p < uptr[u + 1]; p++) {
            double e = uval[p] - dot(U + (size_t)u * k, V + (size_t)uidx[p] * k);
            s += e * e;
        }
        row_err[u] = s;
    }
    double total = 0.0;
    for (int u = 0; u < nusers; u++)
        total += row_err[u];
    return sqrt(total / (double)nratings);
}

static double init_value(unsigned a, unsigned b)
{
    unsigned h = a * 2654435761u ^ (b + 0x9e3779b9u + (a << 6) + (a >> 2));
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    return 0.1 + 0.4 * (double)(h & 0xffffff) / 16777216.0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s RATINGS.csv K ITERATIONS LAMBDA\n", argv[0]);
        return 2;
    }
    char *e1, *e2, *e3;
    long kk = strtol(argv[2], &e1, 10);
    long iters = strtol(argv[3], &e2, 10);
    double lambda = strtod(argv[4], &e3);
    if (*e1 || *e2 || *e3 || kk < 1 || kk > 256 || iters < 1 || iters > 10000 || !(lambda > 0)) {
        fprintf(stderr, "usage: %s RATINGS.csv K ITERATIONS LAMBDA  (K 1..256, ITERATIONS >= 1, LAMBDA > 0)\n", argv[0]);
        return 2;
    }
    k = (int)kk;
    read_csv(argv[1]);
    build_csr(nusers, 1, &uptr, &uidx, &uval);
    build_csr(nitems, 0, &iptr, &iidx, &ival);

    long umax = 0, imax = 0;
    int uactive = 0;
    for (int u = 0; u < nusers; u++) {
        long c = uptr[u + 1] - uptr[u];
        if (c > umax) umax = c;
        if (c > 0) uactive++;
    }
    for (int i = 0; i < nitems; i++)
        if (iptr[i + 1] - iptr[i] > imax) imax = iptr[i + 1] - iptr[i];
    printf("ratings %ld, users %d (%d active, max %ld ratings), items %d (max %ld ratings), k %d, lambda %g\n",
           nratings, nusers, uactive, umax, nitems, imax, k, lambda);

    double *U = malloc(sizeof(double) * (size_t)nusers * k);
    double *V = malloc(sizeof(double) * (size_t)nitems * k);
    double *row_err = malloc(sizeof(double) * (size_t)nusers);
    for (int i = 0; i < nitems; i++)
        for (int c = 0; c < k; c++)
            V[(size_t)i * k + c] = init_value((unsigned)i, (unsigned)c);
    for (int u = 0; u < nusers; u++)
        for (int c = 0; c < k; c++)
            U[(size_t)u * k + c] = init_value((unsigned)u + 1000003u, (unsigned)c);

    printf("iter 0: rmse %.6f\n", rmse(U, V, row_err));
    for (int it = 1; it <= iters; it++) {
        half_step(nusers, uptr, uidx, uval, V, U, lambda);
        half_step(nitems, iptr, iidx, ival, U, V, lambda);
        printf("iter %d: rmse %.6f\n", it, rmse(U, V, row_err));
    }

    /* top predictions for the three most active users, over items they have not rated */
    int best_users[3] = {-1, -1, -1};
    for (int t = 0; t < 3; t++) {
        long bc = -1;
        for (int u = 0; u < nusers; u++) {
            long c = uptr[u + 1] - uptr[u];
            if (c > bc && u != best_users[0] && u != best_users[1]) {
                bc = c;
                best_users[t] = u;
            }
        }
    }
    double *score = malloc(sizeof(double) * (size_t)nitems);
    char *rated = malloc((size_t)nitems);
    for (int t = 0; t < 3 && best_users[t] >= 0; t++) {
        int u = best_users[t];
        memset(rated, 0, (size_t)nitems);
        for (long p = uptr[u]; p < uptr[u + 1]; p++)
            rated[uidx[p]] = 1;
        #pragma omp parallel for
        for (int i = 0; i < nitems; i++)
            score[i] = (rated[i] || iptr[i + 1] == iptr[i]) ? -1e300 : dot(U + (size_t)u * k, V + (size_t)i * k);
        printf("user %d (%ld ratings) top items:", u, uptr[u + 1] - uptr[u]);
        for (int r = 0; r < 3; r++) {
            int bi = -1;
            for (int i = 0; i < nitems; i++)
                if (score[i] > -1e299 && (bi < 0 || score[i] > score[bi]))
                    bi = i;
            if (bi < 0)
                break;
            printf(" %d (%.4f)", bi, score[bi]);
            score[bi] = -1e300;
        }
        printf("\n");
    }
    return 0;
}
