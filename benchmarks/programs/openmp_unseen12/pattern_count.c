/*
 * pattern_count.c - count (overlapping) occurrences of many patterns in a text.
 *
 * Usage: pattern_count <text file> <pattern file>
 *
 * The pattern file holds one pattern per line (3 to 60 bytes, taken verbatim,
 * spaces included).  Each pattern is searched independently over the whole
 * text with the Boyer-Moore-Horspool algorithm; patterns are handed out to
 * threads by a parallel loop.  Short patterns allow only short shifts and so
 * cost far more than long ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_LEN 3
#define MAX_LEN 60
#define MAX_PATTERNS 100000
#define TOP 15

typedef struct {
    char text[MAX_LEN + 1];
    int len;
} Pattern;

static long horspool_count(const unsigned char *t, long n, const unsigned char *p, int m)
{
    long shift[256];
    for (int c = 0; c < 256; c++)
        shift[c] = m;
    for (int i = 0; i < m - 1; i++)
        shift[p[i]] = m - 1 - i;
    unsigned char last = p[m - 1];
    long count = 0;
    long pos = 0;
    while (pos + m <= n) {
        unsigned char c = t[pos + m - 1];
        if (c == last && memcmp(t + pos, p, (size_t)(m - 1)) == 0)
            count++;
        pos += shift[c];
    }
    return count;
}

static unsigned char *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "pattern_count: cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)sz + 1);
    if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        fprintf(stderr, "pattern_count: cannot read %s\n", path);
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[sz] = 0;
    *len = sz;
    return buf;
}

static int group_of(int len)
{
    if (len <= 4) return 0;
    if (len <= 8) return 1;
    if (len <= 16) return 2;
    if (len <= 32) return 3;
    return 4;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <text file> <pattern file>\n", argv[0]);
        return 2;
    }
    long tlen;
    unsigned char *text = read_file(argv[1], &tlen);
    if (!text)
        return 1;
    if (tlen == 0) {
        fprintf(stderr, "pattern_count: %s: empty text\n", argv[1]);
        return 1;
    }

    long plen;
    unsigned char *praw = read_file(argv[2], &plen);
    if (!praw)
        return 1;
    Pattern *pats = malloc(sizeof(Pattern) * MAX_PATTERNS);
    if (!pats) {
        fprintf(stderr, "pattern_count: out of memory\n");
        return 1;
    }
    int np = 0;
    long lineno = 0;
    for (long i = 0; i < plen;) {
        long j = i;
        while (j < plen && praw[j] != '\n')
            j++;
        lineno++;
        long l = j - i;
        if (l > 0 && praw[j - 1] == '\r')
            l--;
        if (l < MIN_LEN || l > MAX_LEN) {
            fprintf(stderr, "pattern_count: %s:%ld: pattern length %ld outside %d..%d\n",
                    argv[2], lineno, l, MIN_LEN, MAX_LEN);
            return 1;
        }
        if (np == MAX_PATTERNS) {
            fprintf(stderr, "pattern_count: %s: more than %d patterns\n", argv[2], MAX_PATTERNS);
            return 1;
        }
        memcpy(pats[np].text, praw + i, (size_t)l);
        pats[np].text[l] = 0;
        pats[np].len = (int)l;
        np++;
        i = j + 1;
    }
    free(praw);
    if (np == 0) {
        fprintf(stderr, "pattern_count: %s: no patterns\n", argv[2]);
        return 1;
    }

    long *count = malloc(sizeof(long) * np);
#pragma omp parallel for
    for (int k = 0; k < np; k++)
        count[k] = horspool_count(text, tlen, (const unsigned char *)pats[k].text, pats[k].len);

    /* ranking: count descending, then file order */
    int *order = malloc(sizeof(int) * np);
    for (int k = 0; k < np; k++)
        order[k] = k;
    for (int a = 1; a < np; a++) {
        int v = order[a], b = a;
        while (b > 0 && (count[order[b - 1]] < count[v] ||
                         (count[order[b - 1]] == count[v] && order[b - 1] > v))) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = v;
    }

    static const char *gname[5] = {"3-4", "5-8", "9-16", "17-32", "33-60"};
    long gtotal[5] = {0}, gpats[5] = {0}, gzero[5] = {0};
    long total = 0, zero = 0;
    for (int k = 0; k < np; k++) {
        int g = group_of(pats[k].len);
        gtotal[g] += count[k];
        gpats[g]++;
        if (count[k] == 0) {
            gzero[g]++;
            zero++;
        }
        total += count[k];
    }

    printf("text: %ld bytes, %d patterns\n", tlen, np);
    int top = np < TOP ? np : TOP;
    printf("%d most frequent patterns:\n", top);
    for (int r = 0; r < top; r++) {
        int k = order[r];
        printf("  %2d. %9ld  \"%s\" (length %d)\n", r + 1, count[k], pats[k].text, pats[k].len);
    }
    printf("total occurrences: %ld, patterns never found: %ld\n", total, zero);
    printf("by pattern length:\n");
    for (int g = 0; g < 5; g++)
        printf("  length %-5s: %3ld patterns, %9ld occurrences, %3ld not found\n",
               gname[g], gpats[g], gtotal[g], gzero[g]);

    free(order);
    free(count);
    free(pats);
    free(text);
    return 0;
}
