/*
 * var_risk: historical value-at-risk and expected shortfall of portfolios.
 *
 * usage: var_risk RETURNS_CSV PORTFOLIOS_FILE BOOTSTRAP_SAMPLES
 *
 * RETURNS_CSV: header "date,TICKER,..." then one row per day with the daily
 * returns of every asset in percent.  PORTFOLIOS_FILE: one portfolio per line,
 * "NAME N TICKER:VALUE ..." with the position values in dollars ('#' lines
 * are comments).  For each portfolio the daily P&L series is replayed from
 * history, sorted, and the 99% VaR and expected shortfall are read off.  The
 * uncertainty of the VaR estimate is measured with BOOTSTRAP_SAMPLES
 * resamples of the P&L series (a random generator per portfolio, seeded from
 * its position in the file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <errno.h>

#define TAIL_PCT 1          /* 99% VaR: the worst 1% of days */

typedef struct { char name[16]; int idx; } Ticker;

typedef struct {
    char name[32];
    int nh;
    int *asset;
    double *value;
    double gross;
    /* results */
    double var, es, mean, sd, worst;
    double bs_mean, bs_lo, bs_hi;
    double var_pct;
} Portfolio;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int cmp_ticker(const void *x, const void *y)
{
    return strcmp(((const Ticker *)x)->name, ((const Ticker *)y)->name);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* k-th smallest element (0-based) of a[0..n-1]; reorders a. */
static double select_kth(double *a, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (hi > lo) {
        int mid = lo + (hi - lo) / 2;
        double x = a[lo], y = a[mid], z = a[hi], pivot;
        if (x < y) pivot = y < z ? y : (x < z ? z : x);
        else pivot = x < z ? x : (y < z ? z : y);
        int i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                double t = a[i]; a[i] = a[j]; a[j] = t;
                i++; j--;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

static char *read_file(const char *path, size_t *len_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "var_risk: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, len = 0, r;
    char *buf = malloc(cap + 1);
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) free(buf);
            buf = nb;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) { fprintf(stderr, "var_risk: out of memory\n"); return NULL; }
    if (failed) {
        fprintf(stderr, "var_risk: error reading %s\n", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}

/* returns[asset * ndays + day], as fractions */
static double *read_returns(const char *path, int *nassets, int *ndays, Ticker **tick_out)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf) return NULL;
    char *line = buf, *nl = strchr(line, '\n');
    if (!nl || strncmp(line, "date,", 5) != 0) {
        fprintf(stderr, "var_risk: %s: missing header line \"date,...\"\n", path);
        free(buf);
        return NULL;
    }
    *nl = '\0';
    int na = 0, tcap = 64;
    Ticker *tk = malloc(sizeof(Ticker) * tcap);
    for (char *p = line + 5; p;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        size_t l = strlen(p);
        if (l > 0 && p[l - 1] == '\r') p[--l] = '\0';
        if (l == 0 || l >= sizeof tk[0].name) {
            fprintf(stderr, "var_risk: %s: bad ticker name in header\n", path);
            free(buf); free(tk);
            return NULL;
        }
        if (na == tcap) { tcap *= 2; tk = realloc(tk, sizeof(Ticker) * tcap); }
        memcpy(tk[na].name, p, l + 1);
        tk[na].idx = na;
        na++;
        p = c ? c + 1 : NULL;
    }
    /* count data rows */
    int nd = 0;
    for (char *p = nl + 1; *p; p++)
        if (*p == '\n' || p[1] == '\0') nd++;
    double *ret = malloc(sizeof(double) * (size_t)na * (nd > 0 ? nd : 1));
    int day = 0, lineno = 1;
    char *p = nl + 1;
    while (*p) {
        lineno++;
        char *e = strchr(p, '\n');
        if (e) *e = '\0';
        if (*p != '\0' && *p != '\r') {
            char *q = strchr(p, ',');
            if (!q) goto bad;
            q++;
            for (int a = 0; a < na; a++) {
                char *end;
                double v = strtod(q, &end);
                if (end == q || !isfinite(v) || v <= -100.0) goto bad;
                if (a + 1 < na ? *end != ',' : (*end != '\0' && *end != '\r')) goto bad;
                ret[(size_t)a * nd + day] = v / 100.0;
                q = end + 1;
            }
            day++;
        }
        if (!e) break;
        p = e + 1;
    }
    if (day < 100) {
        fprintf(stderr, "var_risk: %s: need at least 100 days of returns, found %d\n", path, day);
        free(buf); free(tk); free(ret);
        return NULL;
    }
    if (day != nd) {
        /* blank lines: compact the columns */
        for (int a = 1; a < na; a++)
            memmove(ret + (size_t)a * day, ret + (size_t)a * nd, sizeof(double) * day);
    }
    free(buf);
    qsort(tk, na, sizeof(Ticker), cmp_ticker);
    for (int a = 1; a < na; a++)
        if (strcmp(tk[a].name, tk[a - 1].name) == 0) {
            fprintf(stderr, "var_risk: %s: duplicate ticker %s\n", path, tk[a].name);
            free(tk); free(ret);
            return NULL;
        }
    *nassets = na;
    *ndays = day;
    *tick_out = tk;
    return ret;
bad:
    fprintf(stderr, "var_risk: %s:%d: malformed row (expected %d numbers)\n", path, lineno, na);
    free(buf); free(tk); free(ret);
    return NULL;
}

static Portfolio *read_portfolios(const char *path, const Ticker *tk, int na, int *np_out)
{
    size_t len;
    char *buf = read_file(path, &len);
    if (!buf) return NULL;
    int np = 0, cap = 256, lineno = 0;
    Portfolio *pf = malloc(sizeof(Portfolio) * cap);
    char *p = buf;
    while (*p) {
        lineno++;
        char *e = strchr(p, '\n');
        if (e) *e = '\0';
        while (*p == ' ' || *p == '\t') p++;
        if (*p != '#' && *p != '\0' && *p != '\r') {
            if (np == cap) { cap *= 2; pf = realloc(pf, sizeof(Portfolio) * cap); }
            Portfolio *P = &pf[np];
            memset(P, 0, sizeof *P);
            int used;
            if (sscanf(p, "%31s %d%n", P->name, &P->nh, &used) != 2 || P->nh < 1 || P->nh > na)
                goto bad;
            np++;
            P->asset = malloc(sizeof(int) * P->nh);
            P->value = malloc(sizeof(double) * P->nh);
            char *q = p + used;
            for (int h = 0; h < P->nh; h++) {
                while (*q == ' ' || *q == '\t') q++;
                char *colon = strchr(q, ':');
                if (!colon || colon - q >= (long)sizeof tk[0].name || colon == q) goto bad;
                Ticker key;
                memcpy(key.name, q, colon - q);
                key.name[colon - q] = '\0';
                Ticker *hit = bsearch(&key, tk, na, sizeof(Ticker), cmp_ticker);
                if (!hit) {
                    fprintf(stderr, "var_risk: %s:%d: unknown ticker %s\n", path, lineno, key.name);
                    goto fail;
                }
                char *end;
                double v = strtod(colon + 1, &end);
                if (end == colon + 1 || !isfinite(v)) goto bad;
                P->asset[h] = hit->idx;
                P->value[h] = v;
                P->gross += fabs(v);
                q = end;
            }
            while (*q == ' ' || *q == '\t' || *q == '\r') q++;
            if (*q != '\0' || P->gross <= 0.0) goto bad;
        }
        if (!e) break;
        p = e + 1;
    }
    if (np == 0) {
        fprintf(stderr, "var_risk: %s: no portfolios\n", path);
        goto fail;
    }
    free(buf);
    *np_out = np;
    return pf;
bad:
    fprintf(stderr, "var_risk: %s:%d: malformed portfolio line\n", path, lineno);
fail:
    for (int i = 0; i < np; i++) { free(pf[i].asset); free(pf[i].value); }
    free(pf);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s RETURNS_CSV PORTFOLIOS_FILE BOOTSTRAP_SAMPLES\n", argv[0]);
        return 2;
    }
    char *end;
    long B = strtol(argv[3], &end, 10);
    if (*argv[3] == '\0' || *end != '\0' || B < 1 || B > 1000000) {
        fprintf(stderr, "usage: %s RETURNS_CSV PORTFOLIOS_FILE BOOTSTRAP_SAMPLES   (>= 1)\n", argv[0]);
        return 2;
    }
    int na, nd, np;
    Ticker *tk;
    double *ret = read_returns(argv[1], &na, &nd, &tk);
    if (!ret) return 1;
    Portfolio *pf = read_portfolios(argv[2], tk, na, &np);
    if (!pf) { free(ret); free(tk); return 1; }

    int k = (nd * TAIL_PCT + 99) / 100;   /* number of tail days */
    double *pnl_all = malloc(sizeof(double) * (size_t)np * nd);

    /* P&L replay, sorted tail statistics */
    #pragma omp parallel for
    for (int i = 0; i < np; i++) {
        Portfolio *P = &pf[i];
        double *pnl = pnl_all + (size_t)i * nd;
        for (int d = 0; d < nd; d++) pnl[d] = 0.0;
        for (int h = 0; h < P->nh; h++) {
            const double *r = ret + (size_t)P->asset[h] * nd;
            double v = P->value[h];
            for (int d = 0; d < nd; d++) pnl[d] += v * r[d];
        }
        double s = 0.0, s2 = 0.0;
        for (int d = 0; d < nd; d++) { s += pnl[d]; s2 += pnl[d] * pnl[d]; }
        P->mean = s / nd;
        P->sd = sqrt(fmax(s2 / nd - P->mean * P->mean, 0.0));
        double *sorted = malloc(sizeof(double) * nd);
        memcpy(sorted, pnl, sizeof(double) * nd);
        qsort(sorted, nd, sizeof(double), cmp_double);
        double tail = 0.0;
        for (int j = 0; j < k; j++) tail += sorted[j];
        P->var = -sorted[k - 1];
        P->es = -tail / k;
        P->worst = -sorted[0];
        P->var_pct = 100.0 * P->var / P->gross;
        free(sorted);
    }

    /* bootstrap of the VaR estimate */
    #pragma omp parallel for
    for (int i = 0; i < np; i++) {
        Portfolio *P = &pf[i];
        const double *pnl = pnl_all + (size_t)i * nd;
        double *sample = malloc(sizeof(double) * nd);
        double *vars = malloc(sizeof(double) * B);
        uint64_t rng = 0xC0FFEE1234ULL + 0x9E3779B97F4A7C15ULL * (uint64_t)(i + 1);
        for (long b = 0; b < B; b++) {
            for (int d = 0; d < nd; d++)
                sample[d] = pnl[rng_next(&rng) % (uint64_t)nd];
            vars[b] = -select_kth(sample, nd, k - 1);
        }
        qsort(vars, B, sizeof(double), cmp_double);
        double s = 0.0;
        for (long b = 0; b < B; b++) s += vars[b];
        P->bs_mean = s / B;
        P->bs_lo = vars[(long)(0.05 * (B - 1) + 0.5)];
        P->bs_hi = vars[(long)(0.95 * (B - 1) + 0.5)];
        free(sample);
        free(vars);
    }

    printf("assets: %d   days: %d   portfolios: %d   confidence: %d%% (%d tail days)   bootstrap: %ld\n",
           na, nd, np, 100 - TAIL_PCT, k, B);

    /* riskiest portfolios by VaR relative to gross exposure */
    int *order = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++) order[i] = i;
    for (int i = 1; i < np; i++) {    /* insertion sort: stable, deterministic */
        int x = order[i], j = i - 1;
        while (j >= 0 && pf[order[j]].var_pct < pf[x].var_pct) { order[j + 1] = order[j]; j--; }
        order[j + 1] = x;
    }
    printf("riskiest portfolios (1-day %d%% VaR as %% of gross exposure):\n", 100 - TAIL_PCT);
    printf("  name      hold      gross $      VaR $   VaR %%    ES %%   worst %%   bootstrap 90%% VaR range\n");
    for (int r = 0; r < 10 && r < np; r++) {
        Portfolio *P = &pf[order[r]];
        printf("  %-8s %5d %12.0f %10.0f %7.2f %7.2f %8.2f   %.0f .. %.0f\n",
               P->name, P->nh, P->gross, P->var, P->var_pct, 100.0 * P->es / P->gross,
               100.0 * P->worst / P->gross, P->bs_lo, P->bs_hi);
    }

    /* distribution of VaR% */
    const double edges[] = {0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5, 1e300};
    const int nb = (int)(sizeof edges / sizeof edges[0]) - 1;
    int count[16] = {0};
    double total_var = 0.0, rel_width = 0.0;
    for (int i = 0; i < np; i++) {
        int b = 0;
        while (b + 1 < nb && pf[i].var_pct >= edges[b + 1]) b++;
        count[b]++;
        total_var += pf[i].var;
        rel_width += (pf[i].bs_hi - pf[i].bs_lo) / pf[i].var;
    }
    printf("distribution of VaR %%:\n");
    for (int b = 0; b < nb; b++) {
        if (b + 1 < nb)
            printf("  %4.1f - %4.1f %%  %5d", edges[b], edges[b + 1], count[b]);
        else
            printf("  %4.1f %% and up %5d", edges[b], count[b]);
        int bar = (count[b] * 50 + np - 1) / np;
        if (bar > 0) printf("  ");
        for (int j = 0; j < bar; j++) putchar('#');
        putchar('\n');
    }
    printf("median VaR %%: %.2f   sum of stand-alone VaR: %.0f $   mean bootstrap 90%% width: %.1f%% of VaR\n",
           pf[order[np / 2]].var_pct, total_var, 100.0 * rel_width / np);

    for (int i = 0; i < np; i++) { free(pf[i].asset); free(pf[i].value); }
    free(pf); free(order); free(pnl_all); free(ret); free(tk);
    return 0;
}
