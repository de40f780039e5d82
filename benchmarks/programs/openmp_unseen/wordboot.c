/*
 * wordboot.c - word frequencies of a text file, with bootstrap confidence intervals.
 * Words are not independent of their neighbours, so whole paragraphs (separated by blank
 * lines) are resampled with replacement (a simple block bootstrap) and the counts of the
 * most frequent words are recorded for each resample.
 *
 * usage: wordboot <text-file> <top-k> <resamples> [seed]
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXWORD 48

struct vocab {
    char (*word)[MAXWORD];
    int n, cap;
    int *table; /* open addressing, -1 = empty */
    int tsize;
};

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int vocab_id(struct vocab *v, const char *w)
{
    uint32_t h = fnv1a(w) & (uint32_t)(v->tsize - 1);
    while (v->table[h] >= 0) {
        if (strcmp(v->word[v->table[h]], w) == 0)
            return v->table[h];
        h = (h + 1) & (uint32_t)(v->tsize - 1);
    }
    if (v->n == v->cap) {
        v->cap *= 2;
        v->word = realloc(v->word, (size_t)v->cap * MAXWORD);
        if (!v->word) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    if (2 * (v->n + 1) > v->tsize) { /* grow and rehash */
        free(v->table);
        v->tsize *= 2;
        v->table = malloc(v->tsize * sizeof(int));
        for (int i = 0; i < v->tsize; i++)
            v->table[i] = -1;
        for (int i = 0; i < v->n; i++) {
            uint32_t g = fnv1a(v->word[i]) & (uint32_t)(v->tsize - 1);
            while (v->table[g] >= 0)
                g = (g + 1) & (uint32_t)(v->tsize - 1);
            v->table[g] = i;
        }
        h = fnv1a(w) & (uint32_t)(v->tsize - 1);
        while (v->table[h] >= 0)
            h = (h + 1) & (uint32_t)(v->tsize - 1);
    }
    strcpy(v->word[v->n], w);
    v->table[h] = v->n;
    return v->n++;
}

static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static const int *g_count;
static int cmp_by_count(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (g_count[x] != g_count[y])
        return g_count[y] - g_count[x];
    return x - y;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s <text-file> <top-k> <resamples> [seed]\n", argv[0]);
        fprintf(stderr, "  e.g. %s corpus.txt 12 10000 7\n", argv[0]);
        return 2;
    }
    int topk = atoi(argv[2]), nres = atoi(argv[3]);
    uint64_t seed = argc == 5 ? strtoull(argv[4], NULL, 10) : 1;
    if (topk < 1 || topk > 1000 || nres < 10) {
        fprintf(stderr, "%s: need 1 <= top-k <= 1000 and resamples >= 10\n", argv[0]);
        return 2;
    }

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *text = malloc(size + 1);
    if (!text || fread(text, 1, size, f) != (size_t)size) {
        fprintf(stderr, "%s: read error\n", argv[1]);
        return 1;
    }
    fclose(f);
    text[size] = 0;

    /* letter frequencies */
    long letters[26] = {0};
    long lines = 0;
#pragma omp parallel for reduction(+:letters[:26], lines)
    for (long i = 0; i < size; i++) {
        int c = tolower(text[i]);
        if (c >= 'a' && c <= 'z')
            letters[c - 'a']++;
        else if (c == '\n')
            lines++;
    }

    /* tokenise: maximal runs of letters, lower-cased */
    struct vocab v = {malloc(1024 * MAXWORD), 0, 1024, malloc(2048 * sizeof(int)), 2048};
    for (int i = 0; i < v.tsize; i++)
        v.table[i] = -1;
    long ntok = 0, tcap = 4096;
    int *tok = malloc(tcap * sizeof(int));
    long np = 0;
    long *pstart = malloc((lines + 2) * sizeof(long)); /* first token of each paragraph */
    pstart[0] = 0;
    int line_has_word = 0;
    char w[MAXWORD];
    for (long i = 0; i < size;) {
        if (!isalpha(text[i])) {
            if (text[i] == '\n') {
                if (!line_has_word && ntok > pstart[np])
                    pstart[++np] = ntok; /* blank line ends a paragraph */
                line_has_word = 0;
            }
            i++;
            continue;
        }
        int len = 0;
        line_has_word = 1;
        while (i < size && isalpha(text[i])) {
            if (len < MAXWORD - 1)
                w[len++] = (char)tolower(text[i]);
            i++;
        }
        w[len] = '\0';
        if (ntok == tcap) {
            tcap *= 2;
            tok = realloc(tok, tcap * sizeof(int));
            if (!tok) {
                fprintf(stderr, "out of memory\n");
                return 1;
            }
        }
        tok[ntok++] = vocab_id(&v, w);
    }
    if (ntok == 0) {
        fprintf(stderr, "%s: no words\n", argv[1]);
        return 1;
    }
    if (pstart[np] < ntok) /* last paragraph */
        pstart[++np] = ntok;
    int nv = v.n;
    if (topk > nv)
        topk = nv;

    int *count = calloc(nv, sizeof(int));
#pragma omp parallel for reduction(+:count[:nv])
    for (long t = 0; t < ntok; t++)
        count[tok[t]]++;

    int *order = malloc(nv * sizeof(int));
    for (int i = 0; i < nv; i++)
        order[i] = i;
    g_count = count;
    qsort(order, nv, sizeof(int), cmp_by_count);
    int singletons = 0;
    for (int i = 0; i < nv; i++)
        singletons += count[i] == 1;

    /* bootstrap */
    int *rank = malloc(nv * sizeof(int));
    for (int i = 0; i < nv; i++)
        rank[i] = -1;
    for (int k = 0; k < topk; k++)
        rank[order[k]] = k;
    int *boot = malloc((size_t)nres * topk * sizeof(int));
    int *cnt = malloc(nv * sizeof(int));
    long distinct_sum = 0, words_sum = 0;
    int distinct_min = nv, distinct_max = 0;
    for (int b = 0; b < nres; b++) {
        memset(cnt, 0, nv * sizeof(int));
        uint64_t key = mix64(seed * 1000003u + (uint64_t)b);
#pragma omp parallel for reduction(+:cnt[:nv])
        for (long q = 0; q < np; q++) {
            uint64_t r = mix64(key ^ (uint64_t)q * 0x9e3779b97f4a7c15ULL);
            long src = (long)(r % (uint64_t)np);
            for (long t = pstart[src]; t < pstart[src + 1]; t++)
                cnt[tok[t]]++;
        }
        int distinct = 0;
        for (int i = 0; i < nv; i++) {
            distinct += cnt[i] > 0;
            words_sum += cnt[i];
            if (rank[i] >= 0)
                boot[(size_t)rank[i] * nres + b] = cnt[i];
        }
        distinct_sum += distinct;
        if (distinct < distinct_min)
            distinct_min = distinct;
        if (distinct > distinct_max)
            distinct_max = distinct;
    }

    printf("%ld bytes, %ld lines, %ld words, %d distinct (%d occur once)\n", size, lines, ntok, nv, singletons);
    printf("most common letters:");
    int used[26] = {0};
    for (int r = 0; r < 6; r++) {
        int bl = -1;
        for (int c = 0; c < 26; c++)
            if (!used[c] && (bl < 0 || letters[c] > letters[bl]))
                bl = c;
        used[bl] = 1;
        printf("  %c %.2f%%", 'a' + bl, 100.0 * letters[bl] / (double)(size ? size : 1));
    }
    printf("\n");
    printf("%4s %-14s %7s %8s   %s (%d resamples)\n", "rank", "word", "count", "per 1000", "95% interval", nres);
    for (int k = 0; k < topk; k++) {
        int *row = &boot[(size_t)k * nres];
        qsort(row, nres, sizeof(int), cmp_int);
        int lo = row[(int)(0.025 * nres)], hi = row[(int)(0.975 * nres) < nres ? (int)(0.975 * nres) : nres - 1];
        int id = order[k];
        printf("%4d %-14s %7d %8.3f   [%d, %d]\n", k + 1, v.word[id], count[id], 1000.0 * count[id] / ntok, lo, hi);
    }
    printf("resampling %ld paragraphs each time; words per resample: mean %.1f\n", np, (double)words_sum / nres);
    printf("distinct words per resample: mean %.1f, min %d, max %d\n", (double)distinct_sum / nres, distinct_min,
           distinct_max);

    free(boot);
    free(cnt);
    free(rank);
    free(order);
    free(count);
    free(tok);
    free(pstart);
    free(v.word);
    free(v.table);
    free(text);
    return 0;
}
