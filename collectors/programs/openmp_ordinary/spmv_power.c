/*
 * spmv_power.c - power iteration and Jacobi iteration on a sparse matrix.
 *
 * Reads a square sparse matrix in Matrix Market coordinate format
 * (real/integer/pattern, general or symmetric), stores it in CSR form and
 *   1. runs power iteration to estimate the dominant eigenvalue
 *      (Rayleigh quotient of the normalised iterate), and
 *   2. runs Jacobi iterations on A x = b with b = A * ones, so the exact
 *      solution is the vector of ones.
 * The sparse matrix-vector products run in parallel over rows; rows can
 * have very different lengths.
 *
 * Usage: spmv_power matrix.mtx power_iters jacobi_iters [report_every]
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    int n;
    long nnz;
    long *rowptr;
    int *col;
    double *val;
} CSR;

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s matrix.mtx power_iters jacobi_iters [report_every]\n"
            "  matrix.mtx    square matrix, Matrix Market coordinate format\n"
            "  power_iters   number of power iterations (>= 1)\n"
            "  jacobi_iters  number of Jacobi iterations (>= 0)\n"
            "  report_every  print the eigenvalue estimate every N iterations"
            " (default 10)\n", prog);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static int parse_int(const char *s, long lo, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo)
        return -1;
    *out = v;
    return 0;
}

static int read_mtx(const char *path, CSR *A)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    char obj[64], fmt[64], field[64], sym[64];
    int *ri = NULL, *ci = NULL;
    double *vv = NULL;

    if (!fgets(line, sizeof line, f) ||
        sscanf(line, "%%%%MatrixMarket %63s %63s %63s %63s", obj, fmt, field,
               sym) != 4) {
        fprintf(stderr, "error: %s: missing %%%%MatrixMarket header\n", path);
        goto fail;
    }
    if (strcasecmp(obj, "matrix") || strcasecmp(fmt, "coordinate")) {
        fprintf(stderr, "error: %s: only 'matrix coordinate' is supported\n", path);
        goto fail;
    }
    int pattern = !strcasecmp(field, "pattern");
    if (!pattern && strcasecmp(field, "real") && strcasecmp(field, "integer")) {
        fprintf(stderr, "error: %s: unsupported field '%s'\n", path, field);
        goto fail;
    }
    int symmetric = !strcasecmp(sym, "symmetric");
    if (!symmetric && strcasecmp(sym, "general")) {
        fprintf(stderr, "error: %s: unsupported symmetry '%s'\n", path, sym);
        goto fail;
    }

    long rows = 0, cols = 0, entries = 0;
    for (;;) {
        if (!fgets(line, sizeof line, f)) {
            fprintf(stderr, "error: %s: missing size line\n", path);
            goto fail;
        }
        if (line[0] == '%')
            continue;
        if (sscanf(line, "%ld %ld %ld", &rows, &cols, &entries) != 3 ||
            rows <= 0 || cols <= 0 || entries < 0) {
            fprintf(stderr, "error: %s: bad size line\n", path);
            goto fail;
        }
        break;
    }
    if (rows != cols) {
        fprintf(stderr, "error: %s: matrix is %ldx%ld, need a square matrix\n",
                path, rows, cols);
        goto fail;
    }

    ri = xmalloc((size_t)entries * sizeof *ri);
    ci = xmalloc((size_t)entries * sizeof *ci);
    vv = xmalloc((size_t)entries * sizeof *vv);
    long k = 0;
    while (k < entries && fgets(line, sizeof line, f)) {
        if (line[0] == '%')
            continue;
        long i, j;
        double v = 1.0;
        int got = pattern ? sscanf(line, "%ld %ld", &i, &j)
                          : sscanf(line, "%ld %ld %lf", &i, &j, &v);
        if (got != (pattern ? 2 : 3) || i < 1 || i > rows || j < 1 || j > cols) {
            fprintf(stderr, "error: %s: bad entry %ld: %s", path, k + 1, line);
            goto fail;
        }
        if (symmetric && j > i) {
            fprintf(stderr, "error: %s: entry %ld is above the diagonal in a"
                    " symmetric file\n", path, k + 1);
            goto fail;
        }
        ri[k] = (int)(i - 1);
        ci[k] = (int)(j - 1);
        vv[k] = v;
        k++;
    }
    if (k != entries) {
        fprintf(stderr, "error: %s: expected %ld entries, found %ld\n",
                path, entries, k);
        goto fail;
    }
    fclose(f);
    f = NULL;

    int n = (int)rows;
    A->n = n;
    A->rowptr = xmalloc(((size_t)n + 1) * sizeof(long));
    memset(A->rowptr, 0, ((size_t)n + 1) * sizeof(long));
    for (long e = 0; e < entries; e++) {
        A->rowptr[ri[e] + 1]++;
        if (symmetric && ri[e] != ci[e])
            A->rowptr[ci[e] + 1]++;
    }
    for (int i = 0; i < n; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    A->nnz = A->rowptr[n];
    A->col = xmalloc((size_t)A->nnz * sizeof(int));
    A->val = xmalloc((size_t)A->nnz * sizeof(double));
    long *fill = xmalloc((size_t)n * sizeof(long));
    memcpy(fill, A->rowptr, (size_t)n * sizeof(long));
    for (long e = 0; e < entries; e++) {
        long p = fill[ri[e]]++;
        A->col[p] = ci[e];
        A->val[p] = vv[e];
        if (symmetric && ri[e] != ci[e]) {
            p = fill[ci[e]]++;
            A->col[p] = ri[e];
            A->val[p] = vv[e];
        }
    }
    free(fill);
    free(ri);
    free(ci);
    free(vv);
    return 0;

fail:
    if (f)
        fclose(f);
    free(ri);
    free(ci);
    free(vv);
    return -1;
}

/* y = A x */
static void spmv(const CSR *A, const double *x, double *y)
{
    const long *rp = A->rowptr;
    const int *col = A->col;
    const double *val = A->val;
    #pragma omp parallel for
    for (int i = 0; i < A->n; i++) {
        double s = 0.0;
        for (long p = rp[i]; p < rp[i + 1]; p++)
            s += val[p] * x[col[p]];
        y[i] = s;
    }
}

