/*
 * bloom_index: build a Bloom filter from a word list and measure it on queries.
 *
 * Usage: bloom_index <words file> <queries file>
 *
 * The word file has one word per line.  The query file has a line
 * "#present N" followed by N words known to be in the list, then a line
 * "#absent M" followed by M words known not to be in it.  The filter has
 * 2^25 bits and 7 hash functions; words are inserted in parallel with atomic
 * OR updates on 64-bit words of the bit array, and queries are checked in a
 * parallel loop with reductions.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define LOG2_BITS 25
#define NBITS (1u << LOG2_BITS)
#define NWORDS64 (NBITS / 64)
#define NHASH 7
#define MAXWORD 64
#define LENCLASSES 13 /* lengths 1..11, 12+, and index 0 unused */

typedef struct {
    char *buf;      /* file contents, lines NUL-terminated */
    char **line;    /* start of each line */
    int *len;       /* length of each line */
    long n;
} lines_t;

static void die(const char *path, const char *msg)
{
    fprintf(stderr, "bloom_index: %s: %s\n", path, msg);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bloom_index: out of memory\n");
        exit(1);
    }
    return p;
}

static lines_t read_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path, "cannot open file");
    size_t cap = 1 << 20, size = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (size + 65536 + 1 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf)
                die(path, "out of memory");
        }
        size_t got = fread(buf + size, 1, 65536, f);
        if (got == 0)
            break;
        size += got;
    }
    fclose(f);
    if (size == 0 || buf[size - 1] != '\n')
        die(path, "empty file or missing final newline");
    long n = 0;
    for (size_t i = 0; i < size; i++)
        if (buf[i] == '\n')
            n++;
    lines_t L = {buf, xmalloc((size_t)n * sizeof(char *)), xmalloc((size_t)n * sizeof(int)), n};
    long k = 0;
    size_t start = 0;
    for (size_t i = 0; i < size; i++) {
        if (buf[i] == '\n') {
            size_t len = i - start;
            if (len > 0 && buf[i - 1] == '\r')
                len--;
            if (len == 0 || len > MAXWORD) {
                fprintf(stderr, "bloom_index: %s: line %ld: empty or too long\n", path, k + 1);
                exit(1);
            }
            buf[start + len] = '\0';
            L.line[k] = buf + start;
            L.len[k] = (int)len;
            k++;
            start = i + 1;
        } else if ((unsigned char)buf[i] < 32 && buf[i] != '\r') {
            die(path, "control character in word");
        }
    }
    return L;
}

/* Hash function number `seed` of the family: a byte-wise multiply/xor-shift
 * hash with a final avalanche, reduced to a bit position. */
