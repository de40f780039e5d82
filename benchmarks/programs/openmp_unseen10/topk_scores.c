/* topk_scores: score binary feature records against several weight vectors
 * and keep a global top-100 list per weight vector.
 *
 * usage: topk_scores WEIGHTS_FILE RECORD_FILE...
 *
 * WEIGHTS_FILE: one weight vector per line, "NAME w1 ... w16", each weight a
 * decimal with at most three digits after the point (kept exactly as an
 * integer number of thousandths).  RECORD_FILEs: an 16-byte header
 * ("TOPKREC1", uint32 record count, uint32 record size = 16, little endian)
 * followed by records of 16 unsigned byte features.  Records are numbered
 * across the files in the order given.  A higher score is better; equal
 * scores rank the lower record number first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>
#include <ctype.h>

#define NFEAT 16
#define MAXW 8
#define TOPK 100

typedef struct { uint8_t f[NFEAT]; } record_t;

/* key: score in the high half, inverted record number in the low half,
 * so a larger key is a better entry and keys are all distinct */
static int64_t make_key(int32_t score, uint32_t idx)
{
    return (int64_t)(((uint64_t)(int64_t)score << 32) | (uint64_t)(0xFFFFFFFFu - idx));
}
static int32_t key_score(int64_t k) { return (int32_t)(k >> 32); }
static uint32_t key_index(int64_t k) { return 0xFFFFFFFFu - (uint32_t)(k & 0xFFFFFFFF); }

typedef struct {
    int64_t key[TOPK];
    int count;
    int64_t threshold;   /* smallest key in a full list, INT64_MIN until full */
} toplist_t;

static int parse_weight(const char *tok, int32_t *out)
{
    char *end;
    double v = strtod(tok, &end);
    if (end == tok || *end != '\0' || !(fabs(v) <= 10.0)) return -1;
    const char *dot = strchr(tok, '.');
    if (dot) {
        size_t decimals = strlen(dot + 1);
        if (decimals > 3) return -1;
    }
    *out = (int32_t)lround(v * 1000.0);
    return 0;
}

static int read_weights(const char *path, char names[MAXW][32], int32_t w[MAXW][NFEAT])
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "topk_scores: cannot open %s\n", path); return -1; }
    char line[1024];
    int nw = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0' || *p == '#') continue;
        if (nw == MAXW) {
            fprintf(stderr, "topk_scores: %s:%d: more than %d weight vectors\n", path, lineno, MAXW);
            fclose(f); return -1;
        }
        char *tok = strtok(p, " \t\r\n");
        snprintf(names[nw], 32, "%s", tok);
        for (int k = 0; k < NFEAT; k++) {
            tok = strtok(NULL, " \t\r\n");
            if (!tok || parse_weight(tok, &w[nw][k]) != 0) {
                fprintf(stderr, "topk_scores: %s:%d: expected %d weights (at most 3 decimals, |w| <= 10)\n",
                        path, lineno, NFEAT);
                fclose(f); return -1;
            }
        }
        if (strtok(NULL, " \t\r\n")) {
            fprintf(stderr, "topk_scores: %s:%d: more than %d weights\n", path, lineno, NFEAT);
            fclose(f); return -1;
        }
        nw++;
    }
    fclose(f);
    if (nw == 0) { fprintf(stderr, "topk_scores: %s: no weight vectors\n", path); return -1; }
    return nw;
}

static uint32_t le32(const unsigned char *b)
{
    return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

static void insert_entry(toplist_t *t, int64_t key)
{
    if (t->count < TOPK) {
        t->key[t->count++] = key;
    } else {
        int m = 0;
        for (int k = 1; k < TOPK; k++) if (t->key[k] < t->key[m]) m = k;
        if (key <= t->key[m]) return;
        t->key[m] = key;
    }
    if (t->count == TOPK) {
        int64_t mn = t->key[0];
        for (int k = 1; k < TOPK; k++) if (t->key[k] < mn) mn = t->key[k];
#pragma omp atomic write
        t->threshold = mn;
    }
}

static int cmp_key_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

static void print_score(int64_t s)
{
    if (s < 0) { putchar('-'); s = -s; }
    printf("%lld.%03lld", (long long)(s / 1000), (long long)(s % 1000));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s WEIGHTS_FILE RECORD_FILE...\n", argv[0]);
        return 2;
    }
    char names[MAXW][32];
    int32_t w[MAXW][NFEAT];
    int nw = read_weights(argv[1], names, w);
    if (nw < 0) return 1;

    /* load every record file into one array */
    size_t n = 0, cap = 0;
    record_t *rec = NULL;
    for (int a = 2; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) { fprintf(stderr, "topk_scores: cannot open %s\n", argv[a]); return 1; }
        unsigned char hdr[16];
        if (fread(hdr, 1, 16, f) != 16 || memcmp(hdr, "TOPKREC1", 8) != 0 || le32(hdr + 12) != NFEAT) {
            fprintf(stderr, "topk_scores: %s: not a record file (bad header)\n", argv[a]);
            fclose(f); return 1;
        }
        size_t cnt = le32(hdr + 8);
        if (n + cnt > 0xF0000000u) {
            fprintf(stderr, "topk_scores: %s: too many records\n", argv[a]);
            fclose(f); return 1;
        }
        if (n + cnt > cap) {
            cap = n + cnt;
            rec = realloc(rec, sizeof(record_t) * cap);
        }
        if ((cnt > 0 && fread(rec + n, sizeof(record_t), cnt, f) != cnt) || fgetc(f) != EOF) {
            fprintf(stderr, "topk_scores: %s: file size does not match its record count %zu\n", argv[a], cnt);
            fclose(f); return 1;
        }
        fclose(f);
        n += cnt;
    }
    if (n == 0) { fprintf(stderr, "topk_scores: no records\n"); return 1; }

    toplist_t *lists = calloc((size_t)nw, sizeof(toplist_t));
    for (int v = 0; v < nw; v++) lists[v].threshold = INT64_MIN;
    long long sum[MAXW] = {0}, sumsq_hi[MAXW] = {0}, positive[MAXW] = {0};
    int32_t smin[MAXW], smax[MAXW];
    for (int v = 0; v < MAXW; v++) { smin[v] = INT32_MAX; smax[v] = INT32_MIN; }

