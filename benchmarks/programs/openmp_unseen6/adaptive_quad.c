/*
 * adaptive_quad - adaptive Simpson integration of a list of parametric
 * integrands.
 *
 * usage: adaptive_quad CASEFILE [MAXDEPTH]
 *
 * CASEFILE holds one integral per line, "kind a b c lo hi tol", where kind is
 * one of osc, peak, sqrt, log, lorentz (see eval_integrand).  Lines starting
 * with '#' and blank lines are ignored.  Every integral is computed to its own
 * absolute tolerance with recursive Simpson bisection (Richardson corrected),
 * limited to MAXDEPTH levels of bisection (default 48).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_OSC, K_PEAK, K_SQRT, K_LOG, K_LORENTZ, NKINDS };
static const char *kind_names[NKINDS] = { "osc", "peak", "sqrt", "log", "lorentz" };

typedef struct {
    int kind;
    int line;
    double a, b, c, lo, hi, tol;
} Integral;

typedef struct {
    double value;
    long evals;
    int depth_hits;
    int max_depth_used;
} Result;

typedef struct {
    const Integral *in;
    long evals;
    int depth_hits;
    int max_depth_used;
    int max_depth;
} Work;

static double eval_integrand(Work *w, double x)
{
    const Integral *p = w->in;
    w->evals++;
    switch (p->kind) {
    case K_OSC:
        return sin(p->a * x + p->b) / (x + p->c);
    case K_PEAK: {
        double d = x - p->b;
        return exp(-p->a * d * d) + p->c;
    }
    case K_SQRT:
        return sqrt(fabs(x - p->b)) * cos(p->a * x) + p->c;
    case K_LOG:
        return log(fabs(x - p->b) + p->c) * (1.0 + p->a * x);
    default: {
        double d = x - p->b;
        return p->c / (d * d + p->a * p->a);
    }
    }
}

static double simpson_step(Work *w, double a, double b, double fa, double fm,
                           double fb, double whole, double eps, int depth)
{
    double m = 0.5 * (a + b);
    double lm = 0.5 * (a + m), rm = 0.5 * (m + b);
    double flm = eval_integrand(w, lm);
    double frm = eval_integrand(w, rm);
    double left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
    double right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
    double delta = left + right - whole;

    if (depth > w->max_depth_used)
        w->max_depth_used = depth;
    /* converged, or the difference is down at the rounding level of the
       panel sum, where further bisection cannot help */
    if (fabs(delta) <= 15.0 * eps || fabs(delta) <= 1e-13 * (fabs(left) + fabs(right)))
        return left + right + delta / 15.0;
    if (depth >= w->max_depth) {
        w->depth_hits++;
        return left + right + delta / 15.0;
    }
    return simpson_step(w, a, m, fa, flm, fm, left, 0.5 * eps, depth + 1) +
           simpson_step(w, m, b, fm, frm, fb, right, 0.5 * eps, depth + 1);
}

static Result integrate(const Integral *in, int max_depth)
{
    Work w = { in, 0, 0, 0, max_depth };
    /* start from a fixed split into 8 panels so that narrow features are
       not missed entirely by the first Simpson estimate */
    const int panels = 8;
    double h = (in->hi - in->lo) / panels;
    double total = 0.0;
    for (int i = 0; i < panels; i++) {
        double a = in->lo + i * h;
        double b = (i == panels - 1) ? in->hi : a + h;
        double m = 0.5 * (a + b);
        double fa = eval_integrand(&w, a);
        double fm = eval_integrand(&w, m);
        double fb = eval_integrand(&w, b);
        double whole = (b - a) / 6.0 * (fa + 4.0 * fm + fb);
        total += simpson_step(&w, a, b, fa, fm, fb, whole, in->tol / panels, 1);
    }
    Result r = { total, w.evals, w.depth_hits, w.max_depth_used };
    return r;
}

