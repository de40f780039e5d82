/*
 * itemsets.c - frequent itemset mining (Apriori, up to triples).
 *
 * Reads a transactions file, one basket per line, item ids (positive
 * integers) separated by blanks; '#' starts a comment line.  Given a
 * minimum support (number of baskets), it finds
 *   - frequent items      (counted over the baskets),
 *   - frequent pairs      (all pairs of frequent items in each basket,
 *                          counted over the baskets with atomic adds),
 *   - frequent triples    (candidates joined from frequent pairs, each
 *                          counted by intersecting the baskets-lists of its
 *                          three items, in parallel over the candidates),
 * and prints their numbers, the top pairs and triples and the strongest rule.
 *
 * Usage: itemsets baskets.txt min_support [top]
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEM 1000000

typedef struct {
    int ntrans;
    long nitems_total;   /* item occurrences */
    int max_id;
    long *start;         /* CSR: basket t has items[start[t] .. start[t+1]) */
    int *items;
} Baskets;

typedef struct {
    int a, b, c;         /* item ids (c = 0 for a pair) */
    int support;
} Itemset;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s baskets.txt min_support [top]\n", prog);
    fprintf(stderr, "  baskets.txt  one basket per line: item ids separated by blanks\n");
    fprintf(stderr, "  min_support  minimum number of baskets (>= 2)\n");
    fprintf(stderr, "  top          itemsets and rules to list (default 10)\n");
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static int read_baskets(const char *path, Baskets *B)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    long cap_t = 1024, cap_i = 8192;
    B->start = xmalloc((size_t)cap_t * sizeof(long));
    B->items = xmalloc((size_t)cap_i * sizeof(int));
    B->ntrans = 0;
    B->nitems_total = 0;
    B->max_id = 0;
    B->start[0] = 0;

    char *line = NULL;
    size_t linecap = 0;
    long lineno = 0;
    while (getline(&line, &linecap, f) > 0) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#')
            continue;
        long first = B->nitems_total;
        while (*p && *p != '\n' && *p != '\r') {
            char *end;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p || errno || v < 1 || v > MAX_ITEM ||
                (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r')) {
                fprintf(stderr, "error: %s:%ld: bad item id\n", path, lineno);
                free(line);
                fclose(f);
                return -1;
            }
            if (B->nitems_total == cap_i) {
                cap_i *= 2;
                B->items = realloc(B->items, (size_t)cap_i * sizeof(int));
                if (!B->items) {
                    fprintf(stderr, "error: out of memory\n");
                    exit(1);
                }
            }
            B->items[B->nitems_total++] = (int)v;
            if (v > B->max_id)
                B->max_id = (int)v;
            p = end;
            while (*p == ' ' || *p == '\t')
                p++;
        }
        /* sort the basket and drop repeated items */
        int *it = B->items + first;
        long n = B->nitems_total - first, k = 0;
        qsort(it, (size_t)n, sizeof(int), cmp_int);
        for (long i = 0; i < n; i++)
            if (k == 0 || it[i] != it[k - 1])
                it[k++] = it[i];
        B->nitems_total = first + k;
        if (B->ntrans + 1 == cap_t) {
            cap_t *= 2;
            B->start = realloc(B->start, (size_t)cap_t * sizeof(long));
            if (!B->start) {
                fprintf(stderr, "error: out of memory\n");
                exit(1);
            }
        }
        B->start[++B->ntrans] = B->nitems_total;
    }
    free(line);
    if (ferror(f)) {
        fprintf(stderr, "error: %s: read error\n", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    if (B->ntrans == 0 || B->nitems_total == 0) {
        fprintf(stderr, "error: %s: no baskets\n", path);
        return -1;
    }
    return 0;
}

/* support order: higher support first, then larger sets, then item ids */
static int cmp_itemset(const void *x, const void *y)
{
    const Itemset *p = x, *q = y;
    if (p->support != q->support)
        return p->support > q->support ? -1 : 1;
    int sp = p->c ? 3 : 2, sq = q->c ? 3 : 2;
    if (sp != sq)
        return sp > sq ? -1 : 1;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->c > q->c) - (p->c < q->c);
}

/* size of the intersection of three sorted lists */
static int intersect3(const int *x, int nx, const int *y, int ny, const int *z, int nz)
{
    int i = 0, j = 0, k = 0, n = 0;
    while (i < nx && j < ny && k < nz) {
        int a = x[i], b = y[j], c = z[k];
        if (a == b && b == c) {
            n++;
            i++;
            j++;
            k++;
        } else {
            int m = a > b ? a : b;
            if (c > m)
                m = c;
            while (i < nx && x[i] < m)
                i++;
            while (j < ny && y[j] < m)
                j++;
            while (k < nz && z[k] < m)
                k++;
        }
    }
    return n;
}

