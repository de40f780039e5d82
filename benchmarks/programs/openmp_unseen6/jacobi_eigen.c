/*
 * jacobi_eigen - eigenvalues and eigenvectors of a collection of symmetric
 * matrices by the cyclic Jacobi method.
 *
 * usage: jacobi_eigen MATFILE [TOL [MAXSWEEPS]]
 *
 * MATFILE holds matrices as a header "matrix LABEL N" followed by N lines with
 * the lower triangle (row i has i+1 numbers).  Each matrix is diagonalised
 * until the off-diagonal Frobenius norm drops below TOL times the norm of
 * the matrix (default 1e-12), or MAXSWEEPS sweeps (default 60) have been done.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 512

typedef struct {
    char label[64];
    int n;
    double *a; /* full n x n, row major */
} Matrix;

typedef struct {
    int sweeps;
    int converged;
    long rotations;
    double lmin, lmax;   /* smallest / largest eigenvalue */
    double amin, amax;   /* smallest / largest |eigenvalue| */
    double trace_err;    /* |sum(lambda) - trace| / ||A||_F */
    double frob_err;     /* |sum(lambda^2) - ||A||_F^2| / ||A||_F^2 */
    double resid;        /* max_j ||A v_j - lambda_j v_j|| / ||A||_F */
} Result;

static Result jacobi(const Matrix *m, double tol, int maxsweeps)
{
    const int n = m->n;
    double *a = malloc(sizeof(double) * n * n);
    double *v = malloc(sizeof(double) * n * n);
    double *w = malloc(sizeof(double) * n);
    Result r;
    memset(&r, 0, sizeof r);

    memcpy(a, m->a, sizeof(double) * n * n);
    double fro2 = 0.0, trace = 0.0;
    for (int i = 0; i < n; i++) {
        trace += a[i * n + i];
        for (int j = 0; j < n; j++) {
            fro2 += a[i * n + j] * a[i * n + j];
            v[i * n + j] = (i == j) ? 1.0 : 0.0;
        }
    }
    double fro = sqrt(fro2);

    for (r.sweeps = 0; r.sweeps < maxsweeps; r.sweeps++) {
        double off = 0.0;
        for (int p = 0; p < n; p++)
            for (int q = p + 1; q < n; q++)
                off += a[p * n + q] * a[p * n + q];
        if (sqrt(2.0 * off) <= tol * fro) {
            r.converged = 1;
            break;
        }
        for (int p = 0; p < n - 1; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (fabs(apq) <= 1e-300)
                    continue;
                double app = a[p * n + p], aqq = a[q * n + q];
                /* rotation already below rounding of the diagonal */
                if (r.sweeps > 3 && fabs(apq) * 1e17 < fabs(app) && fabs(apq) * 1e17 < fabs(aqq)) {
                    a[p * n + q] = a[q * n + p] = 0.0;
                    continue;
                }
                double theta = (aqq - app) / (2.0 * apq);
                double t = 1.0 / (fabs(theta) + sqrt(theta * theta + 1.0));
                if (theta < 0.0)
                    t = -t;
                double c = 1.0 / sqrt(t * t + 1.0), s = t * c, tau = s / (1.0 + c);
                a[p * n + p] = app - t * apq;
                a[q * n + q] = aqq + t * apq;
                a[p * n + q] = a[q * n + p] = 0.0;
                for (int k = 0; k < n; k++) {
                    if (k == p || k == q)
                        continue;
                    double akp = a[k * n + p], akq = a[k * n + q];
                    double nkp = akp - s * (akq + tau * akp);
                    double nkq = akq + s * (akp - tau * akq);
                    a[k * n + p] = a[p * n + k] = nkp;
                    a[k * n + q] = a[q * n + k] = nkq;
                }
                for (int k = 0; k < n; k++) {
                    double vkp = v[k * n + p], vkq = v[k * n + q];
                    v[k * n + p] = vkp - s * (vkq + tau * vkp);
                    v[k * n + q] = vkq + s * (vkp - tau * vkq);
                }
                r.rotations++;
            }
        }
    }

    double sum = 0.0, sum2 = 0.0;
    r.lmin = r.amin = INFINITY;
    r.lmax = r.amax = -INFINITY;
    for (int i = 0; i < n; i++) {
        double l = a[i * n + i];
        sum += l;
        sum2 += l * l;
        r.lmin = fmin(r.lmin, l);
        r.lmax = fmax(r.lmax, l);
        r.amin = fmin(r.amin, fabs(l));
        r.amax = fmax(r.amax, fabs(l));
    }
    double scale = fro > 0.0 ? fro : 1.0;
    r.trace_err = fabs(sum - trace) / scale;
    r.frob_err = fabs(sum2 - fro2) / (scale * scale);

    /* residual of every eigenpair against the original matrix */
    const double *a0 = m->a;
    for (int j = 0; j < n; j++) {
        double lam = a[j * n + j], rr = 0.0;
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += a0[i * n + k] * v[k * n + j];
            w[i] = s - lam * v[i * n + j];
        }
        for (int i = 0; i < n; i++)
            rr += w[i] * w[i];
        rr = sqrt(rr) / scale;
        if (rr > r.resid)
            r.resid = rr;
    }
    free(a);
    free(v);
    free(w);
    return r;
}