static double power_iteration(const CSR *A, long iters, long report)
{
    int n = A->n;
    double *x = xmalloc((size_t)n * sizeof(double));
    double *y = xmalloc((size_t)n * sizeof(double));
    double lambda = 0.0, prev = 0.0;

    double x0 = 1.0 / sqrt((double)n);
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        x[i] = x0;

    printf("power iteration:\n");
    printf("%8s %16s %12s\n", "iter", "eigenvalue", "rel change");
    const long *rp = A->rowptr;
    const int *col = A->col;
    const double *val = A->val;
    for (long it = 1; it <= iters; it++) {
        double rq = 0.0, nrm2 = 0.0;

        #pragma omp parallel
        {
            /* y = A x */
            #pragma omp for
            for (int i = 0; i < n; i++) {
                double s = 0.0;
                for (long p = rp[i]; p < rp[i + 1]; p++)
                    s += val[p] * x[col[p]];
                y[i] = s;
            }

            /* Rayleigh quotient x'Ax (||x|| = 1) and ||y||^2 */
            #pragma omp for reduction(+:rq, nrm2)
            for (int i = 0; i < n; i++) {
                rq += x[i] * y[i];
                nrm2 += y[i] * y[i];
            }

            /* x = y / ||y|| */
            double inv = nrm2 > 0.0 ? 1.0 / sqrt(nrm2) : 0.0;
            #pragma omp for
            for (int i = 0; i < n; i++)
                x[i] = y[i] * inv;
        }
        lambda = rq;

        if (it % report == 0 || it == iters) {
            double change = it > 1 ? fabs(lambda - prev) / fabs(lambda) : 1.0;
            if (change < 1e-7)
                printf("%8ld %16.7g %12s\n", it, lambda, "< 1e-07");
            else
                printf("%8ld %16.7g %12.2e\n", it, lambda, change);
        }
        prev = lambda;
    }
    free(x);
    free(y);
    return lambda;
}

