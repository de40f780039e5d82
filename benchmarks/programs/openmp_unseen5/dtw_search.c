/*
 * dtw_search - 1-nearest-neighbour classification of time series under
 * dynamic time warping with a Sakoe-Chiba band and LB_Keogh pruning.
 *
 * Usage: dtw_search <train.txt> <test.txt> <window_fraction>
 *
 * Each input line is "<label> <length> <v1> ... <vlength>".  Series may have
 * different lengths; the band follows the diagonal of the (query x candidate)
 * matrix and has half-width window_fraction * max(len_q, len_c) (widened
 * where needed so that a warping path always exists).  All series are
 * z-normalised.  For every test series the candidates are ranked by their
 * LB_Keogh lower bound and full DTW is computed only while the bound is below
 * the best distance found so far.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LABEL 64

typedef struct {
    int label;
    int len;
    double *v;
} Series;

typedef struct {
    Series *s;
    int count;
} Dataset;

typedef struct {
    int predicted;
    int full_dtw;   /* full DTW computations for this query */
    double dist;
} QueryResult;

static int load(const char *path, Dataset *d)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dtw_search: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int cap = 64;
    d->s = malloc(sizeof(Series) * (size_t)cap);
    d->count = 0;
    for (;;) {
        int label, len;
        int got = fscanf(f, "%d %d", &label, &len);
        if (got == EOF) break;
        if (got != 2 || label < 0 || label >= MAX_LABEL || len < 2 || len > 1000000) {
            fprintf(stderr, "dtw_search: '%s': series %d: bad label/length\n", path, d->count + 1);
            fclose(f);
            return -1;
        }
        double *v = malloc(sizeof(double) * (size_t)len);
        if (!v) { fprintf(stderr, "dtw_search: out of memory\n"); exit(1); }
        for (int i = 0; i < len; i++) {
            if (fscanf(f, "%lf", &v[i]) != 1) {
                fprintf(stderr, "dtw_search: '%s': series %d: expected %d values\n",
                        path, d->count + 1, len);
                fclose(f);
                return -1;
            }
        }
        if (d->count == cap) {
            cap *= 2;
            d->s = realloc(d->s, sizeof(Series) * (size_t)cap);
            if (!d->s) { fprintf(stderr, "dtw_search: out of memory\n"); exit(1); }
        }
        d->s[d->count].label = label;
        d->s[d->count].len = len;
        d->s[d->count].v = v;
        d->count++;
    }
    fclose(f);
    if (d->count == 0) {
        fprintf(stderr, "dtw_search: '%s': no series\n", path);
        return -1;
    }
    return 0;
}

static void znormalise(Series *s)
{
    double mean = 0.0, sq = 0.0;
    for (int i = 0; i < s->len; i++) mean += s->v[i];
    mean /= s->len;
    for (int i = 0; i < s->len; i++) sq += (s->v[i] - mean) * (s->v[i] - mean);
    double sd = sqrt(sq / s->len);
    if (sd < 1e-12) sd = 1.0;
    for (int i = 0; i < s->len; i++) s->v[i] = (s->v[i] - mean) / sd;
}

/* band half-width for a query of length n against a candidate of length m */
static int band_width(int n, int m, double frac)
{
    int big = n > m ? n : m;
    int w = (int)(frac * big);
    int slope = (m - 1) / (n - 1) + 1;     /* columns advanced per row, rounded up */
    if (w < slope / 2 + 1) w = slope / 2 + 1;
    return w;
}

/* column of the band centre in row i */
static inline int centre(int i, int n, int m) { return (int)((long)i * (m - 1) / (n - 1)); }

/* LB_Keogh of query q (length n) against candidate c (length m) for the
 * scaled band: envelope of c over each row's band, computed with monotone
 * deques.  Stops early once the bound reaches 'limit'. */
