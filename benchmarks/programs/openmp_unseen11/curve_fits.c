/* curve_fits: Levenberg-Marquardt fit of the 4-parameter logistic
 *     y = d + (a - d) / (1 + (x / c)^b)
 * to every dose-response series of a file.  The fits are independent and run
 * in one parallel loop; results are summarised afterwards in series order.
 *
 * usage: curve_fits series.txt max_iterations
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    double xmin, xmax;
    double *y;
} Series;

typedef struct {
    double p[4];       /* a, d, b, ln c */
    double rms;
    int iters, ok;
} Fit;

static double model_ssr(const double *lx, const double *y, int n, const double *p)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double u = exp(p[2] * (lx[i] - p[3]));
        double r = y[i] - (p[1] + (p[0] - p[1]) / (1.0 + u));
        s += r * r;
    }
    return s;
}

/* solve 4x4 system A x = g by Gaussian elimination with partial pivoting */
static int solve4(double A[4][4], double *g, double *x)
{
    double M[4][5];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) M[i][j] = A[i][j];
        M[i][4] = g[i];
    }
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(M[r][c]) > fabs(M[piv][c])) piv = r;
        if (fabs(M[piv][c]) < 1e-300) return -1;
        if (piv != c)
            for (int j = 0; j < 5; j++) { double t = M[c][j]; M[c][j] = M[piv][j]; M[piv][j] = t; }
        for (int r = c + 1; r < 4; r++) {
            double f = M[r][c] / M[c][c];
            for (int j = c; j < 5; j++) M[r][j] -= f * M[c][j];
        }
    }
    for (int i = 3; i >= 0; i--) {
        double s = M[i][4];
        for (int j = i + 1; j < 4; j++) s -= M[i][j] * x[j];
        x[i] = s / M[i][i];
    }
    return 0;
}

