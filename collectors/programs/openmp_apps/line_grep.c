/* line_grep: occurrences of 40 fixed patterns (Horspool search) in every line of a generated text, per-pattern totals and a histogram of matches per line.
 * Category: text processing (imbalanced: heavy-tailed line lengths, a few lines thousands of times longer than most).
 * Sizes: MIRTUNE_SIZE=1 -> 32000 lines, about 5 MB of text; MIRTUNE_SIZE=2 -> 140000 lines, about 22 MB of text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NLINES 140000
#else
#define NLINES 32000
#endif
#define NPAT 40
#define NVOCAB 256
#define NBINS 64

static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;

static unsigned int next_u32(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (unsigned int)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Heavy-tailed line length: mostly 10..100 characters, some 300..1500, and rare
 * lines of 30000..120000 characters (six times denser in the first quarter). */
static long line_length(long i, long nlines)
{
    unsigned int u = next_u32();
    unsigned int rare = (i < nlines / 4) ? 6u : 1u;
    if (u % 2000u < rare)
        return 30000 + (long)(next_u32() % 90000u);
    if (u % 41u == 0)
        return 300 + (long)(next_u32() % 1200u);
    return 10 + (long)(next_u32() % 90u);
}

/* Number of (possibly overlapping) occurrences of pat[0..m-1] in s[0..n-1]. */
static int horspool_count(const char *s, long n, const char *pat, int m, const int *skip)
{
    int count = 0;
    long pos = 0;
    const unsigned char last = (unsigned char)pat[m - 1];
    while (pos + m <= n) {
        const unsigned char c = (unsigned char)s[pos + m - 1];
        if (c == last && memcmp(s + pos, pat, (size_t)(m - 1)) == 0)
            count++;
        pos += skip[c];
    }
    return count;
}

int main(void)
{
    const long nlines = NLINES;
    long *start = malloc(sizeof(long) * (nlines + 1));
    int *counts = malloc(sizeof(int) * nlines * NPAT);
    char vocab[NVOCAB][12];
    int vlen[NVOCAB];
    char pats[NPAT][32];
    int plen[NPAT];
    static int skip[NPAT][256];
    if (!start || !counts)
        return 1;

    /* Vocabulary of pseudo-words over a 16-letter alphabet (frequent partial matches). */
    for (int w = 0; w < NVOCAB; w++) {
        vlen[w] = 2 + (int)(next_u32() % 8u);
        for (int k = 0; k < vlen[w]; k++)
            vocab[w][k] = (char)('a' + next_u32() % 16u);
        vocab[w][vlen[w]] = '\0';
    }

    /* Line offsets, then the text itself: words from a skewed vocabulary distribution. */
    start[0] = 0;
    for (long i = 0; i < nlines; i++)
        start[i + 1] = start[i] + line_length(i, nlines);
    const long total_len = start[nlines];
    char *text = malloc((size_t)total_len + 16);
    if (!text)
        return 1;
    for (long i = 0; i < nlines; i++) {
        long p = start[i];
        const long end = start[i + 1];
        while (p < end) {
            unsigned int r = next_u32();
            int w = (int)((r & 0xFFu) * ((r >> 8) & 0xFFu) >> 8); /* small ids more frequent */
            for (int k = 0; k < vlen[w] && p < end; k++)
                text[p++] = vocab[w][k];
            if (p < end)
                text[p++] = ' ';
        }
    }

    /* Patterns: single words, " word " with blanks, two-word phrases and random strings. */
    for (int q = 0; q < NPAT; q++) {
        char buf[32];
        int m = 0;
        int w1 = (int)(next_u32() % 64u), w2 = (int)(next_u32() % NVOCAB);
        switch (q % 4) {
        case 0:
            m = snprintf(buf, sizeof buf, "%s", vocab[w1]);
            break;
        case 1:
            m = snprintf(buf, sizeof buf, " %s ", vocab[w2]);
            break;
        case 2:
            m = snprintf(buf, sizeof buf, "%s %s", vocab[w1], vocab[w2]);
            break;
        default:
            m = 4 + (int)(next_u32() % 8u);
            for (int k = 0; k < m; k++)
                buf[k] = (char)('a' + next_u32() % 16u);
            buf[m] = '\0';
            break;
        }
        if (m < 2) { /* keep every pattern at least two characters long */
            buf[1] = 'a';
            buf[2] = '\0';
            m = 2;
        }
        memcpy(pats[q], buf, (size_t)m + 1);
        plen[q] = m;
        for (int c = 0; c < 256; c++)
            skip[q][c] = m;
        for (int k = 0; k < m - 1; k++)
            skip[q][(unsigned char)buf[k]] = m - 1 - k;
    }

    /* Search every line for every pattern (cost proportional to the line length). */
#pragma omp parallel for
    for (long i = 0; i < nlines; i++) {
        const char *s = text + start[i];
        const long n = start[i + 1] - start[i];
        for (int q = 0; q < NPAT; q++)
            counts[i * NPAT + q] = horspool_count(s, n, pats[q], plen[q], skip[q]);
    }

    /* Per-pattern totals over all lines. */
    long long totals[NPAT];
    long long lines_with[NPAT];
#pragma omp parallel for
    for (int q = 0; q < NPAT; q++) {
        long long t = 0, l = 0;
        for (long i = 0; i < nlines; i++) {
            t += counts[i * NPAT + q];
            l += (counts[i * NPAT + q] > 0);
        }
        totals[q] = t;
        lines_with[q] = l;
    }

    /* Histogram of matches per line (capped at NBINS-1). */
    long long hist[NBINS];
    for (int b = 0; b < NBINS; b++)
        hist[b] = 0;
    long long matched_lines = 0;
#pragma omp parallel for reduction(+:hist[:NBINS], matched_lines)
    for (long i = 0; i < nlines; i++) {
        long long m = 0;
        for (int q = 0; q < NPAT; q++)
            m += counts[i * NPAT + q];
        hist[m < NBINS ? m : NBINS - 1]++;
        matched_lines += (m > 0);
    }

    unsigned long long h = 1469598103934665603ULL;
    for (int q = 0; q < NPAT; q++) {
        h = (h ^ (unsigned long long)totals[q]) * 1099511628211ULL;
        h = (h ^ (unsigned long long)lines_with[q]) * 1099511628211ULL;
    }
    for (int b = 0; b < NBINS; b++)
        h = (h ^ (unsigned long long)hist[b]) * 1099511628211ULL;
    long long grand = 0;
    for (int q = 0; q < NPAT; q++)
        grand += totals[q];
    printf("checksum: %lld\n", grand * 1000 + matched_lines % 1000 + (long long)(h % 1000000007ULL) * 1000000000LL);
    free(start); free(counts); free(text);
    return 0;
}
