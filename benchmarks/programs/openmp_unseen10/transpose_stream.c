/* transpose_stream: blocked out-of-place transposes of a large float matrix.
 *
 * usage: transpose_stream PARAM_FILE
 *
 * PARAM_FILE holds "seed S" and "size N" lines (N a multiple of 64).  The
 * N x N matrix is filled from the seed, transposed back and forth six times
 * and after every transpose its row and column sums are computed (each sum
 * in a fixed order, so the printed figures do not depend on the threads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define BLOCK 64
#define PASSES 6

static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int read_params(const char *path, unsigned long long *seed, long *n)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "transpose_stream: cannot open %s\n", path); return -1; }
    char key[32];
    int have_seed = 0, have_size = 0;
    while (fscanf(f, "%31s", key) == 1) {
        if (key[0] == '#') { int ch; while ((ch = fgetc(f)) != EOF && ch != '\n') {} continue; }
        if (strcmp(key, "seed") == 0 && fscanf(f, "%llu", seed) == 1) have_seed = 1;
        else if (strcmp(key, "size") == 0 && fscanf(f, "%ld", n) == 1) have_size = 1;
        else {
            fprintf(stderr, "transpose_stream: %s: unexpected entry '%s'\n", path, key);
            fclose(f); return -1;
        }
    }
    fclose(f);
    if (!have_seed || !have_size) {
        fprintf(stderr, "transpose_stream: %s: need both 'seed' and 'size'\n", path);
        return -1;
    }
    if (*n < BLOCK || *n > 11008 || *n % BLOCK != 0) {
        fprintf(stderr, "transpose_stream: %s: size must be a multiple of %d between %d and 11008\n", path, BLOCK, BLOCK);
        return -1;
    }
    return 0;
}

/* dst = transpose(src), both n x n, in BLOCK x BLOCK tiles */
static void transpose(float *restrict dst, const float *restrict src, long n)
{
    long nb = n / BLOCK;
#pragma omp parallel for
    for (long t = 0; t < nb * nb; t++) {
        long bi = (t / nb) * BLOCK, bj = (t % nb) * BLOCK;
        for (long i = bi; i < bi + BLOCK; i++)
            for (long j = bj; j < bj + BLOCK; j++)
                dst[j * n + i] = src[i * n + j];
    }
}

static void row_sums(const float *m, long n, double *rs)
{
#pragma omp parallel for
    for (long i = 0; i < n; i++) {
        const float *r = m + i * n;
        double s = 0.0;
        for (long j = 0; j < n; j++) s += r[j];
        rs[i] = s;
    }
}

static void col_sums(const float *m, long n, double *cs)
{
    long nb = n / BLOCK;
#pragma omp parallel for
    for (long b = 0; b < nb; b++) {
        double acc[BLOCK];
        for (int k = 0; k < BLOCK; k++) acc[k] = 0.0;
        for (long i = 0; i < n; i++) {
            const float *r = m + i * n + b * BLOCK;
            for (int k = 0; k < BLOCK; k++) acc[k] += r[k];
        }
        for (int k = 0; k < BLOCK; k++) cs[b * BLOCK + k] = acc[k];
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PARAM_FILE\n", argv[0]);
        return 2;
    }
    unsigned long long seed = 0;
    long n = 0;
    if (read_params(argv[1], &seed, &n) != 0) return 1;

    size_t bytes = sizeof(float) * (size_t)n * (size_t)n;
    float *a = malloc(bytes), *b = malloc(bytes);
    double *rs = malloc(sizeof(double) * (size_t)n), *cs = malloc(sizeof(double) * (size_t)n);
    double *rs_prev = malloc(sizeof(double) * (size_t)n), *cs_prev = malloc(sizeof(double) * (size_t)n);
    if (!a || !b || !rs || !cs || !rs_prev || !cs_prev) {
        fprintf(stderr, "transpose_stream: out of memory for size %ld\n", n);
        return 1;
    }

    /* values in [-1, 1) with 1/1024 resolution, plus a gentle row/column trend */
#pragma omp parallel for
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            uint64_t h = mix64(seed ^ (uint64_t)(i * n + j));
            float v = (float)((int)(h >> 53) - 1024) / 1024.0f;
            a[i * n + j] = v + (float)(i % 97) / 128.0f - (float)(j % 61) / 256.0f;
        }

    printf("matrix: %ld x %ld floats (%.1f MiB per copy), seed %llu\n", n, n, (double)bytes / 1048576.0, seed);
    row_sums(a, n, rs_prev);
    col_sums(a, n, cs_prev);
    double tot = 0.0;
    for (long i = 0; i < n; i++) tot += rs_prev[i];
    printf("initial: total %.4f\n", tot);

    float *src = a, *dst = b;
    for (int p = 1; p <= PASSES; p++) {
        transpose(dst, src, n);
        row_sums(dst, n, rs);
        col_sums(dst, n, cs);
        /* rows of the transpose are the columns of the source, summed in the same order */
        long mism = 0;
        double trow = 0.0, tcol = 0.0, maxr = rs[0];
        long imax = 0;
        for (long i = 0; i < n; i++) {
            if (rs[i] != cs_prev[i] || cs[i] != rs_prev[i]) mism++;
            trow += rs[i];
            tcol += cs[i];
            if (rs[i] > maxr) { maxr = rs[i]; imax = i; }
        }
        printf("pass %d: row total %.4f, column total %.4f, largest row %ld (%.4f), "
               "corner %.6f %.6f, sums mismatching the previous matrix: %ld\n",
               p, trow, tcol, imax, maxr, dst[n - 1], dst[(n - 1) * n], mism);
        memcpy(rs_prev, rs, sizeof(double) * (size_t)n);
        memcpy(cs_prev, cs, sizeof(double) * (size_t)n);
        float *t = src; src = dst; dst = t;
    }
    long same = 0;
    for (size_t k = 0; k < (size_t)n * (size_t)n; k++)
        if (a[k] == src[k]) same++;
    printf("after %d transposes the matrix %s the original (%ld of %ld elements equal)\n",
           PASSES, (same == n * n) ? "equals" : "differs from", same, n * n);
    free(a); free(b); free(rs); free(cs); free(rs_prev); free(cs_prev);
    return 0;
}
