/*
 * stock_backtest - grid search of moving-average crossover strategies.
 *
 * Usage: stock_backtest <prices.csv> <short_min> <short_max> <long_min> <long_max> <step> <cost_bps>
 *
 *   prices.csv   header "date,T1,T2,...", one row per trading day with a
 *                close price per ticker (empty before a ticker's listing)
 *   short/long   ranges of the fast and slow moving-average windows (days),
 *                both walked with the given step; only pairs short < long
 *   cost_bps     transaction cost per position change, in basis points
 *
 * Strategy: hold the stock while the short SMA is above the long SMA, stay
 * in cash otherwise; the position decided at a close earns the next day's
 * return.  For every ticker all parameter pairs are evaluated on the same
 * window (starting once the longest moving average is defined), together
 * with buy-and-hold over that window.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN (1 << 16)
#define NAME_LEN 16
#define TOP 10
#define MIN_EVAL_DAYS 60

typedef struct {
    char name[NAME_LEN];
    int first;        /* first day with a price */
    int eligible;     /* enough history for the whole grid */
    double bh_return; /* buy-and-hold total return over the evaluation window */
    double bh_sharpe;
} Ticker;

static int ntick, ndays;
static Ticker *tick;
static double *price;   /* price[t * ndays + day]; NAN where missing */

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "stock_backtest: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char *line = malloc(LINE_MAX_LEN);
    if (!fgets(line, LINE_MAX_LEN, f) || strncmp(line, "date,", 5) != 0) {
        fprintf(stderr, "stock_backtest: '%s': expected a header starting with \"date,\"\n", path);
        goto fail;
    }
    /* header: ticker names */
    line[strcspn(line, "\r\n")] = '\0';
    ntick = 0;
    for (char *p = line + 4; *p; p++) ntick += *p == ',';
    tick = calloc((size_t)ntick, sizeof(Ticker));
    {
        char *p = line + 5;
        for (int t = 0; t < ntick; t++) {
            size_t len = strcspn(p, ",");
            if (len == 0 || len >= NAME_LEN) {
                fprintf(stderr, "stock_backtest: '%s': bad ticker name in column %d\n", path, t + 2);
                goto fail;
            }
            memcpy(tick[t].name, p, len);
            tick[t].name[len] = '\0';
            p += len + (p[len] == ',');
        }
    }
    /* rows */
    int cap = 1024;
    double *rows = malloc(sizeof(double) * (size_t)cap * (size_t)ntick);
    ndays = 0;
    while (fgets(line, LINE_MAX_LEN, f)) {
        if (!strchr(line, '\n') && !feof(f)) {
            fprintf(stderr, "stock_backtest: '%s': line %d too long\n", path, ndays + 2);
            free(rows);
            goto fail;
        }
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') continue;
        if (ndays == cap) {
            cap *= 2;
            rows = realloc(rows, sizeof(double) * (size_t)cap * (size_t)ntick);
            if (!rows) { fprintf(stderr, "stock_backtest: out of memory\n"); exit(1); }
        }
        char *p = strchr(line, ',');
        if (!p) {
            fprintf(stderr, "stock_backtest: '%s': line %d has no price columns\n", path, ndays + 2);
            free(rows);
            goto fail;
        }
        p++;
        for (int t = 0; t < ntick; t++) {
            double v = NAN;
            if (*p && *p != ',') {
                char *end;
                v = strtod(p, &end);
                if (end == p || (*end && *end != ',') || !(v > 0.0)) {
                    fprintf(stderr, "stock_backtest: '%s': line %d, column %d: bad price\n",
                            path, ndays + 2, t + 2);
                    free(rows);
                    goto fail;
                }
                p = end;
            }
            if (t < ntick - 1) {
                if (*p != ',') {
                    fprintf(stderr, "stock_backtest: '%s': line %d has %d of %d price columns\n",
                            path, ndays + 2, t + 1, ntick);
                    free(rows);
                    goto fail;
                }
                p++;
            } else if (*p) {
                fprintf(stderr, "stock_backtest: '%s': line %d has extra columns\n", path, ndays + 2);
                free(rows);
                goto fail;
            }
            rows[(size_t)ndays * ntick + t] = v;
        }
        ndays++;
    }
    fclose(f);
    free(line);
    if (ndays < 2) {
        fprintf(stderr, "stock_backtest: '%s': not enough rows\n", path);
        free(rows);
        return -1;
    }
    /* transpose to one contiguous history per ticker, forward-fill gaps */
    price = malloc(sizeof(double) * (size_t)ntick * (size_t)ndays);
    for (int t = 0; t < ntick; t++) {
        double *h = price + (size_t)t * ndays;
        int first = -1;
        for (int d = 0; d < ndays; d++) {
            double v = rows[(size_t)d * ntick + t];
            if (isnan(v) && first >= 0) v = h[d - 1];
            if (!isnan(v) && first < 0) first = d;
            h[d] = v;
        }
        tick[t].first = first < 0 ? ndays : first;
    }
    free(rows);
    return 0;