static int blank_or_comment(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return *s == '#' || *s == '\n' || *s == '\r' || *s == '\0';
}

static Matrix *read_matrices(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "jacobi_eigen: cannot open %s\n", path);
        return NULL;
    }
    int cap = 64, nm = 0, lineno = 0;
    Matrix *ms = malloc(sizeof *ms * cap);
    size_t bufsz = 16 * MAXN + 64;
    char *buf = malloc(bufsz);
    int ok = 1;
    while (ok && fgets(buf, (int)bufsz, f)) {
        lineno++;
        if (blank_or_comment(buf))
            continue;
        Matrix m;
        if (sscanf(buf, "matrix %63s %d", m.label, &m.n) != 2 || m.n < 1 || m.n > MAXN) {
            ok = 0;
            break;
        }
        m.a = malloc(sizeof(double) * m.n * m.n);
        for (int i = 0; i < m.n && ok; i++) {
            if (!fgets(buf, (int)bufsz, f)) {
                ok = 0;
                break;
            }
            lineno++;
            char *s = buf, *end;
            for (int j = 0; j <= i; j++) {
                double x = strtod(s, &end);
                if (end == s || !isfinite(x)) {
                    ok = 0;
                    break;
                }
                m.a[i * m.n + j] = m.a[j * m.n + i] = x;
                s = end;
            }
            while (ok && (*s == ' ' || *s == '\t' || *s == '\r'))
                s++;
            if (ok && *s != '\n' && *s != '\0')
                ok = 0;
        }
        if (!ok) {
            free(m.a);
            break;
        }
        if (nm == cap) {
            cap *= 2;
            ms = realloc(ms, sizeof *ms * cap);
        }
        ms[nm++] = m;
    }
    fclose(f);
    free(buf);
    if (!ok || nm == 0) {
        if (!ok)
            fprintf(stderr, "jacobi_eigen: %s:%d: malformed matrix data\n", path, lineno);
        else
            fprintf(stderr, "jacobi_eigen: %s: no matrices\n", path);
        for (int i = 0; i < nm; i++)
            free(ms[i].a);
        free(ms);
        return NULL;
    }
    *count = nm;
    return ms;
}

