/* edit_matrix: all-pairs Levenshtein distances between product names.
 *
 * usage: edit_matrix NAMES_FILE QUERIES_FILE
 *
 * Reads one name per line, computes the edit distance of every pair
 * (i < j), and reports the closest pairs, a histogram of distances and
 * the nearest neighbours of each query string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#define MAXLEN 64
#define MAXNAMES 20000
#define MAXQUERIES 64
#define TOPPAIRS 12
#define NEIGHBOURS 5

typedef struct { int d, i, j; } pair_t;

static int read_lines(const char *path, char (**out)[MAXLEN + 1], int *lens_out[], int maxn)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "edit_matrix: cannot open %s\n", path); return -1; }
    char (*s)[MAXLEN + 1] = malloc(sizeof(*s) * (size_t)maxn);
    int *lens = malloc(sizeof(int) * (size_t)maxn);
    char buf[512];
    int n = 0, lineno = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t l = strlen(buf);
        if (l > 0 && buf[l - 1] == '\n') buf[--l] = '\0';
        if (l > 0 && buf[l - 1] == '\r') buf[--l] = '\0';
        if (l == 0) continue;
        if (l > MAXLEN) {
            fprintf(stderr, "edit_matrix: %s:%d: line longer than %d characters\n", path, lineno, MAXLEN);
            fclose(f); free(s); free(lens); return -1;
        }
        for (size_t k = 0; k < l; k++)
            if (!isprint((unsigned char)buf[k])) {
                fprintf(stderr, "edit_matrix: %s:%d: non-printable character\n", path, lineno);
                fclose(f); free(s); free(lens); return -1;
            }
        if (n >= maxn) {
            fprintf(stderr, "edit_matrix: %s: more than %d lines\n", path, maxn);
            fclose(f); free(s); free(lens); return -1;
        }
        memcpy(s[n], buf, l + 1);
        lens[n] = (int)l;
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "edit_matrix: %s: no strings\n", path);
        free(s); free(lens); return -1;
    }
    *out = s;
    *lens_out = lens;
    return n;
}

static int levenshtein(const char *a, int la, const char *b, int lb)
{
    int row[MAXLEN + 1];
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        char ca = a[i - 1];
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int best = diag + (ca != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int pair_less(const pair_t *x, const pair_t *y)
{
    if (x->d != y->d) return x->d < y->d;
    if (x->i != y->i) return x->i < y->i;
    return x->j < y->j;
}

/* insert p into a sorted list of at most cap entries */
static void keep_best(pair_t *list, int *count, int cap, pair_t p)
{
    int c = *count;
    if (c == cap && !pair_less(&p, &list[c - 1])) return;
    int k = (c < cap) ? c : cap - 1;
    while (k > 0 && pair_less(&p, &list[k - 1])) { list[k] = list[k - 1]; k--; }
    list[k] = p;
    if (c < cap) *count = c + 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s NAMES_FILE QUERIES_FILE\n", argv[0]);
        return 2;
    }
    char (*names)[MAXLEN + 1], (*queries)[MAXLEN + 1];
    int *nlen, *qlen;
    int n = read_lines(argv[1], &names, &nlen, MAXNAMES);
    if (n < 0) return 1;
    int nq = read_lines(argv[2], &queries, &qlen, MAXQUERIES);
    if (nq < 0) return 1;
    if (n < 2) { fprintf(stderr, "edit_matrix: %s: need at least two strings\n", argv[1]); return 1; }

    long long hist[MAXLEN + 1];
    memset(hist, 0, sizeof hist);
    pair_t *rowbest = malloc(sizeof(pair_t) * (size_t)n * TOPPAIRS);
    int *rowcount = calloc((size_t)n, sizeof(int));
    long long total = 0;

    /* upper triangle: row i compares with rows i+1..n-1 */
#pragma omp parallel for reduction(+:hist[:MAXLEN + 1]) reduction(+:total)
    for (int i = 0; i < n - 1; i++) {
        pair_t *mine = rowbest + (size_t)i * TOPPAIRS;
        int cnt = 0;
        for (int j = i + 1; j < n; j++) {
            int d = levenshtein(names[i], nlen[i], names[j], nlen[j]);
            hist[d]++;
            total += d;
            pair_t p = { d, i, j };
            keep_best(mine, &cnt, TOPPAIRS, p);
        }
        rowcount[i] = cnt;
    }

    pair_t best[TOPPAIRS];
    int nbest = 0;
    for (int i = 0; i < n - 1; i++)
        for (int k = 0; k < rowcount[i]; k++)
            keep_best(best, &nbest, TOPPAIRS, rowbest[(size_t)i * TOPPAIRS + k]);

    long long npairs = (long long)n * (n - 1) / 2;
    printf("strings: %d, pairs: %lld, mean distance: %.4f\n", n, npairs, (double)total / (double)npairs);
    printf("closest pairs:\n");
    for (int k = 0; k < nbest; k++)
        printf("  %2d  [%4d] %-40s  [%4d] %s\n", best[k].d, best[k].i, names[best[k].i], best[k].j, names[best[k].j]);

    printf("distance histogram:\n");
    long long peak = 1;
    for (int d = 0; d <= MAXLEN; d++) if (hist[d] > peak) peak = hist[d];
    for (int d = 0; d <= MAXLEN; d++) {
        if (hist[d] == 0) continue;
        int bar = (int)((hist[d] * 50 + peak - 1) / peak);
        printf("  %2d %9lld ", d, hist[d]);
        for (int b = 0; b < bar; b++) putchar('#');
        putchar('\n');
    }

    int *dist = malloc(sizeof(int) * (size_t)n);
    for (int q = 0; q < nq; q++) {
#pragma omp parallel for
        for (int j = 0; j < n; j++)
            dist[j] = levenshtein(queries[q], qlen[q], names[j], nlen[j]);
        pair_t nb[NEIGHBOURS];
        int cnt = 0;
        for (int j = 0; j < n; j++) {
            pair_t p = { dist[j], j, 0 };
            keep_best(nb, &cnt, NEIGHBOURS, p);
        }
        printf("query \"%s\":\n", queries[q]);
        for (int k = 0; k < cnt; k++)
            printf("  %2d  [%4d] %s\n", nb[k].d, nb[k].i, names[nb[k].i]);
    }

    free(dist); free(rowbest); free(rowcount);
    free(names); free(nlen); free(queries); free(qlen);
    return 0;
}
