/*
 * spgemm_rows: square a sparse integer matrix, C = A*A, with Gustavson's
 * row-by-row algorithm.
 *
 * Input file format (little-endian):
 *   char[4]  magic "CSRI"
 *   uint32   n        (rows == columns)
 *   uint64   nnz
 *   int32    rowlen[n]
 *   int32    col[nnz] (strictly increasing inside each row)
 *   int8     val[nnz]
 *
 * Pass 1 (symbolic) counts the structural nonzeros of every row of C with a
 * per-thread marker array, pass 2 (numeric) computes the values of each row
 * with a per-thread dense accumulator and a list of touched columns and
 * reduces them to the reported statistics.
 *
 * usage: spgemm_rows matrix.bin top_k
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <omp.h>

#define NBINS 10

_Noreturn static void usage(void)
{
    fprintf(stderr, "usage: spgemm_rows MATRIX.bin TOP_K   (TOP_K in 1..100)\n");
    exit(2);
}

_Noreturn static void fail(const char *path, const char *what)
{
    fprintf(stderr, "spgemm_rows: %s: %s\n", path, what);
    exit(1);
}

typedef struct {
    int n;
    int64_t nnz;
    int64_t *rowptr;
    int32_t *col;
    int64_t *val;
} csr_t;

static void read_exact(FILE *f, void *buf, size_t sz, size_t cnt, const char *path)
{
    if (cnt && fread(buf, sz, cnt, f) != cnt)
        fail(path, "file is truncated");
}

static void load_matrix(const char *path, csr_t *A)
{
    FILE *f = fopen(path, "rb");
    if (!f) fail(path, strerror(errno));
    char magic[4];
    uint32_t n;
    uint64_t nnz;
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "CSRI", 4) != 0)
        fail(path, "not a CSRI matrix file");
    if (fread(&n, 4, 1, f) != 1 || fread(&nnz, 8, 1, f) != 1)
        fail(path, "file is truncated");
    if (n == 0 || n > 10000000u || nnz > (uint64_t)n * n || nnz > 200000000ull)
        fail(path, "implausible matrix dimensions");

    A->n = (int)n;
    A->nnz = (int64_t)nnz;
    A->rowptr = malloc(((size_t)n + 1) * sizeof(int64_t));
    int32_t *len = malloc((size_t)n * sizeof(int32_t));
    A->col = malloc((size_t)nnz * sizeof(int32_t) + 1);
    int8_t *v8 = malloc((size_t)nnz + 1);
    A->val = malloc((size_t)nnz * sizeof(int64_t) + 1);
    if (!A->rowptr || !len || !A->col || !v8 || !A->val) {
        fprintf(stderr, "spgemm_rows: out of memory\n");
        exit(1);
    }
    read_exact(f, len, sizeof(int32_t), n, path);
    read_exact(f, A->col, sizeof(int32_t), nnz, path);
    read_exact(f, v8, 1, nnz, path);
    if (fgetc(f) != EOF)
        fail(path, "trailing bytes after matrix data");
    fclose(f);

    A->rowptr[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (len[i] < 0 || len[i] > (int32_t)n)
            fail(path, "bad row length");
        A->rowptr[i + 1] = A->rowptr[i] + len[i];
    }
    if (A->rowptr[n] != (int64_t)nnz)
        fail(path, "row lengths do not add up to nnz");
    for (uint32_t i = 0; i < n; i++) {
        for (int64_t p = A->rowptr[i]; p < A->rowptr[i + 1]; p++) {
            if (A->col[p] < 0 || A->col[p] >= (int32_t)n)
                fail(path, "column index out of range");
            if (p > A->rowptr[i] && A->col[p] <= A->col[p - 1])
                fail(path, "column indices not strictly increasing in a row");
        }
    }
    for (int64_t p = 0; p < (int64_t)nnz; p++)
        A->val[p] = v8[p];
    free(len);
    free(v8);
}

static int log2_bin(int64_t len)
{
    /* bin 0: empty row, bin b (1..8): 2^(b-1) <= len < 2^b, bin 9: >= 256 */
    if (len == 0) return 0;
    int b = 1;
    while (b < NBINS - 1 && len >= ((int64_t)1 << b)) b++;
    return b;
}

