/*
 * binomial_tree.c - price vanilla options on a Cox-Ross-Rubinstein tree.
 *
 * Usage: binomial_tree <steps> <contracts file>
 *
 * Each non-comment line of the contracts file describes one option:
 *
 *     <spot> <strike> <rate> <volatility> <maturity years> call|put american|european
 *
 * rate and volatility are annual, continuously compounded decimals
 * (0.05 = 5%).  For every contract the price on an N-step tree is printed,
 * together with the Black-Scholes value for European contracts and, for
 * American ones, whether early exercise is optimal anywhere in the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>

typedef struct {
    double spot, strike, rate, vol, maturity;
    int is_put, is_american;
    int line;
} Contract;

static const char *prog = "binomial_tree";

static void usage(void)
{
    fprintf(stderr, "usage: %s <steps 10..100000> <contracts file>\n", prog);
    exit(2);
}

static Contract *read_contracts(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    int cap = 64, n = 0, lineno = 0;
    Contract *c = malloc(cap * sizeof *c);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        Contract k;
        char kind[16], style[16], extra[2];
        int got = sscanf(p, "%lf %lf %lf %lf %lf %15s %15s %1s", &k.spot, &k.strike,
                         &k.rate, &k.vol, &k.maturity, kind, style, extra);
        int ok = got == 7 && k.spot > 0 && k.strike > 0 && k.vol > 0 && k.vol < 5 &&
                 k.maturity > 0 && k.maturity <= 50 && fabs(k.rate) < 1 &&
                 isfinite(k.spot) && isfinite(k.strike);
        if (ok) {
            if (strcmp(kind, "call") == 0) k.is_put = 0;
            else if (strcmp(kind, "put") == 0) k.is_put = 1;
            else ok = 0;
            if (strcmp(style, "american") == 0) k.is_american = 1;
            else if (strcmp(style, "european") == 0) k.is_american = 0;
            else ok = 0;
        }
        if (!ok) {
            fprintf(stderr, "%s: %s:%d: malformed contract\n", prog, path, lineno);
            exit(1);
        }
        k.line = lineno;
        if (n == cap) {
            cap *= 2;
            c = realloc(c, cap * sizeof *c);
            if (!c) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(1);
            }
        }
        c[n++] = k;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "%s: %s: no contracts\n", prog, path);
        exit(1);
    }
    *count = n;
    return c;
}

static double norm_cdf(double x)
{
    return 0.5 * erfc(-x / sqrt(2.0));
}

static double black_scholes(const Contract *c)
{
    double sq = c->vol * sqrt(c->maturity);
    double d1 = (log(c->spot / c->strike) + (c->rate + 0.5 * c->vol * c->vol) * c->maturity) / sq;
    double d2 = d1 - sq;
    double df = exp(-c->rate * c->maturity);
    if (c->is_put)
        return c->strike * df * norm_cdf(-d2) - c->spot * norm_cdf(-d1);
    return c->spot * norm_cdf(d1) - c->strike * df * norm_cdf(d2);
}

/*
 * Price one contract.  level[j + steps] holds the stock price S*u^j for
 * j = -steps..steps; node i of time step k sits at j = 2i - k.
 * Returns the price, and the number of nodes where exercising beats holding
 * in *exercise_nodes.  Returns NAN if the tree has no valid risk-neutral
 * probability for these parameters.
 */
static double price_tree(const Contract *c, int steps, double *level,
                         double *v, double *w, long *exercise_nodes)
{
    const double dt = c->maturity / steps;
    const double up = c->vol * sqrt(dt);
    const double u = exp(up), d = exp(-up);
    const double growth = exp(c->rate * dt);
    const double p = (growth - d) / (u - d);
    const double disc = 1.0 / growth;
    const double K = c->strike;
    const double tol = 1e-9 * K;   /* ignore rounding-level exercise gains */
    const int put = c->is_put, american = c->is_american;

    *exercise_nodes = 0;
    if (!(p > 0.0 && p < 1.0))
        return NAN;
    const double pu = disc * p, pd = disc * (1.0 - p);

    for (int j = -steps; j <= steps; j++)
        level[j + steps] = c->spot * exp(j * up);

    #pragma omp parallel for
    for (int i = 0; i <= steps; i++) {
        double s = level[2 * i];
        double pay = put ? K - s : s - K;
        v[i] = pay > 0.0 ? pay : 0.0;
    }

    long ex_total = 0;
    for (int k = steps - 1; k >= 0; k--) {
        long ex = 0;
        const double *lv = level + steps - k;    /* lv[2i] = S u^(2i-k) */
        #pragma omp parallel for reduction(+:ex)
        for (int i = 0; i <= k; i++) {
            double hold = pu * v[i + 1] + pd * v[i];
            if (american) {
                double s = lv[2 * i];
                double pay = put ? K - s : s - K;
                if (pay > hold) {
                    if (pay - hold > tol)
                        ex++;
                    hold = pay;
                }
            }
            w[i] = hold;
        }
        ex_total += ex;
        double *t = v;
        v = w;
        w = t;
    }
    *exercise_nodes = ex_total;
    return v[0];
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage();
    char *end;
    errno = 0;
    long steps = strtol(argv[1], &end, 10);
    if (errno || end == argv[1] || *end || steps < 10 || steps > 100000)
        usage();

    int n;
    Contract *c = read_contracts(argv[2], &n);

    double *level = malloc((2 * (size_t)steps + 1) * sizeof *level);
    double *v = malloc(((size_t)steps + 1) * sizeof *v);
    double *w = malloc(((size_t)steps + 1) * sizeof *w);
    if (!level || !v || !w) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }

    printf("%d contracts, %ld-step CRR tree\n", n, steps);
    printf("  #  type  style          spot    strike   rate    vol      T        price  notes\n");
    int priced = 0, american = 0, early = 0, failed = 0;
    double book = 0.0, max_bs_err = 0.0;
    for (int i = 0; i < n; i++) {
        long ex_nodes;
        double price = price_tree(&c[i], (int)steps, level, v, w, &ex_nodes);
        printf("%3d  %-4s  %-8s  %9.3f %9.3f  %5.3f  %5.3f  %5.2f  ", i + 1,
               c[i].is_put ? "put" : "call", c[i].is_american ? "american" : "european",
               c[i].spot, c[i].strike, c[i].rate, c[i].vol, c[i].maturity);
        if (isnan(price)) {
            printf("         n/a  tree unstable (rate too high for step size)\n");
            failed++;
            continue;
        }
        priced++;
        book += price;
        printf("%11.5f  ", price);
        if (c[i].is_american) {
            american++;
            if (ex_nodes > 0) {
                early++;
                printf("early exercise at %ld nodes\n", ex_nodes);
            } else {
                printf("no early exercise\n");
            }
        } else {
            double bs = black_scholes(&c[i]);
            double err = fabs(price - bs);
            if (err > max_bs_err)
                max_bs_err = err;
            printf("black-scholes %.5f\n", bs);
        }
    }
    printf("\npriced %d of %d contracts (%d unstable), book value %.4f\n",
           priced, n, failed, book);
    printf("american contracts with early exercise: %d of %d\n", early, american);
    printf("largest tree vs black-scholes gap (european): %.6f\n", max_bs_err);

    free(level);
    free(v);
    free(w);
    free(c);
    return 0;
}
