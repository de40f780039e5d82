/*
 * kendall_rank: pairwise Kendall tau distances between partial rankings.
 *
 * Each input ranking orders a subset of the items.  For every pair of
 * rankings the distance is computed over the items both of them ranked: the
 * number of discordant item pairs (counted as inversions with a merge sort,
 * O(c log c) for c common items), normalised by c(c-1)/2.  Pairs with fewer
 * than MIN_COMMON shared items are not comparable.
 *
 * Reports the most central ranking (lowest mean distance to the others), the
 * most dissimilar pair and a histogram of the normalised distances.
 *
 * usage: kendall_rank RANKINGS_FILE MIN_COMMON BINS
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOT_COMPARABLE 0xFFFFu
#define MAX_BINS 50

typedef struct {
    int len;
    int *items; /* best first */
} Ranking;

typedef struct {
    int partner;         /* most dissimilar later ranking, -1 if none */
    long long disc;      /* its discordant pairs */
    long long pairs;     /* its c(c-1)/2 */
    int common;
} RowBest;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s RANKINGS_FILE MIN_COMMON BINS\n", prog);
}

static int read_int(FILE *f, int *v)
{
    int c;
    /* skip whitespace and comment lines */
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        break;
    }
    if (c == EOF)
        return 0;
    ungetc(c, f);
    return fscanf(f, "%d", v) == 1;
}

static Ranking *read_rankings(const char *path, int *n_rank, int *n_items)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open rankings file '%s'\n", path);
        return NULL;
    }
    int n, m;
    if (!read_int(f, &n) || !read_int(f, &m) || n < 2 || n > 100000 || m < 2 || m > 60000) {
        fprintf(stderr, "error: '%s': bad header (expected ranking count and item count)\n", path);
        fclose(f);
        return NULL;
    }
    Ranking *r = calloc((size_t)n, sizeof *r);
    unsigned char *seen = calloc((size_t)m, 1);
    if (!r || !seen) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        int len;
        if (!read_int(f, &len) || len < 1 || len > m) {
            fprintf(stderr, "error: '%s': ranking %d has a bad length\n", path, i + 1);
            goto fail;
        }
        r[i].len = len;
        r[i].items = malloc((size_t)len * sizeof(int));
        if (!r[i].items) {
            fprintf(stderr, "error: out of memory\n");
            exit(1);
        }
        memset(seen, 0, (size_t)m);
        for (int k = 0; k < len; k++) {
            int it;
            if (!read_int(f, &it) || it < 0 || it >= m || seen[it]) {
                fprintf(stderr, "error: '%s': ranking %d has a bad or repeated item\n", path, i + 1);
                goto fail;
            }
            seen[it] = 1;
            r[i].items[k] = it;
        }
    }
    fclose(f);
    free(seen);
    *n_rank = n;
    *n_items = m;
    return r;
fail:
    fclose(f);
    free(seen);
    return NULL;
}

/* count inversions of a[0..n) with merge sort; a is sorted afterwards */
static long long count_inversions(int *a, int *tmp, int n)
{
    if (n < 2)
        return 0;
    if (n <= 8) {
        long long inv = 0;
        for (int i = 1; i < n; i++) {
            int v = a[i], k = i - 1;
            while (k >= 0 && a[k] > v) {
                a[k + 1] = a[k];
                k--;
                inv++;
            }
            a[k + 1] = v;
        }
        return inv;
    }
    int mid = n / 2;
    long long inv = count_inversions(a, tmp, mid) + count_inversions(a + mid, tmp, n - mid);
    int i = 0, j = mid, k = 0;
    while (i < mid && j < n) {
        if (a[i] <= a[j]) {
            tmp[k++] = a[i++];
        } else {
            tmp[k++] = a[j++];
            inv += mid - i;
        }
    }
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, (size_t)n * sizeof(int));
    return inv;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    long min_common = strtol(argv[2], &end, 10);
    if (*end || min_common < 2 || min_common > 100000) {
        usage(argv[0]);
        return 2;
    }
    long bins = strtol(argv[3], &end, 10);
    if (*end || bins < 1 || bins > MAX_BINS) {
        usage(argv[0]);
        return 2;
    }

    int n, m;
    Ranking *rk = read_rankings(argv[1], &n, &m);
    if (!rk)
        return 1;

    /* position of every item in every ranking (-1 = not ranked) */
    short *pos = malloc((size_t)n * (size_t)m * sizeof(short));
    uint16_t *dist = malloc((size_t)n * (size_t)n * sizeof(uint16_t)); /* permille */
    RowBest *best = malloc((size_t)n * sizeof *best);
    long long *row_hist = calloc((size_t)n * (size_t)bins, sizeof(long long));
    long long *row_sum = malloc((size_t)n * sizeof(long long));
    int *row_cnt = malloc((size_t)n * sizeof(int));
    if (!pos || !dist || !best || !row_hist || !row_sum || !row_cnt) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        short *p = pos + (size_t)i * m;
        for (int k = 0; k < m; k++)
            p[k] = -1;
        for (int k = 0; k < rk[i].len; k++)
            p[rk[i].items[k]] = (short)k;
        dist[(size_t)i * n + i] = NOT_COMPARABLE;
    }

    long long comparable = 0;