int main(int argc, char **argv)
{
    double tol = 1e-12;
    long maxsweeps = 60;
    char *end;
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s MATFILE [TOL [MAXSWEEPS]]\n", argv[0]);
        return 2;
    }
    if (argc >= 3) {
        tol = strtod(argv[2], &end);
        if (*end != '\0' || !(tol > 0.0 && tol < 1.0)) {
            fprintf(stderr, "usage: %s MATFILE [TOL [MAXSWEEPS]]\n", argv[0]);
            return 2;
        }
    }
    if (argc == 4) {
        maxsweeps = strtol(argv[3], &end, 10);
        if (*end != '\0' || maxsweeps < 1 || maxsweeps > 1000) {
            fprintf(stderr, "usage: %s MATFILE [TOL [MAXSWEEPS]]\n", argv[0]);
            return 2;
        }
    }

    int nm;
    Matrix *ms = read_matrices(argv[1], &nm);
    if (!ms)
        return 1;
    Result *res = malloc(sizeof *res * nm);

    #pragma omp parallel for
    for (int i = 0; i < nm; i++)
        res[i] = jacobi(&ms[i], tol, (int)maxsweeps);

    long rotations = 0, total_sweeps = 0;
    int nmin = MAXN, nmax = 0, unconverged = 0, imax = 0, imin = 0, isweep = 0;
    double worst_trace = 0, worst_frob = 0, worst_resid = 0;
    /* condition number classes: <1e1, <1e2, <1e3, <1e4, <1e6, <1e10, larger, singular */
    const char *cls[8] = { "[1, 1e1)", "[1e1, 1e2)", "[1e2, 1e3)", "[1e3, 1e4)",
                           "[1e4, 1e6)", "[1e6, 1e10)", ">= 1e10", "singular" };
    int hist[8] = { 0 };
    /* size classes for the sweep table */
    const int bounds[5] = { 1, 16, 32, 64, MAXN + 1 };
    int scount[4] = { 0 };
    long ssweeps[4] = { 0 }, srot[4] = { 0 };

    for (int i = 0; i < nm; i++) {
        const Result *r = &res[i];
        int n = ms[i].n;
        rotations += r->rotations;
        total_sweeps += r->sweeps;
        unconverged += !r->converged;
        if (n < nmin) nmin = n;
        if (n > nmax) nmax = n;
        if (r->lmax > res[imax].lmax) imax = i;
        if (r->lmin < res[imin].lmin) imin = i;
        if (r->sweeps > res[isweep].sweeps) isweep = i;
        worst_trace = fmax(worst_trace, r->trace_err);
        worst_frob = fmax(worst_frob, r->frob_err);
        worst_resid = fmax(worst_resid, r->resid);

        int c;
        if (r->amin <= 1e-9 * r->amax) {
            c = 7;
        } else {
            double k = r->amax / r->amin;
            c = k < 1e1 ? 0 : k < 1e2 ? 1 : k < 1e3 ? 2 : k < 1e4 ? 3 : k < 1e6 ? 4 : k < 1e10 ? 5 : 6;
        }
        hist[c]++;
        for (int s = 0; s < 4; s++)
            if (n >= bounds[s] && n < bounds[s + 1]) {
                scount[s]++;
                ssweeps[s] += r->sweeps;
                srot[s] += r->rotations;
            }
    }

    printf("matrices:            %d  (n = %d .. %d)\n", nm, nmin, nmax);
    printf("tolerance:           %g, at most %ld sweeps\n", tol, maxsweeps);
    printf("sweeps:              %ld total, %.2f mean, %d max (%s)\n", total_sweeps,
           (double)total_sweeps / nm, res[isweep].sweeps, ms[isweep].label);
    printf("rotations:           %ld\n", rotations);
    printf("unconverged:         %d\n", unconverged);
    printf("largest eigenvalue:  %.6f  (%s, n = %d)\n", res[imax].lmax, ms[imax].label, ms[imax].n);
    printf("smallest eigenvalue: %.6f  (%s, n = %d)\n", res[imin].lmin, ms[imin].label, ms[imin].n);
    printf("sweeps by size:\n");
    for (int s = 0; s < 4; s++) {
        if (scount[s] == 0)
            continue;
        printf("  n %3d..%-3d %4d matrices  %6.2f sweeps  %10.1f rotations/matrix\n", bounds[s],
               s == 3 ? nmax : bounds[s + 1] - 1, scount[s], (double)ssweeps[s] / scount[s],
               (double)srot[s] / scount[s]);
    }
    printf("condition numbers:\n");
    for (int c = 0; c < 8; c++)
        printf("  %-12s %4d\n", cls[c], hist[c]);
    printf("trace check:         %s (max rel. error %.1e)\n", worst_trace < 1e-10 ? "ok" : "FAILED",
           worst_trace);
    printf("Frobenius check:     %s (max rel. error %.1e)\n", worst_frob < 1e-10 ? "ok" : "FAILED",
           worst_frob);
    printf("eigenpair residual:  %s (max %.1e)\n", worst_resid < 1e-10 ? "ok" : "FAILED",
           worst_resid);

    for (int i = 0; i < nm; i++)
        free(ms[i].a);
    free(ms);
    free(res);
    return 0;
}
