/*
 * matrix_chain.c - optimal matrix-chain multiplication order.
 *
 * Classic O(n^3) dynamic programme: cost[i][j] is the cheapest way to
 * multiply matrices i..j.  All sub-chains of the same length are
 * independent, so each chain length is one parallel loop over start
 * indices.
 *
 * Input file: the number of dimensions N (= matrices + 1) followed by
 * N positive integers (at most 100000); matrix k has shape dims[k-1] x dims[k].
 *
 * usage: matrix_chain dims.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAX_DIMS 5001
#define MAX_DIM_VALUE 100000

static int *read_dims(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return NULL;
    }
    long n;
    if (fscanf(f, "%ld", &n) != 1 || n < 2 || n > MAX_DIMS) {
        fprintf(stderr, "error: %s: expected a dimension count between 2 and %d\n", path, MAX_DIMS);
        fclose(f);
        return NULL;
    }
    int *d = malloc(sizeof(int) * (size_t)n);
    for (long k = 0; k < n; k++) {
        long v;
        if (fscanf(f, "%ld", &v) != 1) {
            fprintf(stderr, "error: %s: expected %ld dimensions, found only %ld\n", path, n, k);
            free(d);
            fclose(f);
            return NULL;
        }
        if (v < 1 || v > MAX_DIM_VALUE) {
            fprintf(stderr, "error: %s: dimension %ld out of range (1..%d): %ld\n",
                    path, k, MAX_DIM_VALUE, v);
            free(d);
            fclose(f);
            return NULL;
        }
        d[k] = (int)v;
    }
    char extra[2];
    if (fscanf(f, "%1s", extra) == 1) {
        fprintf(stderr, "error: %s: unexpected data after %ld dimensions\n", path, n);
        free(d);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *count = (int)n;
    return d;
}

/* build the parenthesisation string for matrices i..j (1-based) */
static void build(const int *split, int n, int i, int j, char *out, size_t *pos,
                  int depth, int *maxdepth)
{
    if (i == j) {
        *pos += (size_t)sprintf(out + *pos, "A%d", i);
        return;
    }
    if (depth + 1 > *maxdepth)
        *maxdepth = depth + 1;
    out[(*pos)++] = '(';
    int k = split[(size_t)i * (n + 1) + j];
    build(split, n, i, k, out, pos, depth + 1, maxdepth);
    build(split, n, k + 1, j, out, pos, depth + 1, maxdepth);
    out[(*pos)++] = ')';
    out[*pos] = '\0';
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s dims.txt\n", argv[0]);
        return 2;
    }
    int nd;
    int *p = read_dims(argv[1], &nd);
    if (!p)
        return 1;
    int n = nd - 1;                         /* number of matrices, 1..n */
    size_t w = (size_t)n + 1;

    uint64_t *cost = calloc(w * w, sizeof *cost);     /* cheapest order */
    uint64_t *worst = calloc(w * w, sizeof *worst);   /* most expensive order */
    int *split = calloc(w * w, sizeof *split);
    if (!cost || !worst || !split) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    for (int len = 2; len <= n; len++) {
        #pragma omp parallel for
        for (int i = 1; i <= n - len + 1; i++) {
            int j = i + len - 1;
            uint64_t best = UINT64_MAX, most = 0;
            int bestk = i;
            for (int k = i; k < j; k++) {
                uint64_t here = (uint64_t)p[i - 1] * (uint64_t)p[k] * (uint64_t)p[j];
                uint64_t c = cost[(size_t)i * w + k] + cost[(size_t)(k + 1) * w + j] + here;
                uint64_t x = worst[(size_t)i * w + k] + worst[(size_t)(k + 1) * w + j] + here;
                if (c < best) {
                    best = c;
                    bestk = k;
                }
                if (x > most)
                    most = x;
            }
            cost[(size_t)i * w + j] = best;
            worst[(size_t)i * w + j] = most;
            split[(size_t)i * w + j] = bestk;
        }
    }

    /* naive left-to-right cost for comparison */
    uint64_t naive = 0;
    for (int k = 2; k <= n; k++)
        naive += (uint64_t)p[0] * (uint64_t)p[k - 1] * (uint64_t)p[k];

    size_t cap = (size_t)n * 12 + 16;
    char *paren = malloc(cap);
    size_t pos = 0;
    int depth = 0;
    paren[0] = '\0';
    build(split, n, 1, n, paren, &pos, 0, &depth);

    uint64_t best = n >= 1 ? cost[1 * w + n] : 0;
    printf("matrices: %d\n", n);
    printf("minimal scalar multiplications: %llu\n", (unsigned long long)best);
    printf("left-to-right order would need: %llu\n", (unsigned long long)naive);
    printf("worst possible order would need: %llu\n", (unsigned long long)worst[1 * w + n]);
    printf("top-level split after matrix: %d\n", n >= 2 ? split[1 * w + n] : 1);
    printf("parenthesisation depth: %d\n", depth);
    printf("parenthesisation length: %zu characters\n", pos);
    printf("first 200 characters: %.200s\n", paren);

    free(paren);
    free(cost);
    free(worst);
    free(split);
    free(p);
    return 0;
}