#pragma omp parallel for reduction(+:sum[:MAXW], sumsq_hi[:MAXW], positive[:MAXW]) \
    reduction(min:smin[:MAXW]) reduction(max:smax[:MAXW])
    for (size_t i = 0; i < n; i++) {
        const uint8_t *f = rec[i].f;
        for (int v = 0; v < nw; v++) {
            int32_t s = 0;
            for (int k = 0; k < NFEAT; k++) s += w[v][k] * (int32_t)f[k];
            sum[v] += s;
            /* squares in units of 1000^2 / 1024 keep the sum inside 64 bits */
            sumsq_hi[v] += ((long long)s * s) >> 10;
            positive[v] += s > 0;
            if (s < smin[v]) smin[v] = s;
            if (s > smax[v]) smax[v] = s;
            int64_t key = make_key(s, (uint32_t)i);
            int64_t thr;
#pragma omp atomic read
            thr = lists[v].threshold;
            if (key > thr) {
#pragma omp critical
                {
                    if (key > lists[v].threshold)
                        insert_entry(&lists[v], key);
                }
            }
        }
    }

    /* second pass: score histograms between each vector's min and max, for percentiles */
    enum { NBINS = 1024 };
    long long *hist = calloc((size_t)MAXW * NBINS, sizeof(long long));
    int64_t lo[MAXW], span[MAXW];
    for (int v = 0; v < nw; v++) { lo[v] = smin[v]; span[v] = (int64_t)smax[v] - smin[v] + 1; }
#pragma omp parallel for reduction(+:hist[:MAXW * NBINS])
    for (size_t i = 0; i < n; i++) {
        const uint8_t *f = rec[i].f;
        for (int v = 0; v < nw; v++) {
            int32_t s = 0;
            for (int k = 0; k < NFEAT; k++) s += w[v][k] * (int32_t)f[k];
            hist[v * NBINS + (int)(((int64_t)s - lo[v]) * NBINS / span[v])]++;
        }
    }

    printf("records: %zu, weight vectors: %d\n", n, nw);
    for (int v = 0; v < nw; v++) {
        toplist_t *t = &lists[v];
        qsort(t->key, (size_t)t->count, sizeof(int64_t), cmp_key_desc);
        double mean = (double)sum[v] / (double)n / 1000.0;
        double meansq = (double)sumsq_hi[v] * 1024.0 / (double)n / 1.0e6;
        double var = meansq - mean * mean;
        printf("%s: mean %.3f, std %.3f, min ", names[v], mean, var > 0 ? sqrt(var) : 0.0);
        print_score(smin[v]);
        printf(", max ");
        print_score(smax[v]);
        printf(", positive %lld, top-%d cut-off ", positive[v], TOPK);
        print_score(key_score(t->key[t->count - 1]));
        printf("\n  percentiles (bin lower bounds):");
        static const int pct[] = { 10, 50, 90, 99 };
        long long acc = 0;
        int b = 0;
        for (int q = 0; q < 4; q++) {
            long long need = ((long long)n * pct[q] + 99) / 100;
            while (b < NBINS - 1 && acc + hist[v * NBINS + b] < need) acc += hist[v * NBINS + b++];
            printf(" p%d ", pct[q]);
            print_score(lo[v] + (int64_t)b * span[v] / NBINS);
        }
        printf("\n");
        for (int k = 0; k < 10 && k < t->count; k++) {
            uint32_t idx = key_index(t->key[k]);
            printf("  %2d. record %7u score ", k + 1, idx);
            print_score(key_score(t->key[k]));
            printf("  features");
            for (int j = 0; j < NFEAT; j++) printf(" %3u", rec[idx].f[j]);
            printf("\n");
        }
    }
    free(hist); free(lists); free(rec);
    return 0;
}
