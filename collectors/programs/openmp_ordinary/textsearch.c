/*
 * textsearch.c - count whole-word occurrences of many patterns in a text.
 *
 * usage: textsearch patterns.txt corpus.txt [top]
 *
 * patterns.txt holds one word or phrase per line (blank lines and lines
 * starting with '#' are ignored).  Matching is case-insensitive and on whole
 * words: a match must not be preceded or followed by a letter or digit.
 * Matches never span lines of the corpus.
 *
 * The corpus is lower-cased once (parallel loop over lines); then the
 * patterns are searched in parallel, one pattern per iteration, each a scan
 * of the whole text.  Every thread marks the corpus lines it found matches
 * on in its own flag array; the arrays are OR-ed together afterwards.
 * Prints the total number of matches, the `top` most frequent patterns
 * (default 10) and how many lines contain at least one match.
 */
#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;
    long len;
} pattern_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s patterns.txt corpus.txt [top]\n", prog);
    fprintf(stderr, "  patterns.txt  one word or phrase per line\n");
    fprintf(stderr, "  corpus.txt    text to search\n");
    fprintf(stderr, "  top           how many patterns to list (default 10)\n");
}

static char *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    long cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += (long)got;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        fprintf(stderr, "error: cannot read '%s'\n", path);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int is_word(unsigned char c) { return isalnum(c); }

static int cmp_count(const void *a, const void *b, const long *count)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (count[i] != count[j])
        return count[i] > count[j] ? -1 : 1;
    return (i > j) - (i < j);
}

static const long *sort_counts;
static int cmp_idx(const void *a, const void *b) { return cmp_count(a, b, sort_counts); }

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int top = 10;
    if (argc == 4) {
        char *end;
        long t = strtol(argv[3], &end, 10);
        if (end == argv[3] || *end || t < 1 || t > 100000) {
            usage(argv[0]);
            return 2;
        }
        top = (int)t;
    }

    long plen, tlen;
    char *ptext = read_file(argv[1], &plen);
    if (!ptext)
        return 1;
    char *text = read_file(argv[2], &tlen);
    if (!text)
        return 1;
    if (memchr(text, '\0', tlen) || memchr(ptext, '\0', plen)) {
        fprintf(stderr, "error: binary data in input (NUL byte)\n");
        return 1;
    }

    /* patterns: trimmed, lower-cased, one per line */
    int np = 0, pcap = 256;
    pattern_t *pat = malloc(pcap * sizeof *pat);
    for (char *line = strtok(ptext, "\n"); line; line = strtok(NULL, "\n")) {
        long n = (long)strlen(line);
        while (n > 0 && isspace((unsigned char)line[n - 1]))
            line[--n] = '\0';
        while (*line && isspace((unsigned char)*line)) {
            line++;
            n--;
        }
        if (n == 0 || line[0] == '#')
            continue;
        if (!is_word((unsigned char)line[0]) || !is_word((unsigned char)line[n - 1])) {
            fprintf(stderr, "error: %s: pattern '%s' must start and end with a letter or digit\n",
                    argv[1], line);
            return 1;
        }
        if (np == pcap) {
            pcap *= 2;
            pat = realloc(pat, pcap * sizeof *pat);
        }
        for (long i = 0; i < n; i++)
            line[i] = (char)tolower((unsigned char)line[i]);
        pat[np].text = line;
        pat[np].len = n;
        np++;
    }
    if (np == 0) {
        fprintf(stderr, "error: %s: no patterns\n", argv[1]);
        return 1;
    }

    /* line starts of the corpus */
    long nlines = 0, lcap = 1024;
    long *lstart = malloc((lcap + 1) * sizeof(long));
    lstart[nlines++] = 0;
    for (long i = 0; i < tlen; i++) {
        if (text[i] == '\n' && i + 1 < tlen) {
            if (nlines == lcap) {
                lcap *= 2;
                lstart = realloc(lstart, (lcap + 1) * sizeof(long));
            }
            lstart[nlines++] = i + 1;
        }
    }
    lstart[nlines] = tlen;

    /* lower-case the corpus, line by line */
    char *low = malloc(tlen + 1);
    long words = 0;
    #pragma omp parallel for reduction(+:words)
    for (long l = 0; l < nlines; l++) {
        for (long i = lstart[l]; i < lstart[l + 1]; i++) {
            unsigned char c = (unsigned char)text[i];
            low[i] = (char)tolower(c);
            if (is_word(c) && (i == lstart[l] || !is_word((unsigned char)text[i - 1])))
                words++;
        }
    }
    low[tlen] = '\0';

    long *count = calloc(np, sizeof(long));
    unsigned char *line_hit = calloc(nlines, 1);

    #pragma omp parallel
    {
        unsigned char *mine = calloc(nlines, 1);
        #pragma omp for
        for (int p = 0; p < np; p++) {
            const char *s = pat[p].text;
            const long m = pat[p].len;
            const char first = s[0];
            long c = 0, line = 0;
            for (long i = 0; i + m <= tlen; i++) {
                if (low[i] != first || memcmp(low + i, s, m) != 0)
                    continue;
                if (i > 0 && is_word((unsigned char)low[i - 1]))
                    continue;
                if (i + m < tlen && is_word((unsigned char)low[i + m]))
                    continue;
                c++;
                while (lstart[line + 1] <= i)
                    line++;
                mine[line] = 1;
            }
            count[p] = c;
        }
        #pragma omp critical
        for (long l = 0; l < nlines; l++)
            line_hit[l] |= mine[l];
        free(mine);
    }

    long total = 0, matched_lines = 0, unused = 0;
    int longest = 0;
    for (int p = 0; p < np; p++) {
        total += count[p];
        if (count[p] == 0)
            unused++;
        if (pat[p].len > pat[longest].len)
            longest = p;
    }
    for (long l = 0; l < nlines; l++)
        matched_lines += line_hit[l];

    int *order = malloc(np * sizeof(int));
    for (int p = 0; p < np; p++)
        order[p] = p;
    sort_counts = count;
    qsort(order, np, sizeof(int), cmp_idx);

    printf("corpus: %ld bytes, %ld lines, %ld words; %d patterns (longest %ld chars)\n",
           tlen, nlines, words, np, pat[longest].len);
    printf("total matches: %ld\n", total);
    printf("lines with a match: %ld (%.3f%%)\n", matched_lines, 100.0 * matched_lines / nlines);
    printf("patterns never found: %ld\n", unused);
    printf("top %d patterns:\n", top < np ? top : np);
    for (int k = 0; k < top && k < np; k++)
        printf("  %8ld  %s\n", count[order[k]], pat[order[k]].text);

    free(order);
    free(count);
    free(line_hit);
    free(low);
    free(lstart);
    free(pat);
    free(text);
    free(ptext);
    return 0;
}
