/*
 * knapsack_rows: exact 0/1 knapsack by dynamic programming over capacities.
 * best[c] = highest value packable within weight c using the items seen so
 * far; one new row per item, computed from the previous one.  A bit table
 * records which (item, capacity) cells took the item so that the chosen set
 * can be reconstructed.
 *
 * usage: knapsack_rows ITEMS.txt CAPACITY
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Noreturn static void fail(const char *path, const char *msg)
{
    fprintf(stderr, "knapsack_rows: %s: %s\n", path, msg);
    exit(1);
}

static int next_line(FILE *f, char *buf, int len)
{
    while (fgets(buf, len, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#' && *p != '\n' && *p != '\r' && *p != '\0')
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long cap = argc == 3 ? strtol(argv[2], &end, 10) : 0;
    if (argc != 3 || *end != '\0' || cap < 1 || cap > 10000000L) {
        fprintf(stderr, "usage: %s ITEMS.txt CAPACITY   (1 <= CAPACITY <= 10000000)\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    FILE *f = fopen(path, "r");
    if (!f)
        fail(path, "cannot open item file");
    char line[256];
    int n;
    if (!next_line(f, line, sizeof line) || sscanf(line, "count %d", &n) != 1 || n < 1 || n > 1000000)
        fail(path, "missing or bad 'count N' line");
    int *w = malloc((size_t)n * sizeof(int)), *v = malloc((size_t)n * sizeof(int));
    if (!w || !v)
        fail(path, "out of memory");
    for (int i = 0; i < n; i++) {
        int id;
        if (!next_line(f, line, sizeof line))
            fail(path, "fewer items than announced");
        if (sscanf(line, "%d %d %d", &id, &w[i], &v[i]) != 3 || id != i + 1 || w[i] < 1 || v[i] < 0 ||
            v[i] > 1000000)
            fail(path, "malformed item line");
    }
    if (next_line(f, line, sizeof line))
        fail(path, "more items than announced");
    fclose(f);

    const long ncap = cap + 1;
    const long nwords = (ncap + 63) / 64;
    long long *prev = calloc((size_t)ncap, sizeof(long long));
    long long *cur = calloc((size_t)ncap, sizeof(long long));
    uint64_t *take = malloc((size_t)n * (size_t)nwords * sizeof(uint64_t));
    if (!prev || !cur || !take) {
        fprintf(stderr, "knapsack_rows: out of memory for capacity %ld\n", cap);
        return 1;
    }

    for (int i = 0; i < n; i++) {
        const long wi = w[i];
        const long long vi = v[i];
        uint64_t *row = take + (size_t)i * (size_t)nwords;
        /* each iteration owns 64 capacities, i.e. one word of the bit table */
#pragma omp parallel for
        for (long q = 0; q < nwords; q++) {
            long lo = q * 64, hi = lo + 64 < ncap ? lo + 64 : ncap;
            uint64_t bits = 0;
            for (long c = lo; c < hi; c++) {
                long long keep = prev[c];
                if (c >= wi && prev[c - wi] + vi > keep) {
                    cur[c] = prev[c - wi] + vi;
                    bits |= (uint64_t)1 << (c - lo);
                } else {
                    cur[c] = keep;
                }
            }
            row[q] = bits;
        }
        long long *t = prev;
        prev = cur;
        cur = t;
    }

    /* reconstruct the chosen items from the last row backwards */
    long c = cap, chosen = 0, weight = 0;
    long long value = 0;
    int first = -1, last = -1;
    for (int i = n - 1; i >= 0; i--) {
        const uint64_t *row = take + (size_t)i * (size_t)nwords;
        if ((row[c / 64] >> (c % 64)) & 1u) {
            c -= w[i];
            chosen++;
            weight += w[i];
            value += v[i];
            if (last < 0)
                last = i;
            first = i;
        }
    }

    long long total_v = 0, total_w = 0;
    for (int i = 0; i < n; i++) {
        total_v += v[i];
        total_w += w[i];
    }
    printf("items: %d (total weight %lld, total value %lld), capacity: %ld\n", n, total_w, total_v, cap);
    printf("best value: %lld\n", prev[cap]);
    printf("chosen items: %ld, weight %ld, value %lld (%s)\n", chosen, weight, value,
           value == prev[cap] && weight <= cap ? "consistent" : "INCONSISTENT");
    if (chosen > 0)
        printf("first chosen item id: %d, last chosen item id: %d\n", first + 1, last + 1);
    for (int k = 1; k <= 8; k++) {
        long cc = cap * k / 8;
        printf("best value within capacity %7ld: %lld\n", cc, prev[cc]);
    }
    free(prev); free(cur); free(take); free(w); free(v);
    return 0;
}