static double lb_keogh(const double *q, int n, const double *c, int m, int w,
                       double limit, int *dqmax, int *dqmin)
{
    int hmax = 0, tmax = 0, hmin = 0, tmin = 0;
    int next = 0;     /* next column of c to enter the deques */
    double lb = 0.0;
    for (int i = 0; i < n; i++) {
        int ctr = centre(i, n, m);
        int lo = ctr - w < 0 ? 0 : ctr - w;
        int hi = ctr + w > m - 1 ? m - 1 : ctr + w;
        while (next <= hi) {
            while (tmax > hmax && c[dqmax[tmax - 1]] <= c[next]) tmax--;
            dqmax[tmax++] = next;
            while (tmin > hmin && c[dqmin[tmin - 1]] >= c[next]) tmin--;
            dqmin[tmin++] = next;
            next++;
        }
        while (dqmax[hmax] < lo) hmax++;
        while (dqmin[hmin] < lo) hmin++;
        double up = c[dqmax[hmax]], low = c[dqmin[hmin]];
        double x = q[i];
        if (x > up) lb += (x - up) * (x - up);
        else if (x < low) lb += (low - x) * (low - x);
        if (lb >= limit) return lb;
    }
    return lb;
}

/* banded DTW (squared point distances) with early abandoning at 'limit'.
 * prev/cur hold one row each; cells of the previous row outside its band
 * are set to DBL_MAX before they can be read. */
static double dtw(const double *q, int n, const double *c, int m, int w,
                  double limit, double *prev, double *cur)
{
    int hi0 = w > m - 1 ? m - 1 : w;
    double acc = 0.0, rowmin = DBL_MAX;
    for (int j = 0; j <= hi0; j++) {
        acc += (q[0] - c[j]) * (q[0] - c[j]);
        cur[j] = acc;
        if (acc < rowmin) rowmin = acc;
    }
    if (rowmin >= limit) return DBL_MAX;
    int plo = 0, phi = hi0;
    for (int i = 1; i < n; i++) {
        double *t = prev;
        prev = cur;
        cur = t;
        int ctr = centre(i, n, m);
        int lo = ctr - w < 0 ? 0 : ctr - w;
        int hi = ctr + w > m - 1 ? m - 1 : ctr + w;
        for (int j = phi + 1; j <= hi; j++) prev[j] = DBL_MAX;
        if (plo > 0) prev[plo - 1] = DBL_MAX;
        double x = q[i];
        double left = DBL_MAX;      /* cur[j - 1] */
        double diag = lo > 0 ? prev[lo - 1] : DBL_MAX;
        rowmin = DBL_MAX;
        for (int j = lo; j <= hi; j++) {
            double up = prev[j];
            double best = up < diag ? up : diag;
            if (left < best) best = left;
            double v = best + (x - c[j]) * (x - c[j]);
            cur[j] = v;
            left = v;
            diag = up;
            if (v < rowmin) rowmin = v;
        }
        if (rowmin >= limit) return DBL_MAX;
        plo = lo;
        phi = hi;
    }
    return cur[m - 1];
}

typedef struct { double lb; int idx; } Cand;

static int cmp_cand(const void *a, const void *b)
{
    const Cand *x = a, *y = b;
    if (x->lb < y->lb) return -1;
    if (x->lb > y->lb) return 1;
    return x->idx - y->idx;
}

