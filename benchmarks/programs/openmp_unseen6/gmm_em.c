/*
 * gmm_em - fit 2-D Gaussian mixture models with k = 1..KMAX components by
 * expectation-maximisation, several seeded restarts per k, and choose k by
 * the Bayesian information criterion.
 *
 * usage: gmm_em POINTFILE KMAX RESTARTS [SEED [MAXITER]]
 *
 * POINTFILE holds one "x y" pair per line ('#' lines are comments).  Each
 * restart is seeded by k-means++ from its own random stream, so the result
 * does not depend on the order in which the fits are run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KLIMIT 32
#define LOG2PI 1.8378770664093453

typedef struct {
    double w[KLIMIT];
    double mx[KLIMIT], my[KLIMIT];
    double sxx[KLIMIT], sxy[KLIMIT], syy[KLIMIT];
} Model;

typedef struct {
    Model m;
    double loglik;
    int iters;
    int converged;
} Fit;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *s)
{
    return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

/* k-means++ choice of starting means; covariances start at the data's */
static void seed_model(Model *m, const double *x, const double *y, int n, int k,
                       double cxx, double cxy, double cyy, uint64_t seed)
{
    double *d2 = malloc(sizeof(double) * n);
    int first = (int)(uniform01(&seed) * n);
    m->mx[0] = x[first];
    m->my[0] = y[first];
    for (int i = 0; i < n; i++) {
        double dx = x[i] - m->mx[0], dy = y[i] - m->my[0];
        d2[i] = dx * dx + dy * dy;
    }
    for (int c = 1; c < k; c++) {
        double total = 0.0;
        for (int i = 0; i < n; i++)
            total += d2[i];
        double target = uniform01(&seed) * total, acc = 0.0;
        int pick = n - 1;
        for (int i = 0; i < n; i++) {
            acc += d2[i];
            if (acc >= target) {
                pick = i;
                break;
            }
        }
        m->mx[c] = x[pick];
        m->my[c] = y[pick];
        for (int i = 0; i < n; i++) {
            double dx = x[i] - m->mx[c], dy = y[i] - m->my[c];
            double d = dx * dx + dy * dy;
            if (d < d2[i])
                d2[i] = d;
        }
    }
    for (int c = 0; c < k; c++) {
        m->w[c] = 1.0 / k;
        m->sxx[c] = cxx / k;
        m->sxy[c] = cxy / k;
        m->syy[c] = cyy / k;
    }
    free(d2);
}

static Fit run_em(const double *x, const double *y, int n, int k, double cxx, double cxy,
                  double cyy, uint64_t seed, int maxiter, double tol)
{
    Fit f;
    memset(&f, 0, sizeof f);
    seed_model(&f.m, x, y, n, k, cxx, cxy, cyy, seed);
    Model *m = &f.m;
    double *resp = malloc(sizeof(double) * n * k);
    double prev = -INFINITY;
    const double reg = 1e-6;

    for (f.iters = 1; f.iters <= maxiter; f.iters++) {
        /* E step: log densities, normalised with log-sum-exp */
        double lw[KLIMIT], ia[KLIMIT], ib[KLIMIT], ic[KLIMIT];
        for (int c = 0; c < k; c++) {
            double det = m->sxx[c] * m->syy[c] - m->sxy[c] * m->sxy[c];
            ia[c] = m->syy[c] / det;
            ib[c] = -m->sxy[c] / det;
            ic[c] = m->sxx[c] / det;
            lw[c] = log(m->w[c]) - LOG2PI - 0.5 * log(det);
        }
        double ll = 0.0;
        for (int i = 0; i < n; i++) {
            double *r = resp + (size_t)i * k, best = -INFINITY;
            for (int c = 0; c < k; c++) {
                double dx = x[i] - m->mx[c], dy = y[i] - m->my[c];
                r[c] = lw[c] - 0.5 * (ia[c] * dx * dx + 2.0 * ib[c] * dx * dy + ic[c] * dy * dy);
                if (r[c] > best)
                    best = r[c];
            }
            double s = 0.0;
            for (int c = 0; c < k; c++) {
                r[c] = exp(r[c] - best);
                s += r[c];
            }
            for (int c = 0; c < k; c++)
                r[c] /= s;
            ll += best + log(s);
        }
        f.loglik = ll;
        if (ll - prev < tol * fabs(ll)) {
            f.converged = 1;
            break;
        }
        prev = ll;

        /* M step */
        for (int c = 0; c < k; c++) {
            double nk = 0.0, sx = 0.0, sy = 0.0;
            for (int i = 0; i < n; i++) {
                double r = resp[(size_t)i * k + c];
                nk += r;
                sx += r * x[i];
                sy += r * y[i];
            }
            if (nk < 1e-8) { /* empty component: leave it where it is */
                m->w[c] = 1e-12;
                continue;
            }
            double mx = sx / nk, my = sy / nk, xx = 0.0, xy = 0.0, yy = 0.0;
            for (int i = 0; i < n; i++) {
                double r = resp[(size_t)i * k + c], dx = x[i] - mx, dy = y[i] - my;
                xx += r * dx * dx;
                xy += r * dx * dy;
                yy += r * dy * dy;
            }
            m->w[c] = nk / n;
            m->mx[c] = mx;
            m->my[c] = my;
            m->sxx[c] = xx / nk + reg;
            m->sxy[c] = xy / nk;
            m->syy[c] = yy / nk + reg;
        }
    }
    if (f.iters > maxiter)
        f.iters = maxiter;
    free(resp);
    return f;
}

