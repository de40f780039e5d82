/* cache_sim: trace-driven simulation of set-associative LRU caches.
 * Every configuration of the list is simulated over the whole trace; the
 * configurations are independent and run in one parallel loop.
 *
 * usage: cache_sim trace.bin configs.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long size;
    int assoc, line;
    long sets;
    long long misses, cold, evict_dirtyish;
} Config;

static int ilog2(long v)
{
    int k = 0;
    while ((1L << k) < v) k++;
    return (1L << k) == v ? k : -1;
}

/* one configuration: each set keeps its tags in recency order (MRU first) */
static void simulate(const uint32_t *tr, long n, Config *c)
{
    int lb = ilog2(c->line), sb = ilog2(c->sets), A = c->assoc;
    uint32_t smask = (uint32_t)c->sets - 1;
    uint32_t *tags = malloc(sizeof(uint32_t) * (size_t)c->sets * A);
    unsigned char *fill = calloc((size_t)c->sets, 1);
    /* first-touch bitmap over line numbers for compulsory misses */
    size_t nbits = (size_t)1 << (32 - lb);
    uint64_t *seen = calloc(nbits / 64 + 1, sizeof(uint64_t));
    long long misses = 0, cold = 0, evictions = 0;
    for (long i = 0; i < n; i++) {
        uint32_t lineno = tr[i] >> lb;
        uint32_t set = lineno & smask, tag = lineno >> sb;
        uint32_t *t = tags + (size_t)set * A;
        int f = fill[set], w;
        for (w = 0; w < f; w++)
            if (t[w] == tag) break;
        if (w < f) {                         /* hit: move to front */
            for (int k = w; k > 0; k--) t[k] = t[k - 1];
            t[0] = tag;
            continue;
        }
        misses++;
        if ((seen[lineno >> 6] >> (lineno & 63) & 1) == 0) {
            seen[lineno >> 6] |= 1ULL << (lineno & 63);
            cold++;
        }
        if (f < A) fill[set] = (unsigned char)(f + 1);
        else { f = A - 1; evictions++; }
        for (int k = f; k > 0; k--) t[k] = t[k - 1];
        t[0] = tag;
    }
    c->misses = misses;
    c->cold = cold;
    c->evict_dirtyish = evictions;
    free(tags); free(fill); free(seen);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s trace.bin configs.txt\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { fprintf(stderr, "cache_sim: cannot open %s\n", argv[1]); return 1; }
    unsigned char hdr[8];
    if (fread(hdr, 1, 8, f) != 8 || memcmp(hdr, "CTR1", 4) != 0) {
        fprintf(stderr, "cache_sim: %s: not a CTR1 trace\n", argv[1]); fclose(f); return 1;
    }
    long n = (long)hdr[4] | (long)hdr[5] << 8 | (long)hdr[6] << 16 | (long)hdr[7] << 24;
    if (n < 1) { fprintf(stderr, "cache_sim: %s: empty trace\n", argv[1]); fclose(f); return 1; }
    unsigned char *raw = malloc((size_t)n * 4);
    uint32_t *tr = malloc(sizeof(uint32_t) * (size_t)n);
    if (!raw || !tr || fread(raw, 4, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cache_sim: %s: truncated trace\n", argv[1]); fclose(f); return 1;
    }
    fclose(f);
    for (long i = 0; i < n; i++)
        tr[i] = (uint32_t)raw[4 * i] | (uint32_t)raw[4 * i + 1] << 8 |
                (uint32_t)raw[4 * i + 2] << 16 | (uint32_t)raw[4 * i + 3] << 24;
    free(raw);

    f = fopen(argv[2], "r");
    if (!f) { fprintf(stderr, "cache_sim: cannot open %s\n", argv[2]); return 1; }
    Config *cf = NULL;
    int nc = 0, cap = 0, lineno = 0;
    char buf[256];
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == 0) continue;
        long size; int assoc, line;
        if (sscanf(p, "%ld %d %d", &size, &assoc, &line) != 3 || ilog2(line) < 2 || ilog2(line) > 12 ||
            assoc < 1 || assoc > 255 || size < (long)assoc * line || size % ((long)assoc * line) ||
            ilog2(size / ((long)assoc * line)) < 0 || size > (1L << 30)) {
            fprintf(stderr, "cache_sim: %s: bad configuration on line %d\n", argv[2], lineno);
            fclose(f); return 1;
        }
        if (nc == cap) { cap = cap ? 2 * cap : 64; cf = realloc(cf, sizeof(Config) * cap); }
        cf[nc].size = size; cf[nc].assoc = assoc; cf[nc].line = line;
        cf[nc].sets = size / ((long)assoc * line);
        nc++;
    }
    fclose(f);
    if (nc == 0) { fprintf(stderr, "cache_sim: %s: no configurations\n", argv[2]); return 1; }

    #pragma omp parallel for
    for (int i = 0; i < nc; i++) simulate(tr, n, &cf[i]);

    printf("trace: %ld accesses, %d configurations\n", n, nc);
    printf("%10s %5s %5s %7s %10s %10s %9s\n", "size", "assoc", "line", "sets", "misses", "cold", "miss%");
    for (int i = 0; i < nc; i++) {
        char sz[32];
        if (cf[i].size >= 1L << 20 && cf[i].size % (1L << 20) == 0) snprintf(sz, sizeof sz, "%ldM", cf[i].size >> 20);
        else if (cf[i].size % 1024 == 0) snprintf(sz, sizeof sz, "%ldK", cf[i].size >> 10);
        else snprintf(sz, sizeof sz, "%ld", cf[i].size);
        printf("%10s %5d %5d %7ld %10lld %10lld %9.4f\n", sz, cf[i].assoc, cf[i].line, cf[i].sets,
               cf[i].misses, cf[i].cold, 100.0 * (double)cf[i].misses / (double)n);
    }
    /* best associativity gain per size: miss reduction of the most over the least associative */
    printf("conflict misses removed by associativity (least -> most associative of each size):\n");
    for (int i = 0; i < nc; i++) {
        int lo = -1, hi = -1;
        int first = 1;
        for (int j = 0; j < i; j++)
            if (cf[j].size == cf[i].size && cf[j].line == cf[i].line) first = 0;
        if (!first) continue;
        for (int j = 0; j < nc; j++) {
            if (cf[j].size != cf[i].size || cf[j].line != cf[i].line) continue;
            if (lo < 0 || cf[j].assoc < cf[lo].assoc) lo = j;
            if (hi < 0 || cf[j].assoc > cf[hi].assoc) hi = j;
        }
        if (lo != hi)
            printf("  %8ld B: %d-way %lld -> %d-way %lld misses (%+.2f%%)\n", cf[i].size,
                   cf[lo].assoc, cf[lo].misses, cf[hi].assoc, cf[hi].misses,
                   cf[lo].misses ? 100.0 * (double)(cf[hi].misses - cf[lo].misses) / (double)cf[lo].misses : 0.0);
    }
    free(cf); free(tr);
    return 0;
}