static inline uint32_t bloom_hash(const char *w, int len, uint64_t seed)
{
    uint64_t h = 0x9e3779b97f4a7c15ull * (seed + 1) ^ (uint64_t)len;
    for (int i = 0; i < len; i++) {
        h ^= (unsigned char)w[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 31;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 32;
    return (uint32_t)(h & (NBITS - 1));
}

static int len_class(int len)
{
    return len < LENCLASSES - 1 ? len : LENCLASSES - 1;
}

static long parse_count(const char *path, const char *line, const char *tag)
{
    size_t tl = strlen(tag);
    if (strncmp(line, tag, tl) != 0)
        return -1;
    char *end;
    long v = strtol(line + tl, &end, 10);
    if (*end != '\0' || v < 0) {
        fprintf(stderr, "bloom_index: %s: bad header \"%s\"\n", path, line);
        exit(1);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <words file> <queries file>\n", argv[0]);
        return 2;
    }
    lines_t words = read_lines(argv[1]);
    lines_t queries = read_lines(argv[2]);

    long npresent = parse_count(argv[2], queries.line[0], "#present ");
    if (npresent < 0 || npresent + 2 > queries.n)
        die(argv[2], "missing or bad \"#present N\" header");
    long nabsent = parse_count(argv[2], queries.line[npresent + 1], "#absent ");
    if (nabsent < 0 || npresent + nabsent + 2 != queries.n)
        die(argv[2], "missing \"#absent M\" header or wrong number of queries");

    uint64_t *bits = calloc(NWORDS64, sizeof(uint64_t));
    if (!bits) {
        fprintf(stderr, "bloom_index: out of memory\n");
        return 1;
    }

    long nw = words.n;
    long words_by_len[LENCLASSES] = {0};
#pragma omp parallel for reduction(+ : words_by_len[:LENCLASSES])
    for (long i = 0; i < nw; i++) {
        const char *w = words.line[i];
        int len = words.len[i];
        for (int k = 0; k < NHASH; k++) {
            uint32_t b = bloom_hash(w, len, (uint64_t)k);
            uint64_t mask = 1ull << (b & 63);
#pragma omp atomic
            bits[b >> 6] |= mask;
        }
        words_by_len[len_class(len)]++;
    }

    long set_bits = 0;
#pragma omp parallel for reduction(+ : set_bits)
    for (long i = 0; i < (long)NWORDS64; i++)
        set_bits += __builtin_popcountll(bits[i]);

    /* queries: lines 1..npresent are present words, then absent ones */
    long nq = queries.n;
    long q_by_len[LENCLASSES] = {0}, abs_by_len[LENCLASSES] = {0}, fp_by_len[LENCLASSES] = {0};
    long false_neg = 0, false_pos = 0, true_pos = 0;
#pragma omp parallel for reduction(+ : q_by_len[:LENCLASSES], abs_by_len[:LENCLASSES], fp_by_len[:LENCLASSES], false_neg, false_pos, true_pos)
    for (long i = 1; i < nq; i++) {
        if (i == npresent + 1)
            continue; /* the "#absent" header */
        const char *w = queries.line[i];
        int len = queries.len[i];
        int hit = 1;
        for (int k = 0; k < NHASH && hit; k++) {
            uint32_t b = bloom_hash(w, len, (uint64_t)k);
            if (!(bits[b >> 6] >> (b & 63) & 1))
                hit = 0;
        }
        int lc = len_class(len);
        q_by_len[lc]++;
        if (i <= npresent) {
            if (hit)
                true_pos++;
            else
                false_neg++;
        } else {
            abs_by_len[lc]++;
            if (hit) {
                false_pos++;
                fp_by_len[lc]++;
            }
        }
    }

    double fill = (double)set_bits / NBITS;
    double expected = pow(1.0 - exp(-(double)NHASH * nw / NBITS), NHASH);
    printf("filter: %u bits, %d hash functions, %ld words inserted\n", NBITS, NHASH, nw);
    printf("bits set: %ld (fill ratio %.4f)\n", set_bits, fill);
    printf("queries: %ld present, %ld absent\n", npresent, nabsent);
    printf("present words found: %ld, missed: %ld\n", true_pos, false_neg);
    printf("false positives: %ld of %ld absent (%.4f%%, theory %.4f%%)\n", false_pos, nabsent,
           nabsent ? 100.0 * false_pos / nabsent : 0.0, 100.0 * expected);
    printf("length   words  queries   absent  false pos  fp rate%%\n");
    for (int c = 1; c < LENCLASSES; c++) {
        if (!words_by_len[c] && !q_by_len[c])
            continue;
        printf("%4d%s %8ld %8ld %8ld %10ld  %8.4f\n", c, c == LENCLASSES - 1 ? "+" : " ",
               words_by_len[c], q_by_len[c], abs_by_len[c], fp_by_len[c],
               abs_by_len[c] ? 100.0 * fp_by_len[c] / abs_by_len[c] : 0.0);
    }

    free(bits);
    free(words.buf);
    free(words.line);
    free(words.len);
    free(queries.buf);
    free(queries.line);
    free(queries.len);
    return 0;
}
