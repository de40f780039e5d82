/*
 * prefix_scan.c - inclusive 64-bit prefix sum of a long integer series with a
 * two-pass blocked parallel scan, then a search for the positions where the
 * running sum crosses (upwards) each multiple of a threshold.
 *
 * The series is x[i] = A[i mod nA] + B[i mod nB], where A and B are the two
 * input series (files of 32-bit integers) and the length is given on the
 * command line.
 *
 * usage: prefix_scan SERIES_A SERIES_B LENGTH THRESHOLD
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>
#include <omp.h>

#define BLOCK 65536

static int32_t *read_series(const char *path, long *count)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "prefix_scan: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char hdr[8];
    if (fread(hdr, 1, 8, f) != 8 || memcmp(hdr, "SCN1", 4) != 0) {
        fprintf(stderr, "prefix_scan: %s: not a series file (bad header)\n", path);
        fclose(f);
        return NULL;
    }
    long n = (long)hdr[4] | (long)hdr[5] << 8 | (long)hdr[6] << 16 | (long)hdr[7] << 24;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (n < 1 || size != 8 + 4 * n) {
        fprintf(stderr, "prefix_scan: %s: malformed series (header says %ld values, file has %ld bytes)\n",
                path, n, size);
        fclose(f);
        return NULL;
    }
    fseek(f, 8, SEEK_SET);
    unsigned char *raw = malloc(4 * n);
    int32_t *v = malloc(4 * n);
    if (!raw || !v) {
        fprintf(stderr, "prefix_scan: out of memory\n");
        exit(1);
    }
    if (fread(raw, 4, n, f) != (size_t)n) {
        fprintf(stderr, "prefix_scan: %s: read error\n", path);
        fclose(f);
        return NULL;
    }
    fclose(f);
    for (long i = 0; i < n; i++)
        v[i] = (int32_t)((uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                         (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24);
    free(raw);
    *count = n;
    return v;
}

static inline long long floordiv(long long a, long long t)
{
    long long q = a / t;
    if (a % t != 0 && a < 0) q--;
    return q;
}

static int parse_long(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0) return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long long length, threshold;
    if (argc != 5 || parse_long(argv[3], &length) || parse_long(argv[4], &threshold) ||
        length < 1 || length > 2000000000LL || threshold < 1) {
        fprintf(stderr, "usage: %s SERIES_A SERIES_B LENGTH THRESHOLD   (LENGTH, THRESHOLD > 0)\n", argv[0]);
        return 2;
    }
    long na, nb;
    int32_t *A = read_series(argv[1], &na);
    if (!A) return 1;
    int32_t *B = read_series(argv[2], &nb);
    if (!B) return 1;

    long n = (long)length;
    long nblocks = (n + BLOCK - 1) / BLOCK;
    int32_t *x = malloc((size_t)n * sizeof *x);
    int64_t *pre = malloc((size_t)n * sizeof *pre);
    int64_t *bsum = malloc((size_t)nblocks * sizeof *bsum);
    long *bcross = malloc((size_t)nblocks * sizeof *bcross);
    int64_t *bmax = malloc((size_t)nblocks * sizeof *bmax);
    int64_t *bmin = malloc((size_t)nblocks * sizeof *bmin);
    long *bmax_at = malloc((size_t)nblocks * sizeof *bmax_at);
    long *bmin_at = malloc((size_t)nblocks * sizeof *bmin_at);
    if (!x || !pre || !bsum || !bcross || !bmax || !bmin || !bmax_at || !bmin_at) {
        fprintf(stderr, "prefix_scan: out of memory\n");
        return 1;
    }

    /* expand the two series into the working array */
    #pragma omp parallel for
    for (long i = 0; i < n; i++)
        x[i] = A[i % na] + B[i % nb];

    /* pass 1: per-block sums */
    #pragma omp parallel for
    for (long b = 0; b < nblocks; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        int64_t s = 0;
        for (long i = lo; i < hi; i++) s += x[i];
        bsum[b] = s;
    }

    /* sequential exclusive scan over block sums */
    int64_t run = 0;
    for (long b = 0; b < nblocks; b++) {
        int64_t s = bsum[b];
        bsum[b] = run;
        run += s;
    }

    /* pass 2: local scans plus block offsets */
    #pragma omp parallel for
    for (long b = 0; b < nblocks; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        int64_t s = bsum[b];
        for (long i = lo; i < hi; i++) {
            s += x[i];
            pre[i] = s;
        }
    }
    int64_t total = pre[n - 1];

    /* crossings: i is a crossing when floor(pre[i]/T) > floor(pre[i-1]/T);
       count them per block, and find each block's extreme running sums */
    const long long T = threshold;
    #pragma omp parallel for
    for (long b = 0; b < nblocks; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        long long qprev = floordiv(lo ? pre[lo - 1] : 0, T);
        long c = 0;
        int64_t mx = pre[lo], mn = pre[lo];
        long mx_at = lo, mn_at = lo;
        for (long i = lo; i < hi; i++) {
            long long q = floordiv(pre[i], T);
            if (q > qprev) c++;
            qprev = q;
            if (pre[i] > mx) { mx = pre[i]; mx_at = i; }
            if (pre[i] < mn) { mn = pre[i]; mn_at = i; }
        }
        bcross[b] = c;
        bmax[b] = mx; bmax_at[b] = mx_at;
        bmin[b] = mn; bmin_at[b] = mn_at;
    }
    long ncross = 0;
    for (long b = 0; b < nblocks; b++) {
        long c = bcross[b];
        bcross[b] = ncross;
        ncross += c;
    }
    long *pos = malloc((size_t)(ncross ? ncross : 1) * sizeof *pos);
    if (!pos) {
        fprintf(stderr, "prefix_scan: out of memory\n");
        return 1;
    }
    #pragma omp parallel for
    for (long b = 0; b < nblocks; b++) {
        long lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        long next = b + 1 < nblocks ? bcross[b + 1] : ncross;
        long k = bcross[b];
        if (k == next) continue;          /* no crossing in this block */
        long long qprev = floordiv(lo ? pre[lo - 1] : 0, T);
        for (long i = lo; i < hi; i++) {
            long long q = floordiv(pre[i], T);
            if (q > qprev) pos[k++] = i;
            qprev = q;
        }
    }

    /* extreme values of the running sum (per block, combined in order) */
    int64_t best_max = bmax[0], best_min = bmin[0];
    long at_max = bmax_at[0], at_min = bmin_at[0];
    for (long b = 1; b < nblocks; b++) {
        if (bmax[b] > best_max) { best_max = bmax[b]; at_max = bmax_at[b]; }
        if (bmin[b] < best_min) { best_min = bmin[b]; at_min = bmin_at[b]; }
    }

    printf("series: %ld values (A: %ld, B: %ld), %ld blocks of %d\n", n, na, nb, nblocks, BLOCK);
    printf("total: %lld\n", (long long)total);
    printf("running sum: min %lld at %ld, max %lld at %ld\n",
           (long long)best_min, at_min, (long long)best_max, at_max);
    printf("threshold %lld: %ld upward crossings\n", T, ncross);
    printf("first crossings (position: multiple):");
    for (long k = 0; k < ncross && k < 10; k++)
        printf(" %ld:%lld", pos[k], floordiv(pre[pos[k]], T));
    printf("\nlast crossings (position: multiple):");
    for (long k = ncross > 10 ? ncross - 10 : 0; k < ncross; k++)
        printf(" %ld:%lld", pos[k], floordiv(pre[pos[k]], T));
    printf("\n");

    free(A); free(B); free(x); free(pre); free(bsum); free(bcross); free(pos);
    free(bmax); free(bmin); free(bmax_at); free(bmin_at);
    return 0;
}