static void jacobi(const CSR *A, long iters)
{
    int n = A->n;
    double *diag = xmalloc((size_t)n * sizeof(double));
    double *b = xmalloc((size_t)n * sizeof(double));
    double *x = xmalloc((size_t)n * sizeof(double));
    double *xn = xmalloc((size_t)n * sizeof(double));
    double *ones = xmalloc((size_t)n * sizeof(double));
    long zero_diag = 0;

    #pragma omp parallel for reduction(+:zero_diag)
    for (int i = 0; i < n; i++) {
        double d = 0.0;
        for (long p = A->rowptr[i]; p < A->rowptr[i + 1]; p++)
            if (A->col[p] == i)
                d += A->val[p];
        diag[i] = d;
        if (d == 0.0)
            zero_diag++;
        ones[i] = 1.0;
        x[i] = 0.0;
    }
    if (zero_diag) {
        printf("jacobi: skipped, %ld rows have a zero diagonal\n", zero_diag);
        goto done;
    }
    spmv(A, ones, b);

    for (long it = 0; it < iters; it++) {
        const long *rp = A->rowptr;
        const int *col = A->col;
        const double *val = A->val;
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double s = b[i];
            for (long p = rp[i]; p < rp[i + 1]; p++)
                if (col[p] != i)
                    s -= val[p] * x[col[p]];
            xn[i] = s / diag[i];
        }
        double *t = x;
        x = xn;
        xn = t;
    }

    /* residual ||b - A x|| / ||b|| and max error against the exact ones */
    spmv(A, x, xn);
    double rr = 0.0, bb = 0.0, maxerr = 0.0;
    #pragma omp parallel for reduction(+:rr, bb) reduction(max:maxerr)
    for (int i = 0; i < n; i++) {
        double r = b[i] - xn[i];
        rr += r * r;
        bb += b[i] * b[i];
        double e = fabs(x[i] - 1.0);
        if (e > maxerr)
            maxerr = e;
    }
    printf("jacobi: %ld iterations, relative residual %.4e, max error %.4e\n",
           iters, sqrt(rr) / sqrt(bb), maxerr);

done:
    free(diag);
    free(b);
    free(x);
    free(xn);
    free(ones);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        usage(argv[0]);
        return 2;
    }
    long piters, jiters, report = 10;
    if (parse_int(argv[2], 1, &piters) || parse_int(argv[3], 0, &jiters) ||
        (argc == 5 && parse_int(argv[4], 1, &report))) {
        fprintf(stderr, "error: iteration counts must be non-negative integers"
                " (power_iters and report_every at least 1)\n");
        usage(argv[0]);
        return 2;
    }

    CSR A;
    if (read_mtx(argv[1], &A) != 0)
        return 1;

    long minrow = A.nnz, maxrow = 0;
    for (int i = 0; i < A.n; i++) {
        long len = A.rowptr[i + 1] - A.rowptr[i];
        if (len < minrow)
            minrow = len;
        if (len > maxrow)
            maxrow = len;
    }
    printf("matrix: n = %d, nnz = %ld, row length min %ld / mean %.2f / max %ld\n",
           A.n, A.nnz, minrow, (double)A.nnz / A.n, maxrow);

    double lambda = power_iteration(&A, piters, report);
    printf("dominant eigenvalue estimate: %.7g\n", lambda);

    if (jiters > 0)
        jacobi(&A, jiters);

    free(A.rowptr);
    free(A.col);
    free(A.val);
    return 0;
}