static inline long pair_index(int i, int j, int nf)
{
    /* i < j, row-major upper triangle */
    return (long)i * (2L * nf - i - 1) / 2 + (j - i - 1);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    long minsup = strtol(argv[2], &end, 10);
    if (*end || minsup < 2 || minsup > 2000000000L) {
        usage(argv[0]);
        return 2;
    }
    long top = 10;
    if (argc == 4) {
        top = strtol(argv[3], &end, 10);
        if (*end || top < 1 || top > 1000) {
            usage(argv[0]);
            return 2;
        }
    }

    Baskets B;
    if (read_baskets(argv[1], &B))
        return 1;
    const int nt = B.ntrans, maxid = B.max_id;
    const long *start = B.start;
    const int *items = B.items;

    /* ---- pass 1: item counts ---- */
    int *count = xmalloc(((size_t)maxid + 1) * sizeof(int));
    memset(count, 0, ((size_t)maxid + 1) * sizeof(int));
    long longest = 0;
    #pragma omp parallel for reduction(+:count[:maxid + 1]) reduction(max:longest)
    for (int t = 0; t < nt; t++) {
        long len = start[t + 1] - start[t];
        if (len > longest)
            longest = len;
        for (long e = start[t]; e < start[t + 1]; e++)
            count[items[e]]++;
    }

    /* frequent items get dense ranks in id order */
    int *rank = xmalloc(((size_t)maxid + 1) * sizeof(int));
    int nf = 0;
    for (int id = 0; id <= maxid; id++)
        rank[id] = count[id] >= minsup ? nf++ : -1;
    int *fid = xmalloc((size_t)nf * sizeof(int));
    for (int id = 0; id <= maxid; id++)
        if (rank[id] >= 0)
            fid[rank[id]] = id;
    int distinct = 0;
    for (int id = 0; id <= maxid; id++)
        distinct += count[id] > 0;

    /* ---- baskets reduced to frequent items (ranks, still sorted) ---- */
    long *fstart = xmalloc(((size_t)nt + 1) * sizeof(long));
    fstart[0] = 0;
    #pragma omp parallel for
    for (int t = 0; t < nt; t++) {
        long k = 0;
        for (long e = start[t]; e < start[t + 1]; e++)
            k += rank[items[e]] >= 0;
        fstart[t + 1] = k;
    }
    for (int t = 0; t < nt; t++)
        fstart[t + 1] += fstart[t];
    int *fitems = xmalloc((size_t)fstart[nt] * sizeof(int));
    #pragma omp parallel for
    for (int t = 0; t < nt; t++) {
        long k = fstart[t];
        for (long e = start[t]; e < start[t + 1]; e++)
            if (rank[items[e]] >= 0)
                fitems[k++] = rank[items[e]];
    }

    /* ---- pass 2: pair counts over the baskets ---- */
    long npairs_all = (long)nf * (nf - 1) / 2;
    int *pcount = xmalloc((size_t)(npairs_all > 0 ? npairs_all : 1) * sizeof(int));
    memset(pcount, 0, (size_t)(npairs_all > 0 ? npairs_all : 1) * sizeof(int));
    #pragma omp parallel for
    for (int t = 0; t < nt; t++) {
        for (long x = fstart[t]; x < fstart[t + 1]; x++) {
            int i = fitems[x];
            long row = pair_index(i, i + 1, nf);
            for (long y = x + 1; y < fstart[t + 1]; y++) {
                #pragma omp atomic
                pcount[row + (fitems[y] - i - 1)]++;
            }
        }
    }

    /* frequent pairs, and an adjacency bitmap for the candidate join */
    long nfp = 0;
    for (long p = 0; p < npairs_all; p++)
        nfp += pcount[p] >= minsup;

    /* ---- candidate triples: (a,b), (a,c), (b,c) all frequent ---- */
    /* per first item a: number of candidates, then fill in a-order */
    long *cstart = xmalloc(((size_t)nf + 1) * sizeof(long));
    cstart[0] = 0;
    #pragma omp parallel for
    for (int a = 0; a < nf; a++) {
        long n = 0;
        for (int b = a + 1; b < nf; b++) {
            if (pcount[pair_index(a, b, nf)] < minsup)
                continue;
            for (int c = b + 1; c < nf; c++)
                if (pcount[pair_index(a, c, nf)] >= minsup &&
                    pcount[pair_index(b, c, nf)] >= minsup)
                    n++;
        }
        cstart[a + 1] = n;
    }
    for (int a = 0; a < nf; a++)
        cstart[a + 1] += cstart[a];
    long ncand = cstart[nf];
    int *cand = xmalloc((size_t)(ncand > 0 ? ncand : 1) * 3 * sizeof(int));
    #pragma omp parallel for
    for (int a = 0; a < nf; a++) {
        long k = cstart[a];
        for (int b = a + 1; b < nf; b++) {
            if (pcount[pair_index(a, b, nf)] < minsup)
                continue;
            for (int c = b + 1; c < nf; c++)
                if (pcount[pair_index(a, c, nf)] >= minsup &&
                    pcount[pair_index(b, c, nf)] >= minsup) {
                    cand[3 * k] = a;
                    cand[3 * k + 1] = b;
                    cand[3 * k + 2] = c;
                    k++;
                }
        }
    }

    /* ---- basket lists of the frequent items ---- */
    long *tstart = xmalloc(((size_t)nf + 1) * sizeof(long));
    tstart[0] = 0;
    for (int r = 0; r < nf; r++)
        tstart[r + 1] = tstart[r] + count[fid[r]];
    int *tids = xmalloc((size_t)(tstart[nf] > 0 ? tstart[nf] : 1) * sizeof(int));
    long *tfill = xmalloc(((size_t)nf + 1) * sizeof(long));
    memcpy(tfill, tstart, ((size_t)nf + 1) * sizeof(long));
    for (int t = 0; t < nt; t++)
        for (long x = fstart[t]; x < fstart[t + 1]; x++)
            tids[tfill[fitems[x]]++] = t;

    /* ---- pass 3: triple counts, one list intersection per candidate ---- */
    int *ccount = xmalloc((size_t)(ncand > 0 ? ncand : 1) * sizeof(int));
    long nft = 0;
    #pragma omp parallel for reduction(+:nft)
    for (long k = 0; k < ncand; k++) {
        int a = cand[3 * k], b = cand[3 * k + 1], c = cand[3 * k + 2];
        ccount[k] = intersect3(tids + tstart[a], (int)(tstart[a + 1] - tstart[a]),
                               tids + tstart[b], (int)(tstart[b + 1] - tstart[b]),
                               tids + tstart[c], (int)(tstart[c + 1] - tstart[c]));
        if (ccount[k] >= minsup)
            nft++;
    }

    /* ---- report ---- */
    printf("baskets: %d, item occurrences: %ld, distinct items: %d, longest basket: %ld\n",
           nt, B.nitems_total, distinct, longest);
    printf("min support: %ld (%.3f%% of baskets)\n", minsup, 100.0 * minsup / nt);
    printf("frequent items: %d\n", nf);
    printf("frequent pairs: %ld (of %ld pairs)\n", nfp, npairs_all);
    printf("frequent triples: %ld (of %ld candidates)\n", nft, ncand);

    long nsets = nfp + nft, k = 0;
    Itemset *sets = xmalloc((size_t)(nsets > 0 ? nsets : 1) * sizeof(Itemset));
    for (int a = 0; a < nf; a++)
        for (int b = a + 1; b < nf; b++) {
            int s = pcount[pair_index(a, b, nf)];
            if (s >= minsup)
                sets[k++] = (Itemset){fid[a], fid[b], 0, s};
        }
    for (long q = 0; q < ncand; q++)
        if (ccount[q] >= minsup)
            sets[k++] = (Itemset){fid[cand[3 * q]], fid[cand[3 * q + 1]],
                                  fid[cand[3 * q + 2]], ccount[q]};
    qsort(sets, (size_t)nsets, sizeof(Itemset), cmp_itemset);
    printf("top pairs by support:\n");
    for (long i = 0, shown = 0; i < nsets && shown < top; i++)
        if (!sets[i].c) {
            printf("  {%d, %d}  %d  (%.3f%%)\n", sets[i].a, sets[i].b, sets[i].support,
                   100.0 * sets[i].support / nt);
            shown++;
        }
    printf("top triples by support:\n");
    for (long i = 0, shown = 0; i < nsets && shown < top; i++)
        if (sets[i].c) {
            printf("  {%d, %d, %d}  %d  (%.3f%%)\n", sets[i].a, sets[i].b, sets[i].c,
                   sets[i].support, 100.0 * sets[i].support / nt);
            shown++;
        }

    /* strongest rules {x, y} -> z from the frequent triples (confidence, then support) */
    long best_rule = -1, best_side = 0;
    double best_conf = -1.0;
    for (long q = 0; q < ncand; q++) {
        if (ccount[q] < minsup)
            continue;
        int t3[3] = {cand[3 * q], cand[3 * q + 1], cand[3 * q + 2]};
        for (int side = 0; side < 3; side++) {
            int x = t3[(side + 1) % 3], y = t3[(side + 2) % 3];
            if (x > y) {
                int tmp = x;
                x = y;
                y = tmp;
            }
            double conf = (double)ccount[q] / pcount[pair_index(x, y, nf)];
            if (conf > best_conf) {
                best_conf = conf;
                best_rule = q;
                best_side = side;
            }
        }
    }
    if (best_rule >= 0) {
        int t3[3] = {cand[3 * best_rule], cand[3 * best_rule + 1], cand[3 * best_rule + 2]};
        int z = t3[best_side];
        int x = t3[(best_side + 1) % 3], y = t3[(best_side + 2) % 3];
        if (x > y) {
            int tmp = x;
            x = y;
            y = tmp;
        }
        printf("most confident rule: {%d, %d} -> %d  confidence %.4f, support %d\n",
               fid[x], fid[y], fid[z], best_conf, ccount[best_rule]);
    }

    free(sets);
    free(ccount);
    free(tfill);
    free(tids);
    free(tstart);
    free(cand);
    free(cstart);
    free(pcount);
    free(fitems);
    free(fstart);
    free(fid);
    free(rank);
    free(count);
    free(B.items);
    free(B.start);
    return 0;
}