static void fit_series(const Series *s, int max_iter, Fit *out)
{
    int n = s->n;
    double *lx = malloc(sizeof(double) * n);
    double l0 = log(s->xmin), l1 = log(s->xmax);
    for (int i = 0; i < n; i++) lx[i] = l0 + (l1 - l0) * i / (n - 1);
    /* naive start: plateaus from the first and last few points, slope 1, midpoint in the middle */
    int k = n / 10 < 2 ? 2 : n / 10;
    double ya = 0, yd = 0;
    for (int i = 0; i < k; i++) { ya += s->y[i]; yd += s->y[n - 1 - i]; }
    double p[4] = {ya / k, yd / k, 1.0, 0.5 * (l0 + l1)};
    double ssr = model_ssr(lx, s->y, n, p), lambda = 1e-3;
    int it, converged = 0;
    for (it = 1; it <= max_iter; it++) {
        double JTJ[4][4] = {{0}}, g[4] = {0};
        for (int i = 0; i < n; i++) {
            double t = lx[i] - p[3];
            double u = exp(p[2] * t), D = 1.0 + u, iD = 1.0 / D;
            double r = s->y[i] - (p[1] + (p[0] - p[1]) * iD);
            double q = (p[0] - p[1]) * u * iD * iD;
            double J[4] = {iD, 1.0 - iD, -q * t, q * p[2]};
            for (int a = 0; a < 4; a++) {
                g[a] += J[a] * r;
                for (int b = 0; b <= a; b++) JTJ[a][b] += J[a] * J[b];
            }
        }
        for (int a = 0; a < 4; a++)
            for (int b = a + 1; b < 4; b++) JTJ[a][b] = JTJ[b][a];
        /* inner loop: raise lambda until the step lowers the residual */
        int accepted = 0;
        while (lambda < 1e14) {
            double A[4][4], delta[4], np[4];
            memcpy(A, JTJ, sizeof A);
            for (int a = 0; a < 4; a++) A[a][a] += lambda * (JTJ[a][a] > 1e-12 ? JTJ[a][a] : 1e-12);
            if (solve4(A, g, delta) == 0) {
                for (int a = 0; a < 4; a++) np[a] = p[a] + delta[a];
                if (fabs(np[2]) < 60 && fabs(np[3]) < 60) {
                    double nssr = model_ssr(lx, s->y, n, np);
                    if (nssr < ssr) {
                        double rel = (ssr - nssr) / (ssr + 1e-300);
                        memcpy(p, np, sizeof p);
                        ssr = nssr;
                        lambda = lambda * 0.1 < 1e-12 ? 1e-12 : lambda * 0.1;
                        accepted = 1;
                        if (rel < 1e-9) converged = 1;
                        break;
                    }
                }
            }
            lambda *= 10.0;
        }
        if (!accepted) { converged = 1; break; }   /* no downhill step left: at a minimum */
        if (converged) break;
    }
    out->iters = it > max_iter ? max_iter : it;
    memcpy(out->p, p, sizeof p);
    out->rms = sqrt(ssr / n);
    /* a fit fails if it did not converge, the midpoint lies far outside the doses
     * or the plateaus lie far outside the data */
    double ymin = s->y[0], ymax = s->y[0];
    for (int i = 1; i < n; i++) {
        if (s->y[i] < ymin) ymin = s->y[i];
        if (s->y[i] > ymax) ymax = s->y[i];
    }
    out->ok = converged && isfinite(ssr) && p[3] > l0 - 2.0 && p[3] < l1 + 2.0 && fabs(p[2]) < 50 &&
              fabs(p[1] - p[0]) < 3.0 * (ymax - ymin);
    free(lx);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s series.txt max_iterations\n", argv[0]);
        return 2;
    }
    char *end;
    long max_iter = strtol(argv[2], &end, 10);
    if (*end || max_iter < 1 || max_iter > 1000000) {
        fprintf(stderr, "usage: %s series.txt max_iterations (1..1000000)\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) { fprintf(stderr, "curve_fits: cannot open %s\n", argv[1]); return 1; }
    int ns;
    if (fscanf(f, "%d", &ns) != 1 || ns < 1 || ns > 10000000) {
        fprintf(stderr, "curve_fits: %s: bad series count\n", argv[1]); fclose(f); return 1;
    }
    Series *S = calloc(ns, sizeof *S);
    for (int i = 0; i < ns; i++) {
        if (fscanf(f, "%d %lf %lf", &S[i].n, &S[i].xmin, &S[i].xmax) != 3 || S[i].n < 5 ||
            S[i].n > 1000000 || !(S[i].xmin > 0) || !(S[i].xmax > S[i].xmin)) {
            fprintf(stderr, "curve_fits: %s: bad header of series %d\n", argv[1], i + 1);
            fclose(f); return 1;
        }
        S[i].y = malloc(sizeof(double) * S[i].n);
        for (int j = 0; j < S[i].n; j++)
            if (fscanf(f, "%lf", &S[i].y[j]) != 1) {
                fprintf(stderr, "curve_fits: %s: series %d is short\n", argv[1], i + 1);
                fclose(f); return 1;
            }
    }
    fclose(f);

    Fit *F = malloc(sizeof(Fit) * ns);
    #pragma omp parallel for
    for (int i = 0; i < ns; i++) fit_series(&S[i], (int)max_iter, &F[i]);

    /* sequential summary in series order */
    long long npts = 0, iters = 0;
    int nok = 0, hist[5] = {0};
    double sum_b = 0, sum_b2 = 0, sum_span = 0, sum_rms = 0;
    double *ec = malloc(sizeof(double) * ns);
    for (int i = 0; i < ns; i++) {
        npts += S[i].n;
        iters += F[i].iters;
        int it = F[i].iters;
        hist[it <= 10 ? 0 : it <= 30 ? 1 : it <= 100 ? 2 : it <= 300 ? 3 : 4]++;
        if (!F[i].ok) continue;
        double b = fabs(F[i].p[2]);
        sum_b += b; sum_b2 += b * b;
        sum_span += fabs(F[i].p[1] - F[i].p[0]);
        sum_rms += F[i].rms;
        ec[nok++] = F[i].p[3] / log(10.0);
    }
    qsort(ec, nok, sizeof(double), cmp_double);
    printf("series %d, points %lld, LM iterations %lld (mean %.2f)\n",
           ns, npts, iters, (double)iters / ns);
    printf("iterations: <=10 %d, 11-30 %d, 31-100 %d, 101-300 %d, >300 %d\n",
           hist[0], hist[1], hist[2], hist[3], hist[4]);
    printf("failed fits: %d\n", ns - nok);
    if (nok > 0) {
        double mb = sum_b / nok;
        printf("successful fits: |slope| mean %.4f sd %.4f, span mean %.3f, rms residual mean %.4f\n",
               mb, sqrt(fmax(0.0, sum_b2 / nok - mb * mb)), sum_span / nok, sum_rms / nok);
        printf("log10 EC50 quartiles: %.4f %.4f %.4f\n",
               ec[nok / 4], ec[nok / 2], ec[(3 * nok) / 4]);
    }
    /* five worst relative residuals among successful fits (rms / span), ties by index */
    int worst[5], nw = 0;
    for (int i = 0; i < ns; i++) {
        if (!F[i].ok) continue;
        double v = F[i].rms / (fabs(F[i].p[1] - F[i].p[0]) + 1e-9);
        int pos = nw;
        while (pos > 0) {
            int j = worst[pos - 1];
            double vj = F[j].rms / (fabs(F[j].p[1] - F[j].p[0]) + 1e-9);
            if (vj >= v) break;
            pos--;
        }
        if (pos >= 5) continue;
        if (nw < 5) nw++;
        for (int q = nw - 1; q > pos; q--) worst[q] = worst[q - 1];
        worst[pos] = i;
    }
    printf("worst relative residuals:\n");
    for (int q = 0; q < nw; q++) {
        const Fit *w = &F[worst[q]];
        printf("  series %5d n=%3d rms %.4f span %.3f slope %.4f log10 EC50 %.4f iters %d\n",
               worst[q], S[worst[q]].n, w->rms, fabs(w->p[1] - w->p[0]), w->p[2],
               w->p[3] / log(10.0), w->iters);
    }
    for (int i = 0; i < ns; i++) free(S[i].y);
    free(S); free(F); free(ec);
    return 0;
}
