/*
 * lzblock.c - estimate DEFLATE-style compression of a file, block by block,
 * at every compression level (like a tiny lzbench for one codec).
 *
 * Each block is compressed independently: LZ77 with hash chains (greedy
 * matching for the fast levels, lazy matching for the others, zlib-style
 * tuning table), then the literal/length and distance symbols are given
 * length-limited Huffman codes and the exact coded size is counted.  Every
 * block is decoded again from its tokens and compared with the input.
 *
 * Usage: lzblock FILE [block_kib] [max_level]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MIN_MATCH 3
#define MAX_MATCH 258
#define WINDOW 32768
#define HASH_BITS 15
#define HASH_SIZE (1 << HASH_BITS)
#define MAX_BITS 15
#define NLIT 286
#define NDIST 30

typedef struct {
    int good, lazy, nice, chain;
} Level;

/* after zlib's configuration_table; levels 1-3 use greedy parsing */
static const Level levels[10] = {
    {0, 0, 0, 0}, {4, 4, 8, 4}, {4, 5, 16, 8}, {4, 6, 32, 32},
    {4, 4, 16, 16}, {8, 16, 32, 32}, {8, 16, 128, 128},
    {8, 32, 128, 256}, {32, 128, 258, 1024}, {32, 258, 258, 4096},
};

static const int len_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const int len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                  3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const int dist_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                  257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
                                  8193, 12289, 16385, 24577};
static const int dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                   7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

typedef struct {
    uint16_t *litlen;   /* literal byte, or match length */
    uint16_t *dist;     /* 0 for a literal */
    int32_t *head;
    int32_t *prev;
    uint8_t *out;
} Work;

typedef struct {
    long bits;
    int matches;
    int ok;
} Result;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE [block_kib=32 (1..1024)] [max_level=9 (1..9)]\n", prog);
    exit(2);
}

static inline unsigned hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (v * 2654435761u) >> (32 - HASH_BITS);
}

static inline void insert(Work *w, const uint8_t *buf, int pos, int len)
{
    if (pos + MIN_MATCH > len)
        return;
    unsigned h = hash3(buf + pos);
    w->prev[pos] = w->head[h];
    w->head[h] = pos;
}

static int longest_match(const Work *w, const uint8_t *buf, int pos, int len,
                         const Level *lv, int prev_len, int *match_pos)
{
    int chain = lv->chain;
    if (prev_len >= lv->good)
        chain >>= 2;
    int best = prev_len;
    int maxlen = len - pos < MAX_MATCH ? len - pos : MAX_MATCH;
    if (maxlen < MIN_MATCH || prev_len >= maxlen)
        return 0;
    int cand = w->prev[pos];
    while (cand >= 0 && pos - cand <= WINDOW && chain-- > 0) {
        if (buf[cand + best] == buf[pos + best] && buf[cand] == buf[pos]) {
            int l = 0;
            while (l < maxlen && buf[cand + l] == buf[pos + l])
                l++;
            if (l > best) {
                best = l;
                *match_pos = cand;
                if (l >= lv->nice || l == maxlen)
                    break;
            }
        }
        cand = w->prev[cand];
    }
    return best > prev_len ? best : 0;
}

#define EMIT(l, d) (w->litlen[nt] = (uint16_t)(l), w->dist[nt++] = (uint16_t)(d))

/* LZ77 parse of buf[0..len); returns number of tokens */
static int lz_parse(Work *w, const uint8_t *buf, int len, const Level *lv, int lazy)
{
    for (int i = 0; i < HASH_SIZE; i++)
        w->head[i] = -1;
    int nt = 0, pos = 0;
    if (!lazy) {
        while (pos < len) {
            insert(w, buf, pos, len);
            int mp = 0, ml = longest_match(w, buf, pos, len, lv, MIN_MATCH - 1, &mp);
            if (ml >= MIN_MATCH) {
                EMIT(ml, pos - mp);
                for (int k = 1; k < ml; k++)
                    insert(w, buf, pos + k, len);
                pos += ml;
            } else {
                EMIT(buf[pos], 0);
                pos++;
            }
        }
        return nt;
    }
    /* lazy evaluation: defer a match if the next position has a longer one */
    int prev_len = 0, prev_pos = 0, have_prev = 0;
    while (pos < len) {
        insert(w, buf, pos, len);
        int mp = 0, ml = 0;
        if (!have_prev || prev_len < lv->lazy)
            ml = longest_match(w, buf, pos, len, lv, prev_len > MIN_MATCH - 1 ? prev_len : MIN_MATCH - 1, &mp);
        if (have_prev && prev_len >= MIN_MATCH && ml <= prev_len) {
            /* take the previous match, starting at pos-1 */
            EMIT(prev_len, pos - 1 - prev_pos);
            for (int k = 1; k < prev_len - 1; k++)
                insert(w, buf, pos + k, len);
            pos += prev_len - 1;
            have_prev = 0;
            prev_len = 0;
            continue;
        }
        if (have_prev)
            EMIT(buf[pos - 1], 0);
        have_prev = 1;
        prev_len = ml;
        prev_pos = mp;
        pos++;
    }
    if (have_prev)
        EMIT(buf[len - 1], 0);
    return nt;
}

