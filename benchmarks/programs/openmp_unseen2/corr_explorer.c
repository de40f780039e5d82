/*
 * corr_explorer.c - exploratory association analysis of a numeric CSV table.
 *
 * Reads a CSV file with a header row (missing values: empty or "NA"),
 * prints a per-column summary, then computes for every pair of columns
 * (pairwise-complete observations) Pearson's r, Spearman's rho (average
 * ranks for ties) and Kendall's tau-b (exact O(n^2) pair counting with a
 * normal-approximation z score).  Lists the strongest associations, the
 * most non-linear monotone relations and each column's closest partner.
 *
 * usage: corr_explorer DATA.csv [TOP] [MIN_ABS_TAU]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAXCOLS 256
#define NAMELEN 48

typedef struct {
    int ncols, nrows;
    char names[MAXCOLS][NAMELEN];
    double *val; /* column-major: val[c * nrows + r], NAN when missing */
} table_t;

typedef struct {
    int n;
    double r, rho, tau, z;
} assoc_t;

typedef struct {
    int i, j;
    double key;
} pairref_t;

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s DATA.csv [TOP (pairs to list, default 10)] "
            "[MIN_ABS_TAU (threshold, default 0.3)]\n",
            prog);
    exit(2);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '"')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n' ||
                     e[-1] == '"'))
        *--e = '\0';
    return s;
}