#pragma omp parallel
    {
        int *buf = malloc((size_t)m * sizeof(int));
        int *tmp = malloc((size_t)m * sizeof(int));
        if (!buf || !tmp) {
            fprintf(stderr, "error: out of memory\n");
            exit(1);
        }
        /* pair (i, j) with j > i is handled by the iteration of i */
#pragma omp for reduction(+ : comparable)
        for (int i = 0; i < n; i++) {
            const short *pi = pos + (size_t)i * m;
            long long *hist = row_hist + (size_t)i * bins;
            RowBest b = {-1, 0, 1, 0};
            for (int j = i + 1; j < n; j++) {
                /* positions in ranking i of the common items, in j's order */
                int c = 0;
                const int *items = rk[j].items;
                for (int k = 0; k < rk[j].len; k++) {
                    int p = pi[items[k]];
                    if (p >= 0)
                        buf[c++] = p;
                }
                uint16_t d = NOT_COMPARABLE;
                if (c >= min_common) {
                    long long disc = count_inversions(buf, tmp, c);
                    long long pairs = (long long)c * (c - 1) / 2;
                    d = (uint16_t)((2000 * disc + pairs) / (2 * pairs));
                    long long bin = disc * bins / pairs;
                    if (bin >= bins)
                        bin = bins - 1;
                    hist[bin]++;
                    comparable++;
                    /* larger fraction wins; equal fractions: more common items */
                    long long lhs = disc * b.pairs, rhs = b.disc * pairs;
                    if (b.partner < 0 || lhs > rhs || (lhs == rhs && c > b.common)) {
                        b.partner = j;
                        b.disc = disc;
                        b.pairs = pairs;
                        b.common = c;
                    }
                }
                dist[(size_t)i * n + j] = d;
                dist[(size_t)j * n + i] = d;
            }
            best[i] = b;
        }
        free(buf);
        free(tmp);
    }

    /* mean distance of each ranking to all rankings it is comparable with */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        const uint16_t *row = dist + (size_t)i * n;
        long long s = 0;
        int cnt = 0;
        for (int j = 0; j < n; j++) {
            if (row[j] != NOT_COMPARABLE) {
                s += row[j];
                cnt++;
            }
        }
        row_sum[i] = s;
        row_cnt[i] = cnt;
    }

    /* combine in ranking order */
    long long hist[MAX_BINS] = {0};
    long long total_sum = 0;
    int central = -1, far_i = -1;
    int isolated = 0;
    for (int i = 0; i < n; i++) {
        for (int b = 0; b < bins; b++)
            hist[b] += row_hist[(size_t)i * bins + b];
        total_sum += row_sum[i];
        if (row_cnt[i] == 0) {
            isolated++;
        } else if (row_cnt[i] * 2 >= n - 1) {
            /* a central ranking must be comparable with at least half the others */
            if (central < 0 ||
                row_sum[i] * row_cnt[central] < row_sum[central] * row_cnt[i])
                central = i;
        }
        if (best[i].partner >= 0) {
            if (far_i < 0) {
                far_i = i;
            } else {
                const RowBest *a = &best[i], *f = &best[far_i];
                long long lhs = a->disc * f->pairs, rhs = f->disc * a->pairs;
                if (lhs > rhs || (lhs == rhs && a->common > f->common))
                    far_i = i;
            }
        }
    }

    long long all_pairs = (long long)n * (n - 1) / 2;
    printf("rankings: %d over %d items, pairs: %lld, comparable (>= %ld common items): %lld\n",
           n, m, all_pairs, min_common, comparable);
    if (comparable == 0) {
        printf("no comparable pairs\n");
        return 0;
    }
    printf("mean normalised Kendall distance: %.4f\n",
           (double)total_sum / (2.0 * comparable) / 1000.0);
    printf("rankings comparable with no other: %d\n", isolated);
    if (central >= 0)
        printf("most central ranking: #%d (%d items, mean distance %.4f to %d rankings)\n",
               central + 1, rk[central].len,
               (double)row_sum[central] / row_cnt[central] / 1000.0, row_cnt[central]);
    else
        printf("most central ranking: none is comparable with half of the others\n");
    const RowBest *f = &best[far_i];
    printf("most dissimilar pair: #%d and #%d (%d common items, %lld of %lld pairs discordant, distance %.4f)\n",
           far_i + 1, f->partner + 1, f->common, f->disc, f->pairs, (double)f->disc / f->pairs);
    printf("distance histogram:\n");
    for (int b = 0; b < bins; b++) {
        double lo = (double)b / bins, hi = (double)(b + 1) / bins;
        printf("  [%.3f, %.3f%c %9lld  %5.1f%%\n", lo, hi, b == bins - 1 ? ']' : ')', hist[b],
               100.0 * hist[b] / comparable);
    }

    for (int i = 0; i < n; i++)
        free(rk[i].items);
    free(rk);
    free(pos);
    free(dist);
    free(best);
    free(row_hist);
    free(row_sum);
    free(row_cnt);
    return 0;
}