/* index of the last base <= v in an ascending table */
static int code_of(const int *base, int n, int v)
{
    int c = 0;
    while (c < n - 1 && base[c + 1] <= v)
        c++;
    return c;
}

/* Huffman code lengths for freq[0..n), limited to maxbits (halve and retry). */
static void huffman_lengths(const long *freq_in, int n, int maxbits, int *lens)
{
    long freq[NLIT];
    int parent[2 * NLIT];
    long weight[2 * NLIT];
    memcpy(freq, freq_in, sizeof(long) * (size_t)n);
    for (;;) {
        int nodes = 0, leaves = 0;
        int idx[NLIT];
        for (int i = 0; i < n; i++) {
            lens[i] = 0;
            if (freq[i] > 0) {
                weight[nodes] = freq[i];
                idx[leaves++] = i;
                parent[nodes++] = -1;
            }
        }
        if (leaves == 0)
            return;
        if (leaves == 1) { /* a lone symbol still needs a 1-bit code */
            lens[idx[0]] = 1;
            return;
        }
        /* simple O(n^2) merging of the two lightest live nodes */
        char live[2 * NLIT];
        memset(live, 1, (size_t)nodes);
        for (int merges = 0; merges < leaves - 1; merges++) {
            int m1 = -1, m2 = -1;
            for (int k = 0; k < nodes; k++) {
                if (!live[k])
                    continue;
                if (m1 < 0 || weight[k] < weight[m1]) {
                    m2 = m1;
                    m1 = k;
                } else if (m2 < 0 || weight[k] < weight[m2]) {
                    m2 = k;
                }
            }
            live[m1] = live[m2] = 0;
            weight[nodes] = weight[m1] + weight[m2];
            parent[nodes] = -1;
            parent[m1] = parent[m2] = nodes;
            live[nodes++] = 1;
        }
        int too_long = 0;
        for (int k = 0; k < leaves; k++) {
            int d = 0;
            for (int p = k; parent[p] >= 0; p = parent[p])
                d++;
            lens[idx[k]] = d;
            if (d > maxbits)
                too_long = 1;
        }
        if (!too_long)
            return;
        for (int i = 0; i < n; i++)
            if (freq[i] > 0)
                freq[i] = (freq[i] + 1) / 2;
    }
}

/* exact size in bits of a dynamic-Huffman block holding these tokens */
static long coded_bits(const Work *w, int nt, int *matches)
{
    long lf[NLIT] = {0}, df[NDIST] = {0};
    long extra = 0;
    int nm = 0;
    for (int t = 0; t < nt; t++) {
        if (w->dist[t] == 0) {
            lf[w->litlen[t]]++;
        } else {
            int lc = code_of(len_base, 29, w->litlen[t]), dc = code_of(dist_base, 30, w->dist[t]);
            lf[257 + lc]++;
            df[dc]++;
            extra += len_extra[lc] + dist_extra[dc];
            nm++;
        }
    }
    lf[256] = 1; /* end of block */
    int ll[NLIT], dl[NDIST];
    huffman_lengths(lf, NLIT, MAX_BITS, ll);
    huffman_lengths(df, NDIST, MAX_BITS, dl);
    long bits = extra;
    for (int i = 0; i < NLIT; i++)
        bits += lf[i] * ll[i];
    for (int i = 0; i < NDIST; i++)
        bits += df[i] * dl[i];
    /* header: 3 + 14 bits, code-length code, ~4 bits per transmitted length */
    int hlit = NLIT, hdist = NDIST;
    while (hlit > 257 && ll[hlit - 1] == 0)
        hlit--;
    while (hdist > 1 && dl[hdist - 1] == 0)
        hdist--;
    bits += 17 + 19 * 3 + 4L * (hlit + hdist);
    *matches = nm;
    return bits;
}