int main(int argc, char **argv)
{
    if (argc != 3) usage();
    char *end;
    errno = 0;
    long topk = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || topk < 1 || topk > 100) usage();

    csr_t A;
    load_matrix(argv[1], &A);
    const int n = A.n;
    const int64_t *ap = A.rowptr;
    const int32_t *aj = A.col;
    const int64_t *av = A.val;

    /* ---- pass 1: symbolic, count nnz of each row of C ---- */
    int64_t *cptr = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!cptr) { fprintf(stderr, "spgemm_rows: out of memory\n"); return 1; }
    cptr[0] = 0;

    #pragma omp parallel
    {
        int *mark = malloc((size_t)n * sizeof(int));
        if (!mark) { fprintf(stderr, "spgemm_rows: out of memory\n"); exit(1); }
        for (int j = 0; j < n; j++) mark[j] = -1;

        #pragma omp for
        for (int i = 0; i < n; i++) {
            int64_t cnt = 0;
            for (int64_t p = ap[i]; p < ap[i + 1]; p++) {
                int k = aj[p];
                for (int64_t q = ap[k]; q < ap[k + 1]; q++) {
                    int j = aj[q];
                    if (mark[j] != i) {
                        mark[j] = i;
                        cnt++;
                    }
                }
            }
            cptr[i + 1] = cnt;
        }
        free(mark);
    }
    for (int i = 0; i < n; i++) cptr[i + 1] += cptr[i];
    const int64_t cnnz = cptr[n];

    /* ---- pass 2: numeric, dense accumulator + touched-column list ----
     * Only statistics of C are reported, so the values are reduced row by
     * row instead of being stored (C can have ~10^8 entries). */
    int64_t total = 0, zeros = 0, maxabs = 0, bad_rows = 0;
    #pragma omp parallel
    {
        int64_t *acc = calloc((size_t)n, sizeof(int64_t));
        char *used = calloc((size_t)n, 1);
        int32_t *touched = malloc((size_t)n * sizeof(int32_t));
        if (!acc || !used || !touched) { fprintf(stderr, "spgemm_rows: out of memory\n"); exit(1); }

        #pragma omp for reduction(+:total, zeros, bad_rows) reduction(max:maxabs)
        for (int i = 0; i < n; i++) {
            int nt = 0;
            for (int64_t p = ap[i]; p < ap[i + 1]; p++) {
                int k = aj[p];
                int64_t a = av[p];
                for (int64_t q = ap[k]; q < ap[k + 1]; q++) {
                    int j = aj[q];
                    if (!used[j]) {
                        used[j] = 1;
                        touched[nt++] = j;
                    }
                    acc[j] += a * av[q];
                }
            }
            if (nt != cptr[i + 1] - cptr[i]) bad_rows++;
            for (int t = 0; t < nt; t++) {
                int j = touched[t];
                int64_t c = acc[j];
                total += c;
                zeros += (c == 0);
                int64_t m = c < 0 ? -c : c;
                if (m > maxabs) maxabs = m;
                acc[j] = 0;
                used[j] = 0;
            }
        }
        free(acc);
        free(used);
        free(touched);
    }
    if (bad_rows) {
        fprintf(stderr, "spgemm_rows: internal error: symbolic and numeric passes disagree\n");
        return 1;
    }

    int64_t hist[NBINS] = {0};
    int k = (int)topk;
    int *top = malloc((size_t)k * sizeof(int));
    int ntop = 0;
    for (int i = 0; i < n; i++) {
        int64_t len = cptr[i + 1] - cptr[i];
        hist[log2_bin(len)]++;
        /* keep the k longest rows, ties broken by smaller row index */
        int pos = ntop;
        while (pos > 0 && cptr[top[pos - 1] + 1] - cptr[top[pos - 1]] < len) pos--;
        if (pos < k) {
            int last = ntop < k ? ntop : k - 1;
            for (int t = last; t > pos; t--) top[t] = top[t - 1];
            top[pos] = i;
            if (ntop < k) ntop++;
        }
    }

    printf("matrix: %d x %d\n", n, n);
    printf("nnz(A) = %lld\n", (long long)A.nnz);
    printf("nnz(C) = %lld (structural), explicit zeros from cancellation = %lld\n",
           (long long)cnnz, (long long)zeros);
    printf("longest rows of C:\n");
    for (int t = 0; t < ntop; t++) {
        int i = top[t];
        printf("  row %6d: %lld nonzeros (row %d of A has %lld)\n", i,
               (long long)(cptr[i + 1] - cptr[i]), i, (long long)(ap[i + 1] - ap[i]));
    }
    printf("row-length histogram of C:\n");
    for (int b = 0; b < NBINS; b++) {
        if (b == 0)
            printf("  %-12s %8lld\n", "0", (long long)hist[b]);
        else if (b == NBINS - 1)
            printf("  %-12s %8lld\n", ">= 256", (long long)hist[b]);
        else {
            char label[32];
            long lo = 1L << (b - 1), hi = (1L << b) - 1;
            if (lo == hi) snprintf(label, sizeof label, "%ld", lo);
            else snprintf(label, sizeof label, "%ld-%ld", lo, hi);
            printf("  %-12s %8lld\n", label, (long long)hist[b]);
        }
    }
    printf("largest |entry| of C = %lld\n", (long long)maxabs);
    printf("sum of all entries of C = %lld\n", (long long)total);

    free(top);
    free(cptr);
    free(A.rowptr); free(A.col); free(A.val);
    return 0;
}