static int read_points(const char *path, double **px, double **py)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "gmm_em: cannot open %s\n", path);
        return -1;
    }
    int cap = 4096, n = 0, lineno = 0;
    double *x = malloc(sizeof(double) * cap), *y = malloc(sizeof(double) * cap);
    char buf[256];
    while (fgets(buf, sizeof buf, fp)) {
        lineno++;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        double a, b;
        char extra;
        if (sscanf(s, "%lf %lf %c", &a, &b, &extra) != 2 || !isfinite(a) || !isfinite(b)) {
            fprintf(stderr, "gmm_em: %s:%d: expected two numbers\n", path, lineno);
            free(x);
            free(y);
            fclose(fp);
            return -1;
        }
        if (n == cap) {
            cap *= 2;
            x = realloc(x, sizeof(double) * cap);
            y = realloc(y, sizeof(double) * cap);
        }
        x[n] = a;
        y[n] = b;
        n++;
    }
    fclose(fp);
    *px = x;
    *py = y;
    return n;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    long kmax, restarts, seed = 1, maxiter = 500;
    if (argc < 4 || argc > 6 || !parse_int(argv[2], 1, KLIMIT, &kmax) ||
        !parse_int(argv[3], 1, 1000, &restarts) ||
        (argc >= 5 && !parse_int(argv[4], 0, 2147483647L, &seed)) ||
        (argc == 6 && !parse_int(argv[5], 1, 100000, &maxiter))) {
        fprintf(stderr, "usage: %s POINTFILE KMAX RESTARTS [SEED [MAXITER]]  (KMAX <= %d)\n",
                argv[0], KLIMIT);
        return 2;
    }
    double *x, *y;
    int n = read_points(argv[1], &x, &y);
    if (n < 0)
        return 1;
    if (n < 10 * kmax) {
        fprintf(stderr, "gmm_em: %s: only %d points, too few for %ld components\n", argv[1], n,
                kmax);
        free(x);
        free(y);
        return 1;
    }

    double mx = 0.0, my = 0.0, cxx = 0.0, cxy = 0.0, cyy = 0.0;
    for (int i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    for (int i = 0; i < n; i++) {
        cxx += (x[i] - mx) * (x[i] - mx);
        cxy += (x[i] - mx) * (y[i] - my);
        cyy += (y[i] - my) * (y[i] - my);
    }
    cxx /= n;
    cxy /= n;
    cyy /= n;

    const double tol = 1e-6; /* relative change of the log-likelihood */
    int nfits = (int)(kmax * restarts);
    Fit *fits = malloc(sizeof(Fit) * nfits);

    /* every (k, restart) pair is an independent fit */
    #pragma omp parallel for
    for (int t = 0; t < nfits; t++) {
        int k = 1 + t / (int)restarts, r = t % (int)restarts;
        uint64_t s = (uint64_t)seed * 1000003ULL + (uint64_t)k * 7919ULL + (uint64_t)r;
        fits[t] = run_em(x, y, n, k, cxx, cxy, cyy, s, (int)maxiter, tol);
    }

    printf("points: %d   mean (%.4f, %.4f)   restarts per k: %ld\n", n, mx, my, restarts);
    printf("%3s %16s %16s %14s %10s %9s\n", "k", "best loglik", "BIC", "worst loglik",
           "iters", "converged");
    int bestk = 1;
    double bestbic = INFINITY;
    const Fit *chosen = NULL;
    long total_iters = 0;
    for (int k = 1; k <= kmax; k++) {
        const Fit *best = NULL;
        double worst = INFINITY;
        int conv = 0, iters = 0;
        for (int r = 0; r < restarts; r++) {
            const Fit *f = &fits[(k - 1) * restarts + r];
            total_iters += f->iters;
            iters += f->iters;
            conv += f->converged;
            if (!best || f->loglik > best->loglik)
                best = f;
            if (f->loglik < worst)
                worst = f->loglik;
        }
        int params = 6 * k - 1;
        double bic = -2.0 * best->loglik + params * log((double)n);
        printf("%3d %16.3f %16.3f %14.3f %10d %5d/%-3ld\n", k, best->loglik, bic, worst, iters,
               conv, restarts);
        if (bic < bestbic) {
            bestbic = bic;
            bestk = k;
            chosen = best;
        }
    }
    printf("EM iterations in all: %ld\n", total_iters);
    printf("chosen k = %d (BIC %.3f)\n", bestk, bestbic);

    /* components of the chosen model, heaviest first */
    int order[KLIMIT];
    for (int c = 0; c < bestk; c++)
        order[c] = c;
    for (int a = 1; a < bestk; a++)
        for (int b = a; b > 0 && chosen->m.w[order[b]] > chosen->m.w[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    printf("  %6s %20s %8s %8s %8s\n", "weight", "mean", "sd x", "sd y", "corr");
    for (int j = 0; j < bestk; j++) {
        int c = order[j];
        const Model *m = &chosen->m;
        double sx = sqrt(m->sxx[c]), sy = sqrt(m->syy[c]);
        printf("  %6.4f  (%7.3f, %7.3f) %8.3f %8.3f %8.3f\n", m->w[c], m->mx[c], m->my[c], sx, sy,
               m->sxy[c] / (sx * sy));
    }
    free(fits);
    free(x);
    free(y);
    return 0;
}