static int decode_check(const Work *w, int nt, const uint8_t *buf, int len)
{
    int o = 0;
    for (int t = 0; t < nt; t++) {
        if (w->dist[t] == 0) {
            if (o >= len)
                return 0;
            w->out[o++] = (uint8_t)w->litlen[t];
        } else {
            int d = w->dist[t], l = w->litlen[t];
            if (d > o || o + l > len)
                return 0;
            for (int k = 0; k < l; k++, o++)
                w->out[o] = w->out[o - d];
        }
    }
    return o == len && memcmp(w->out, buf, (size_t)len) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4)
        usage(argv[0]);
    int block_kib = 32, max_level = 9;
    char *end;
    if (argc > 2) {
        block_kib = (int)strtol(argv[2], &end, 10);
        if (*end || block_kib < 1 || block_kib > 1024)
            usage(argv[0]);
    }
    if (argc > 3) {
        max_level = (int)strtol(argv[3], &end, 10);
        if (*end || max_level < 1 || max_level > 9)
            usage(argv[0]);
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size <= 0) {
        fprintf(stderr, "error: '%s' is empty or unreadable\n", argv[1]);
        fclose(f);
        return 1;
    }
    uint8_t *data = malloc((size_t)size);
    if (fread(data, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "error: short read on '%s'\n", argv[1]);
        fclose(f);
        return 1;
    }
    fclose(f);

    const int bsize = block_kib * 1024;
    const int nblocks = (int)((size + bsize - 1) / bsize);
    Result *res = calloc((size_t)max_level * nblocks, sizeof(Result));

    double t0 = omp_get_wtime();
    #pragma omp parallel
    {
        Work w;
        w.litlen = malloc(sizeof(uint16_t) * (size_t)bsize);
        w.dist = malloc(sizeof(uint16_t) * (size_t)bsize);
        w.head = malloc(sizeof(int32_t) * HASH_SIZE);
        w.prev = malloc(sizeof(int32_t) * (size_t)bsize);
        w.out = malloc((size_t)bsize);
        #pragma omp for collapse(2)
        for (int lv = 1; lv <= max_level; lv++)
            for (int b = 0; b < nblocks; b++) {
                const uint8_t *buf = data + (size_t)b * bsize;
                int len = (b == nblocks - 1) ? (int)(size - (long)b * bsize) : bsize;
                int nt = lz_parse(&w, buf, len, &levels[lv], lv >= 4);
                Result *r = &res[(size_t)(lv - 1) * nblocks + b];
                r->bits = coded_bits(&w, nt, &r->matches);
                long stored = 8L * (len + 5);
                if (r->bits > stored)
                    r->bits = stored;
                r->ok = decode_check(&w, nt, buf, len);
            }
        free(w.out), free(w.prev), free(w.head), free(w.dist), free(w.litlen);
    }
    double t1 = omp_get_wtime();

    printf("input: %s, %ld bytes, %d blocks of %d KiB\n", argv[1], size, nblocks, block_kib);
    printf("level  compressed   ratio  matches   best blk  worst blk\n");
    int bad = 0;
    for (int lv = 1; lv <= max_level; lv++) {
        long bits = 0, matches = 0;
        double best = 1e9, worst = 0.0;
        int bb = 0, wb = 0;
        for (int b = 0; b < nblocks; b++) {
            const Result *r = &res[(size_t)(lv - 1) * nblocks + b];
            int len = (b == nblocks - 1) ? (int)(size - (long)b * bsize) : bsize;
            double ratio = (double)r->bits / (8.0 * len);
            bits += r->bits;
            matches += r->matches;
            if (ratio < best) {
                best = ratio;
                bb = b;
            }
            if (ratio > worst) {
                worst = ratio;
                wb = b;
            }
            if (!r->ok)
                bad++;
        }
        long bytes = (bits + 7) / 8;
        printf("%5d  %10ld  %6.4f  %7ld  %3d %5.3f  %3d %5.3f\n", lv, bytes,
               (double)bytes / (double)size, matches, bb, best, wb, worst);
    }
    printf("round trip: %s (%d of %d block encodings failed)\n", bad ? "FAILED" : "ok", bad,
           max_level * nblocks);
    fprintf(stderr, "compression time: %.3f s\n", t1 - t0);
    free(res);
    free(data);
    return bad ? 1 : 0;
}
