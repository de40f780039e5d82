/* csr_transpose: build a CSR matrix from coordinate records and transpose it.
 *
 * usage: csr_transpose PART_FILE [PART_FILE ...]
 *
 * The parts are read in the order given and the CSR rows keep the file
 * order of their entries.  The transpose counts the entries of every column
 * in a parallel loop over rows (atomic increments), takes a sequential prefix
 * sum, fills the transposed arrays in a parallel loop over rows (atomic
 * capture on per-column cursors) and finally sorts every column by (row,
 * value) in a parallel loop, which makes the result independent of the order
 * in which threads filled it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAX_DIM (1 << 20)
#define VAL_BIAS (1 << 19)
#define TOP 10
#define RANGES 8

struct coo {
    int nrows, ncols;
    int64_t nnz;
    int32_t *row, *col, *val;
};

static int read_part(const char *path, struct coo *M, int first)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "csr_transpose: cannot open %s\n", path);
        return -1;
    }
    char magic[4];
    uint32_t hdr[3];
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "COOP", 4) != 0 ||
        fread(hdr, sizeof(uint32_t), 3, f) != 3 || hdr[0] < 1 || hdr[0] > MAX_DIM ||
        hdr[1] < 1 || hdr[1] > MAX_DIM || hdr[2] > 100000000u) {
        fprintf(stderr, "csr_transpose: malformed part file %s\n", path);
        fclose(f);
        return -1;
    }
    if (first) {
        M->nrows = (int)hdr[0];
        M->ncols = (int)hdr[1];
    } else if (M->nrows != (int)hdr[0] || M->ncols != (int)hdr[1]) {
        fprintf(stderr, "csr_transpose: %s has different dimensions\n", path);
        fclose(f);
        return -1;
    }
    size_t cnt = hdr[2];
    uint64_t *rec = malloc(sizeof(uint64_t) * (cnt ? cnt : 1));
    if (fread(rec, sizeof(uint64_t), cnt, f) != cnt || fgetc(f) != EOF) {
        fprintf(stderr, "csr_transpose: malformed part file %s (wrong length)\n", path);
        free(rec);
        fclose(f);
        return -1;
    }
    fclose(f);
    int64_t base = M->nnz;
    M->row = realloc(M->row, sizeof(int32_t) * (base + cnt));
    M->col = realloc(M->col, sizeof(int32_t) * (base + cnt));
    M->val = realloc(M->val, sizeof(int32_t) * (base + cnt));
    for (size_t i = 0; i < cnt; i++) {
        uint64_t w = rec[i];
        uint32_t r = (uint32_t)(w >> 40), c = (uint32_t)((w >> 20) & 0xFFFFF);
        int32_t v = (int32_t)(w & 0xFFFFF);
        if (v >= VAL_BIAS)
            v -= 2 * VAL_BIAS;
        if (r >= (uint32_t)M->nrows || c >= (uint32_t)M->ncols) {
            fprintf(stderr, "csr_transpose: entry out of range in %s\n", path);
            free(rec);
            return -1;
        }
        M->row[base + i] = (int32_t)r;
        M->col[base + i] = (int32_t)c;
        M->val[base + i] = v;
    }
    M->nnz = base + cnt;
    free(rec);
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_keys(uint64_t *k, int64_t n)
{
    if (n > 24) {
        qsort(k, (size_t)n, sizeof(uint64_t), cmp_u64);
        return;
    }
    for (int64_t i = 1; i < n; i++) {
        uint64_t x = k[i];
        int64_t j = i - 1;
        while (j >= 0 && k[j] > x) {
            k[j + 1] = k[j];
            j--;
        }
        k[j + 1] = x;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PART_FILE [PART_FILE ...]\n", argv[0]);
        return 2;
    }
    struct coo M = {0, 0, 0, NULL, NULL, NULL};
    for (int a = 1; a < argc; a++)
        if (read_part(argv[a], &M, a == 1) != 0)
            return 1;
    const int nr = M.nrows, nc = M.ncols;
    const int64_t nnz = M.nnz;

    /* CSR, entries of a row in file order */
    int64_t *rptr = calloc((size_t)nr + 1, sizeof(int64_t));
    int32_t *cidx = malloc(sizeof(int32_t) * (nnz ? nnz : 1));
    int32_t *cval = malloc(sizeof(int32_t) * (nnz ? nnz : 1));
    for (int64_t e = 0; e < nnz; e++)
        rptr[M.row[e] + 1]++;
    for (int r = 0; r < nr; r++)
        rptr[r + 1] += rptr[r];
    int64_t *fillpos = malloc(sizeof(int64_t) * (size_t)nr);
    memcpy(fillpos, rptr, sizeof(int64_t) * (size_t)nr);
    for (int64_t e = 0; e < nnz; e++) {
        int64_t p = fillpos[M.row[e]]++;
        cidx[p] = M.col[e];
        cval[p] = M.val[e];
    }
    free(fillpos);
    free(M.row);
    free(M.col);
    free(M.val);

    /* transpose: count entries per column */
    int64_t *cptr = calloc((size_t)nc + 1, sizeof(int64_t));
    #pragma omp parallel for
    for (int r = 0; r < nr; r++)
        for (int64_t p = rptr[r]; p < rptr[r + 1]; p++) {
            #pragma omp atomic
            cptr[cidx[p] + 1]++;
        }
    for (int c = 0; c < nc; c++)
        cptr[c + 1] += cptr[c];

    /* fill: (row, value) keys, in whatever order the threads arrive */
    int64_t *cursor = malloc(sizeof(int64_t) * (size_t)nc);
    memcpy(cursor, cptr, sizeof(int64_t) * (size_t)nc);
    uint64_t *key = malloc(sizeof(uint64_t) * (nnz ? nnz : 1));
    #pragma omp parallel for
    for (int r = 0; r < nr; r++)
        for (int64_t p = rptr[r]; p < rptr[r + 1]; p++) {
            int c = cidx[p];
            int64_t slot;
            #pragma omp atomic capture
            slot = cursor[c]++;
            key[slot] = ((uint64_t)r << 21) | (uint64_t)(cval[p] + VAL_BIAS);
        }
    free(cursor);

    /* sort every column, then split the keys into row indices and values */
    int32_t *trow = malloc(sizeof(int32_t) * (nnz ? nnz : 1));
    int32_t *tval = malloc(sizeof(int32_t) * (nnz ? nnz : 1));
    #pragma omp parallel for
    for (int c = 0; c < nc; c++) {
        sort_keys(key + cptr[c], cptr[c + 1] - cptr[c]);
        for (int64_t p = cptr[c]; p < cptr[c + 1]; p++) {
            trow[p] = (int32_t)(key[p] >> 21);
            tval[p] = (int32_t)(key[p] & ((1u << 21) - 1)) - VAL_BIAS;
        }
    }
    free(key);

    /* entries repeating a (row, column) pair: in the sorted transpose they
     * follow an entry of the same row in the same column */
    int64_t dup = 0;
    #pragma omp parallel for reduction(+ : dup)
    for (int c = 0; c < nc; c++)
        for (int64_t p = cptr[c] + 1; p < cptr[c + 1]; p++)
            if (trow[p] == trow[p - 1])
                dup++;

    printf("matrix %d x %d, %lld nonzeros read from %d part(s)\n", nr, nc, (long long)nnz,
           argc - 1);
    printf("entries sharing a (row, column) with an earlier one: %lld\n", (long long)dup);

    /* degree statistics of the columns (rows of the transpose) */
    int64_t maxdeg = 0, empty = 0;
    int64_t hist[24] = {0};
    for (int c = 0; c < nc; c++) {
        int64_t d = cptr[c + 1] - cptr[c];
        if (d > maxdeg)
            maxdeg = d;
        if (d == 0)
            empty++;
        int b = 0;
        while (b < 23 && ((int64_t)1 << b) <= d)
            b++;
        hist[b]++;
    }
    int64_t rmax = 0;
    for (int r = 0; r < nr; r++)
        if (rptr[r + 1] - rptr[r] > rmax)
            rmax = rptr[r + 1] - rptr[r];
    printf("row degree: mean %.3f max %lld;  column degree: mean %.3f max %lld, %lld empty columns\n",
           (double)nnz / nr, (long long)rmax, (double)nnz / nc, (long long)maxdeg,
           (long long)empty);
    printf("column degree histogram:");
    for (int b = 0; b < 24; b++) {
        if (!hist[b])
            continue;
        if (b == 0)
            printf(" [0]:%lld", (long long)hist[b]);
        else
            printf(" [%lld,%lld):%lld", (long long)1 << (b - 1), (long long)1 << b,
                   (long long)hist[b]);
    }
    printf("\n");

    /* heaviest columns, ties by index */
    int top[TOP];
    int ntop = 0;
    for (int c = 0; c < nc; c++) {
        int64_t d = cptr[c + 1] - cptr[c];
        int pos = ntop;
        while (pos > 0 && cptr[top[pos - 1] + 1] - cptr[top[pos - 1]] < d)
            pos--;
        if (pos >= TOP)
            continue;
        if (ntop < TOP)
            ntop++;
        for (int i = ntop - 1; i > pos; i--)
            top[i] = top[i - 1];
        top[pos] = c;
    }
    printf("heaviest columns:\n");
    for (int i = 0; i < ntop; i++) {
        int c = top[i];
        int64_t lo = cptr[c], hi = cptr[c + 1];
        int64_t s = 0;
        for (int64_t p = lo; p < hi; p++)
            s += tval[p];
        printf("  column %6d: %6lld entries, rows %d..%d, value sum %lld\n", c,
               (long long)(hi - lo), hi > lo ? trow[lo] : -1, hi > lo ? trow[hi - 1] : -1,
               (long long)s);
    }

    /* value sums over column ranges, each summed in column order */
    printf("value sums by column range:\n");
    int64_t total = 0;
    for (int k = 0; k < RANGES; k++) {
        int c0 = (int)((int64_t)nc * k / RANGES), c1 = (int)((int64_t)nc * (k + 1) / RANGES);
        int64_t s = 0, rowsum = 0;
        for (int64_t p = cptr[c0]; p < cptr[c1]; p++) {
            s += tval[p];
            rowsum += trow[p];
        }
        total += s;
        printf("  columns %6d..%6d: %8lld entries, value sum %10lld, mean row %.2f\n", c0,
               c1 - 1, (long long)(cptr[c1] - cptr[c0]), (long long)s,
               cptr[c1] > cptr[c0] ? (double)rowsum / (double)(cptr[c1] - cptr[c0]) : 0.0);
    }
    int64_t csr_total = 0;
    for (int64_t p = 0; p < nnz; p++)
        csr_total += cval[p];
    printf("value total %lld (CSR %lld, %s)\n", (long long)total, (long long)csr_total,
           total == csr_total ? "match" : "MISMATCH");

    free(trow);
    free(tval);
    free(cptr);
    free(rptr);
    free(cidx);
    free(cval);
    return 0;
}