static void usage(void)
{
    fprintf(stderr, "usage: dtw_search <train.txt> <test.txt> <window_fraction>\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 4) usage();
    char *end;
    double frac = strtod(argv[3], &end);
    if (*end || !(frac >= 0.0 && frac <= 1.0)) usage();

    Dataset train, test;
    if (load(argv[1], &train) != 0) return 1;
    if (load(argv[2], &test) != 0) return 1;

    int maxlen = 0, nclass = 0;
    for (int i = 0; i < train.count; i++) {
        if (train.s[i].len > maxlen) maxlen = train.s[i].len;
        if (train.s[i].label + 1 > nclass) nclass = train.s[i].label + 1;
    }
    for (int i = 0; i < test.count; i++) {
        if (test.s[i].label + 1 > nclass) nclass = test.s[i].label + 1;
    }

    #pragma omp parallel for
    for (int i = 0; i < train.count + test.count; i++)
        znormalise(i < train.count ? &train.s[i] : &test.s[i - train.count]);

    QueryResult *res = malloc(sizeof(QueryResult) * (size_t)test.count);

    #pragma omp parallel
    {
        int *dqmax = malloc(sizeof(int) * (size_t)maxlen);
        int *dqmin = malloc(sizeof(int) * (size_t)maxlen);
        double *prev = malloc(sizeof(double) * (size_t)maxlen);
        double *cur = malloc(sizeof(double) * (size_t)maxlen);
        Cand *cand = malloc(sizeof(Cand) * (size_t)train.count);
        if (!dqmax || !dqmin || !prev || !cur || !cand) {
            fprintf(stderr, "dtw_search: out of memory\n");
            exit(1);
        }
        #pragma omp for
        for (int qi = 0; qi < test.count; qi++) {
            const Series *q = &test.s[qi];
            for (int k = 0; k < train.count; k++) {
                const Series *c = &train.s[k];
                int w = band_width(q->len, c->len, frac);
                cand[k].lb = lb_keogh(q->v, q->len, c->v, c->len, w, DBL_MAX, dqmax, dqmin);
                cand[k].idx = k;
            }
            qsort(cand, (size_t)train.count, sizeof(Cand), cmp_cand);
            double best = DBL_MAX;
            int best_idx = -1, full = 0;
            for (int r = 0; r < train.count && cand[r].lb < best; r++) {
                const Series *c = &train.s[cand[r].idx];
                int w = band_width(q->len, c->len, frac);
                double d = dtw(q->v, q->len, c->v, c->len, w, best, prev, cur);
                full++;
                if (d < best || (d == best && cand[r].idx < best_idx)) {
                    best = d;
                    best_idx = cand[r].idx;
                }
            }
            res[qi].predicted = train.s[best_idx].label;
            res[qi].full_dtw = full;
            res[qi].dist = best;
        }
        free(dqmax);
        free(dqmin);
        free(prev);
        free(cur);
        free(cand);
    }

    long correct = 0, total_full = 0;
    int min_full = train.count + 1, max_full = 0;
    long *conf = calloc((size_t)nclass * (size_t)nclass, sizeof(long));
    for (int qi = 0; qi < test.count; qi++) {
        int t = test.s[qi].label, p = res[qi].predicted;
        conf[t * nclass + p]++;
        correct += t == p;
        total_full += res[qi].full_dtw;
        if (res[qi].full_dtw < min_full) min_full = res[qi].full_dtw;
        if (res[qi].full_dtw > max_full) max_full = res[qi].full_dtw;
    }

    printf("train series: %d, test series: %d, classes: %d, window fraction %.3f\n",
           train.count, test.count, nclass, frac);
    printf("accuracy: %ld / %d = %.2f%%\n", correct, test.count, 100.0 * (double)correct / test.count);
    printf("confusion matrix (rows: true class, columns: predicted):\n");
    printf("        ");
    for (int p = 0; p < nclass; p++) printf(" %5d", p);
    printf("\n");
    for (int t = 0; t < nclass; t++) {
        printf("  %4d: ", t);
        for (int p = 0; p < nclass; p++) printf(" %5ld", conf[t * nclass + p]);
        printf("\n");
    }
    printf("full DTW computations per query: mean %.2f, min %d, max %d (of %d candidates)\n",
           (double)total_full / test.count, min_full, max_full, train.count);
    printf("pruned by LB_Keogh: %.2f%%\n",
           100.0 - 100.0 * (double)total_full / ((double)test.count * train.count));

    free(conf);
    free(res);
    for (int i = 0; i < train.count; i++) free(train.s[i].v);
    for (int i = 0; i < test.count; i++) free(test.s[i].v);
    free(train.s);
    free(test.s);
    return 0;
}