static int parse_kind(const char *s)
{
    for (int k = 0; k < NKINDS; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

static Integral *read_cases(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "adaptive_quad: cannot open %s\n", path);
        return NULL;
    }
    int cap = 1024, n = 0, lineno = 0;
    Integral *v = malloc(sizeof *v * cap);
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        char kname[32];
        Integral it;
        if (sscanf(s, "%31s %lf %lf %lf %lf %lf %lf", kname, &it.a, &it.b, &it.c,
                   &it.lo, &it.hi, &it.tol) != 7 ||
            (it.kind = parse_kind(kname)) < 0 || !(it.hi > it.lo) || !(it.tol > 0.0)) {
            fprintf(stderr, "adaptive_quad: %s:%d: malformed integral\n", path, lineno);
            free(v);
            fclose(f);
            return NULL;
        }
        it.line = lineno;
        if (n == cap) {
            cap *= 2;
            v = realloc(v, sizeof *v * cap);
        }
        v[n++] = it;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "adaptive_quad: %s: no integrals\n", path);
        free(v);
        return NULL;
    }
    *count = n;
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s CASEFILE [MAXDEPTH]\n", argv[0]);
        return 2;
    }
    int max_depth = 48;
    if (argc == 3) {
        char *end;
        long d = strtol(argv[2], &end, 10);
        if (*end != '\0' || d < 4 || d > 200) {
            fprintf(stderr, "usage: %s CASEFILE [MAXDEPTH]  (MAXDEPTH in 4..200)\n", argv[0]);
            return 2;
        }
        max_depth = (int)d;
    }

    int n;
    Integral *cases = read_cases(argv[1], &n);
    if (!cases)
        return 1;
    Result *res = malloc(sizeof *res * n);

    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        res[i] = integrate(&cases[i], max_depth);

    long total_evals = 0;
    int depth_hits = 0, deepest = 0;
    long kind_count[NKINDS] = { 0 }, kind_evals[NKINDS] = { 0 }, kind_hits[NKINDS] = { 0 };
    double kind_sum[NKINDS] = { 0 };
    for (int i = 0; i < n; i++) {
        total_evals += res[i].evals;
        depth_hits += res[i].depth_hits > 0;
        if (res[i].max_depth_used > deepest)
            deepest = res[i].max_depth_used;
        kind_count[cases[i].kind]++;
        kind_evals[cases[i].kind] += res[i].evals;
        kind_hits[cases[i].kind] += res[i].depth_hits > 0;
        kind_sum[cases[i].kind] += res[i].value;
    }

    /* five integrals that needed the most evaluations (ties: earlier line) */
    int top[5], ntop = 0;
    for (int i = 0; i < n; i++) {
        int pos = ntop;
        while (pos > 0 && res[i].evals > res[top[pos - 1]].evals)
            pos--;
        if (pos >= 5)
            continue;
        if (ntop < 5)
            ntop++;
        for (int j = ntop - 1; j > pos; j--)
            top[j] = top[j - 1];
        top[pos] = i;
    }

    printf("integrals:             %d\n", n);
    printf("function evaluations:  %ld\n", total_evals);
    printf("mean evals/integral:   %.1f\n", (double)total_evals / n);
    printf("deepest bisection:     %d (limit %d)\n", deepest, max_depth);
    printf("integrals at limit:    %d\n", depth_hits);
    printf("hardest integrals:\n");
    printf("  %5s %-8s %11s %11s %11s %9s %9s %7s %10s %18s\n", "line", "kind", "a", "b",
           "c", "lo", "hi", "tol", "evals", "value");
    for (int t = 0; t < ntop; t++) {
        const Integral *c = &cases[top[t]];
        printf("  %5d %-8s %11.5g %11.5g %11.5g %9.4f %9.4f %7.0e %10ld %18.10e\n", c->line,
               kind_names[c->kind], c->a, c->b, c->c, c->lo, c->hi, c->tol, res[top[t]].evals,
               res[top[t]].value);
    }
    printf("by kind:\n");
    printf("  %-8s %6s %12s %11s %8s %20s\n", "kind", "count", "evals", "evals/int", "at limit",
           "sum of integrals");
    for (int k = 0; k < NKINDS; k++) {
        if (kind_count[k] == 0)
            continue;
        printf("  %-8s %6ld %12ld %11.1f %8ld %20.10e\n", kind_names[k], kind_count[k],
               kind_evals[k], (double)kind_evals[k] / kind_count[k], kind_hits[k], kind_sum[k]);
    }

    free(res);
    free(cases);
    return 0;
}