fail:
    fclose(f);
    free(line);
    return -1;
}

/* annualised Sharpe ratio (zero risk-free rate) of n daily returns */
static double sharpe(double sum, double sumsq, int n)
{
    double mean = sum / n;
    double var = sumsq / n - mean * mean;
    if (var <= 1e-18) return 0.0;
    return mean / sqrt(var) * sqrt(252.0);
}

static void usage(void)
{
    fprintf(stderr, "usage: stock_backtest <prices.csv> <short_min> <short_max> "
                    "<long_min> <long_max> <step> <cost_bps>\n");
    exit(2);
}

static long arg_long(const char *s, long lo, long hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || end == s || v < lo || v > hi) usage();
    return v;
}

static double *g_key;
static int cmp_desc(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    if (g_key[a] > g_key[b]) return -1;
    if (g_key[a] < g_key[b]) return 1;
    return a - b;
}

int main(int argc, char **argv)
{
    if (argc != 8) usage();
    int smin = (int)arg_long(argv[2], 1, 100000), smax = (int)arg_long(argv[3], 1, 100000);
    int lmin = (int)arg_long(argv[4], 2, 100000), lmax = (int)arg_long(argv[5], 2, 100000);
    int step = (int)arg_long(argv[6], 1, 100000);
    char *end;
    double cost_bps = strtod(argv[7], &end);
    if (*end || !(cost_bps >= 0.0 && cost_bps < 10000.0)) usage();
    if (smin > smax || lmin > lmax) usage();

    /* parameter grid */
    int npairs = 0;
    for (int s = smin; s <= smax; s += step)
        for (int l = lmin; l <= lmax; l += step)
            npairs += s < l;
    if (npairs == 0) {
        fprintf(stderr, "stock_backtest: the ranges give no pair with short < long\n");
        return 2;
    }
    int *ps = malloc(sizeof(int) * (size_t)npairs), *pl = malloc(sizeof(int) * (size_t)npairs);
    int longest = 0;
    npairs = 0;
    for (int s = smin; s <= smax; s += step)
        for (int l = lmin; l <= lmax; l += step)
            if (s < l) {
                ps[npairs] = s;
                pl[npairs] = l;
                if (l > longest) longest = l;
                npairs++;
            }

    if (load(argv[1]) != 0) return 1;

    const double cost = cost_bps / 10000.0;
    double *shp = calloc((size_t)ntick * (size_t)npairs, sizeof(double));
    double *ret = calloc((size_t)ntick * (size_t)npairs, sizeof(double));

    #pragma omp parallel
    {
        double *cum = malloc(sizeof(double) * (size_t)(ndays + 1));
        double *dret = malloc(sizeof(double) * (size_t)ndays);
        #pragma omp for
        for (int t = 0; t < ntick; t++) {
            Ticker *tk = &tick[t];
            const double *h = price + (size_t)t * ndays;
            int first = tk->first;
            int start = first + longest - 1;      /* first day all averages exist */
            tk->eligible = ndays - 1 - start >= MIN_EVAL_DAYS;
            if (!tk->eligible) continue;
            cum[first] = 0.0;
            for (int d = first; d < ndays; d++) cum[d + 1] = cum[d] + h[d];
            for (int d = first; d + 1 < ndays; d++) dret[d] = h[d + 1] / h[d] - 1.0;
            int n = ndays - 1 - start;

            double bs = 0.0, bq = 0.0;
            for (int d = start; d + 1 < ndays; d++) {
                bs += dret[d];
                bq += dret[d] * dret[d];
            }
            tk->bh_sharpe = sharpe(bs, bq, n);
            tk->bh_return = h[ndays - 1] / h[start] - 1.0;

            for (int k = 0; k < npairs; k++) {
                int s = ps[k], l = pl[k];
                double sum = 0.0, sumsq = 0.0, growth = 1.0;
                int pos = 0;
                for (int d = start; d + 1 < ndays; d++) {
                    double fast = (cum[d + 1] - cum[d + 1 - s]) / s;
                    double slow = (cum[d + 1] - cum[d + 1 - l]) / l;
                    int want = fast > slow;
                    double r = want ? dret[d] : 0.0;
                    if (want != pos) r -= cost;
                    pos = want;
                    sum += r;
                    sumsq += r * r;
                    growth *= 1.0 + r;
                }
                shp[(size_t)t * npairs + k] = sharpe(sum, sumsq, n);
                ret[(size_t)t * npairs + k] = growth - 1.0;
            }
        }
        free(cum);
        free(dret);
    }

    int nelig = 0;
    for (int t = 0; t < ntick; t++) nelig += tick[t].eligible;
    printf("tickers: %d (%d with enough history), days: %d, parameter pairs: %d, cost %.1f bps\n",
           ntick, nelig, ndays, npairs, cost_bps);
    if (nelig == 0) {
        printf("no ticker has enough history for the longest window (%d days)\n", longest);
        return 0;
    }

    /* mean Sharpe of each pair over all eligible tickers */
    double *mean_shp = malloc(sizeof(double) * (size_t)npairs);
    int *wins = malloc(sizeof(int) * (size_t)npairs);
    #pragma omp parallel for
    for (int k = 0; k < npairs; k++) {
        double acc = 0.0;
        int w = 0;
        for (int t = 0; t < ntick; t++) {
            if (!tick[t].eligible) continue;
            acc += shp[(size_t)t * npairs + k];
            w += ret[(size_t)t * npairs + k] > tick[t].bh_return;
        }
        mean_shp[k] = acc / nelig;
        wins[k] = w;
    }

    int best = 0;
    for (int k = 1; k < npairs; k++)
        if (mean_shp[k] > mean_shp[best]) best = k;
    double bh_mean = 0.0;
    for (int t = 0; t < ntick; t++)
        if (tick[t].eligible) bh_mean += tick[t].bh_sharpe;
    bh_mean /= nelig;

    printf("best pair overall: short %d / long %d, mean Sharpe %.3f (buy-and-hold %.3f)\n",
           ps[best], pl[best], mean_shp[best], bh_mean);
    printf("beats buy-and-hold (total return) with the best pair: %d of %d tickers (%.1f%%)\n",
           wins[best], nelig, 100.0 * wins[best] / nelig);

    /* per-ticker best pair (in-sample) */
    int tuned_wins = 0;
    for (int t = 0; t < ntick; t++) {
        if (!tick[t].eligible) continue;
        int b = 0;
        for (int k = 1; k < npairs; k++)
            if (shp[(size_t)t * npairs + k] > shp[(size_t)t * npairs + b]) b = k;
        tuned_wins += ret[(size_t)t * npairs + b] > tick[t].bh_return;
    }
    printf("beats buy-and-hold with each ticker's own best pair: %d of %d tickers (%.1f%%)\n",
           tuned_wins, nelig, 100.0 * tuned_wins / nelig);

    /* worst and median pair for context */
    int worst = 0;
    for (int k = 1; k < npairs; k++)
        if (mean_shp[k] < mean_shp[worst]) worst = k;
    printf("worst pair: short %d / long %d, mean Sharpe %.3f\n", ps[worst], pl[worst], mean_shp[worst]);

    /* top tickers by Sharpe under the best pair */
    double *key = malloc(sizeof(double) * (size_t)ntick);
    int *order = malloc(sizeof(int) * (size_t)ntick);
    int m = 0;
    for (int t = 0; t < ntick; t++) {
        key[t] = tick[t].eligible ? shp[(size_t)t * npairs + best] : -INFINITY;
        if (tick[t].eligible) order[m++] = t;
    }
    g_key = key;
    qsort(order, (size_t)m, sizeof(int), cmp_desc);
    printf("top %d tickers by Sharpe (short %d / long %d):\n", TOP, ps[best], pl[best]);
    printf("  %-6s %8s %10s %12s %10s\n", "ticker", "Sharpe", "return", "B&H Sharpe", "B&H ret");
    for (int i = 0; i < TOP && i < m; i++) {
        int t = order[i];
        printf("  %-6s %8.3f %9.1f%% %12.3f %9.1f%%\n", tick[t].name,
               shp[(size_t)t * npairs + best], 100.0 * ret[(size_t)t * npairs + best],
               tick[t].bh_sharpe, 100.0 * tick[t].bh_return);
    }

    free(key);
    free(order);
    free(mean_shp);
    free(wins);
    free(shp);
    free(ret);
    free(price);
    free(tick);
    free(ps);
    free(pl);
    return 0;
}