static int load_csv(const char *path, table_t *t)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    size_t cap = 1 << 16, rowcap = 1024;
    char *line = malloc(cap);
    double *rows = NULL;
    int nrows = 0, lineno = 1;
    if (!line || !fgets(line, (int)cap, f)) {
        fprintf(stderr, "error: %s: empty file\n", path);
        goto fail;
    }
    t->ncols = 0;
    for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ",")) {
        if (t->ncols == MAXCOLS) {
            fprintf(stderr, "error: %s: more than %d columns\n", path, MAXCOLS);
            goto fail;
        }
        snprintf(t->names[t->ncols++], NAMELEN, "%s", trim(tok));
    }
    if (t->ncols < 2) {
        fprintf(stderr, "error: %s: need at least two columns\n", path);
        goto fail;
    }
    rows = malloc(rowcap * t->ncols * sizeof(double));
    while (fgets(line, (int)cap, f)) {
        lineno++;
        if (trim(line)[0] == '\0')
            continue;
        if ((size_t)nrows == rowcap) {
            rowcap *= 2;
            rows = realloc(rows, rowcap * t->ncols * sizeof(double));
            if (!rows) {
                fprintf(stderr, "error: out of memory\n");
                exit(1);
            }
        }
        int c = 0;
        char *p = line;
        for (;;) {
            char *comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
            char *cell = trim(p);
            double v;
            if (c >= t->ncols) {
                c++;
                break;
            }
            if (*cell == '\0' || strcmp(cell, "NA") == 0 || strcmp(cell, "NaN") == 0) {
                v = NAN;
            } else {
                char *end;
                v = strtod(cell, &end);
                if (*end || !isfinite(v)) {
                    fprintf(stderr, "error: %s:%d: bad number '%s'\n", path, lineno, cell);
                    goto fail;
                }
            }
            rows[(size_t)nrows * t->ncols + c++] = v;
            if (!comma)
                break;
            p = comma + 1;
        }
        if (c != t->ncols) {
            fprintf(stderr, "error: %s:%d: expected %d fields\n", path, lineno, t->ncols);
            goto fail;
        }
        nrows++;
    }
    if (nrows < 3) {
        fprintf(stderr, "error: %s: need at least three data rows\n", path);
        goto fail;
    }
    fclose(f);
    free(line);
    t->nrows = nrows;
    t->val = malloc((size_t)nrows * t->ncols * sizeof(double));
    for (int r = 0; r < nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            t->val[(size_t)c * nrows + r] = rows[(size_t)r * t->ncols + c];
    free(rows);
    return 1;
fail:
    fclose(f);
    free(line);
    free(rows);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ranks 1..n of x with ties given their average rank; idx needs 2n ints */
static void average_ranks(const double *x, int n, int *idx, double *rank)
{
    for (int k = 0; k < n; k++)
        idx[k] = k;
    /* bottom-up merge sort of the index array (stable, no shared state) */
    int *tmp = idx + n;
    for (int width = 1; width < n; width *= 2) {
        for (int lo = 0; lo < n; lo += 2 * width) {
            int mid = lo + width < n ? lo + width : n;
            int hi = lo + 2 * width < n ? lo + 2 * width : n;
            int a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                tmp[o++] = x[idx[a]] <= x[idx[b]] ? idx[a++] : idx[b++];
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof(int));
    }
    for (int k = 0; k < n;) {
        int e = k + 1;
        while (e < n && x[idx[e]] == x[idx[k]])
            e++;
        double avg = 0.5 * (k + e - 1) + 1.0;
        for (int q = k; q < e; q++)
            rank[idx[q]] = avg;
        k = e;
    }
}

static double pearson(const double *x, const double *y, int n)
{
    double mx = 0.0, my = 0.0;
    for (int k = 0; k < n; k++) {
        mx += x[k];
        my += y[k];
    }
    mx /= n;
    my /= n;
    double sxy = 0.0, sxx = 0.0, syy = 0.0;
    for (int k = 0; k < n; k++) {
        double dx = x[k] - mx, dy = y[k] - my;
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return (sxx > 0.0 && syy > 0.0) ? sxy / sqrt(sxx * syy) : 0.0;
}

static double kendall_tau_b(const double *x, const double *y, int n)
{
    long long s = 0, tx = 0, ty = 0;
    for (int a = 0; a < n - 1; a++) {
        const double xa = x[a], ya = y[a];
        for (int b = a + 1; b < n; b++) {
            int dx = (xa > x[b]) - (xa < x[b]);
            int dy = (ya > y[b]) - (ya < y[b]);
            s += dx * dy;
            tx += dx == 0;
            ty += dy == 0;
        }
    }
    long long n0 = (long long)n * (n - 1) / 2;
    double den = sqrt((double)(n0 - tx) * (double)(n0 - ty));
    return den > 0.0 ? (double)s / den : 0.0;
}

static int cmp_pair_desc(const void *a, const void *b)
{
    const pairref_t *p = a, *q = b;
    if (p->key != q->key)
        return p->key < q->key ? 1 : -1;
    if (p->i != q->i)
        return p->i - q->i;
    return p->j - q->j;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4)
        usage(argv[0]);
    long top = 10;
    double thr = 0.3;
    char *end;
    if (argc > 2) {
        top = strtol(argv[2], &end, 10);
        if (*end || top < 1 || top > 100000)
            usage(argv[0]);
    }
    if (argc > 3) {
        thr = strtod(argv[3], &end);
        if (*end || !(thr >= 0.0 && thr <= 1.0))
            usage(argv[0]);
    }

    static table_t t;
    if (!load_csv(argv[1], &t))
        return 1;
    const int nc = t.ncols, nr = t.nrows;
    printf("%s: %d rows, %d columns\n\n", argv[1], nr, nc);

    /* ---- per-column summary ---- */
    int *cnt = malloc(nc * sizeof(int));
    double(*st)[5] = malloc(nc * sizeof *st); /* mean sd min median max */
#pragma omp parallel
    {
        double *buf = malloc(nr * sizeof(double));
#pragma omp for
        for (int c = 0; c < nc; c++) {
            const double *col = t.val + (size_t)c * nr;
            int n = 0;
            for (int r = 0; r < nr; r++)
                if (!isnan(col[r]))
                    buf[n++] = col[r];
            cnt[c] = n;
            if (n == 0) {
                for (int k = 0; k < 5; k++)
                    st[c][k] = NAN;
                continue;
            }
            qsort(buf, n, sizeof(double), cmp_double);
            double m = 0.0, ss = 0.0;
            for (int k = 0; k < n; k++)
                m += buf[k];
            m /= n;
            for (int k = 0; k < n; k++)
                ss += (buf[k] - m) * (buf[k] - m);
            st[c][0] = m;
            st[c][1] = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
            st[c][2] = buf[0];
            st[c][3] = n % 2 ? buf[n / 2] : 0.5 * (buf[n / 2 - 1] + buf[n / 2]);
            st[c][4] = buf[n - 1];
        }
        free(buf);
    }
    printf("%-16s %6s %10s %10s %10s %10s %10s\n", "column", "n", "mean", "sd", "min",
           "median", "max");
    for (int c = 0; c < nc; c++)
        printf("%-16s %6d %10.4g %10.4g %10.4g %10.4g %10.4g\n", t.names[c], cnt[c], st[c][0],
               st[c][1], st[c][2], st[c][3], st[c][4]);

    /* ---- pairwise associations (upper triangle) ---- */
    assoc_t *as = calloc((size_t)nc * nc, sizeof(assoc_t));
#pragma omp parallel
    {
        double *x = malloc(nr * sizeof(double)), *y = malloc(nr * sizeof(double));
        double *rx = malloc(nr * sizeof(double)), *ry = malloc(nr * sizeof(double));
        int *idx = malloc(2 * (size_t)nr * sizeof(int));
#pragma omp for
        for (int i = 0; i < nc; i++) {
            const double *ci = t.val + (size_t)i * nr;
            for (int j = i + 1; j < nc; j++) {
                const double *cj = t.val + (size_t)j * nr;
                int n = 0;
                for (int r = 0; r < nr; r++)
                    if (!isnan(ci[r]) && !isnan(cj[r])) {
                        x[n] = ci[r];
                        y[n] = cj[r];
                        n++;
                    }
                assoc_t *a = &as[(size_t)i * nc + j];
                a->n = n;
                if (n < 3)
                    continue;
                a->r = pearson(x, y, n);
                average_ranks(x, n, idx, rx);
                average_ranks(y, n, idx, ry);
                a->rho = pearson(rx, ry, n);
                a->tau = kendall_tau_b(x, y, n);
                a->z = 3.0 * a->tau * sqrt((double)n * (n - 1)) / sqrt(2.0 * (2.0 * n + 5.0));
            }
        }
        free(x);
        free(y);
        free(rx);
        free(ry);
        free(idx);
    }

    int npairs = nc * (nc - 1) / 2, strong = 0, signif = 0;
    pairref_t *pr = malloc(npairs * sizeof *pr), *nl = malloc(npairs * sizeof *nl);
    int k = 0;
    for (int i = 0; i < nc; i++)
        for (int j = i + 1; j < nc; j++, k++) {
            const assoc_t *a = &as[(size_t)i * nc + j];
            pr[k] = (pairref_t){i, j, fabs(a->tau)};
            nl[k] = (pairref_t){i, j, fabs(a->rho) - fabs(a->r)};
            strong += fabs(a->tau) >= thr;
            signif += fabs(a->z) > 3.2905; /* two-sided p < 0.001 */
        }
    qsort(pr, npairs, sizeof *pr, cmp_pair_desc);
    qsort(nl, npairs, sizeof *nl, cmp_pair_desc);
    if (top > npairs)
        top = npairs;

    printf("\n%d column pairs: %d with |tau_b| >= %.2f, %d significant at p < 0.001\n", npairs,
           strong, thr, signif);
    printf("\nstrongest associations (by |Kendall tau_b|):\n");
    printf("  %-16s %-16s %6s %9s %9s %9s %8s\n", "column A", "column B", "n", "pearson",
           "spearman", "tau_b", "z");
    for (int q = 0; q < top; q++) {
        const assoc_t *a = &as[(size_t)pr[q].i * nc + pr[q].j];
        printf("  %-16s %-16s %6d %9.5f %9.5f %9.5f %8.2f\n", t.names[pr[q].i],
               t.names[pr[q].j], a->n, a->r, a->rho, a->tau, a->z);
    }
    printf("\nmost non-linear monotone relations (|spearman| - |pearson|):\n");
    for (int q = 0; q < top && q < 5; q++) {
        const assoc_t *a = &as[(size_t)nl[q].i * nc + nl[q].j];
        printf("  %-16s %-16s gap %8.5f (pearson %8.5f, spearman %8.5f)\n", t.names[nl[q].i],
               t.names[nl[q].j], nl[q].key, a->r, a->rho);
    }
    printf("\nclosest partner of each column (max |tau_b|):\n");
    for (int i = 0; i < nc; i++) {
        int best = -1;
        double bt = -1.0;
        for (int j = 0; j < nc; j++) {
            if (j == i)
                continue;
            const assoc_t *a = i < j ? &as[(size_t)i * nc + j] : &as[(size_t)j * nc + i];
            if (fabs(a->tau) > bt) {
                bt = fabs(a->tau);
                best = j;
            }
        }
        printf("  %-16s -> %-16s %8.5f\n", t.names[i], t.names[best], bt);
    }

    free(cnt);
    free(st);
    free(as);
    free(pr);
    free(nl);
    free(t.val);
    return 0;
}
