/*
 * spellcheck.c - dictionary-based spelling checker with suggestions.
 *
 * The dictionary file holds one "word count" pair per line, the count being
 * the word's frequency in some reference corpus.  The text is split into
 * lower-case words of letters a-z.  Every distinct text word that is not in
 * the dictionary is misspelled; for it all strings at edit distance one
 * (deletes, adjacent transposes, replaces and inserts) are looked up in the
 * dictionary and the most frequent hit is the suggestion.
 *
 * usage: spellcheck DICTIONARY_FILE TEXT_FILE
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 48

typedef struct {
    char **key;
    long *val; /* dictionary: frequency; text: occurrence count */
    size_t mask, n;
} table_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s DICTIONARY_FILE TEXT_FILE\n", prog);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "spellcheck: out of memory\n");
        exit(1);
    }
    return p;
}

static inline uint64_t hash_str(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static void table_init(table_t *t, size_t expect)
{
    size_t cap = 16;
    while (cap < 2 * expect + 2)
        cap <<= 1;
    t->key = calloc(cap, sizeof(char *));
    t->val = calloc(cap, sizeof(long));
    if (!t->key || !t->val) {
        fprintf(stderr, "spellcheck: out of memory\n");
        exit(1);
    }
    t->mask = cap - 1;
    t->n = 0;
}

/* slot of word (len bytes, not terminated) or of the empty slot where it would go */
static inline size_t table_slot(const table_t *t, const char *w, size_t len)
{
    size_t i = (size_t)hash_str(w, len) & t->mask;
    while (t->key[i]) {
        if (strncmp(t->key[i], w, len) == 0 && t->key[i][len] == '\0')
            return i;
        i = (i + 1) & t->mask;
    }
    return i;
}

static void table_grow(table_t *t)
{
    table_t nt;
    table_init(&nt, (t->mask + 1));
    for (size_t i = 0; i <= t->mask; i++) {
        if (!t->key[i])
            continue;
        size_t j = table_slot(&nt, t->key[i], strlen(t->key[i]));
        nt.key[j] = t->key[i];
        nt.val[j] = t->val[i];
    }
    nt.n = t->n;
    free(t->key);
    free(t->val);
    *t = nt;
}

static char *dupn(const char *s, size_t len)
{
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "spellcheck: cannot open '%s'\n", path);
        exit(1);
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap + 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            if (!buf) {
                fprintf(stderr, "spellcheck: out of memory\n");
                exit(1);
            }
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "spellcheck: error reading '%s'\n", path);
        exit(1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static void load_dictionary(const char *path, table_t *dict)
{
    size_t len;
    char *text = slurp(path, &len);
    table_init(dict, 1024);
    long lineno = 0;
    char *p = text;
    while (*p) {
        char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        lineno++;
        char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < eol && *q != '#') {
            char *w = q;
            while (q < eol && *q >= 'a' && *q <= 'z')
                q++;
            size_t wl = (size_t)(q - w);
            char *numend;
            long cnt = strtol(q, &numend, 10);
            while (numend < eol && (*numend == ' ' || *numend == '\t' || *numend == '\r'))
                numend++;
            if (wl == 0 || wl >= MAXW || (*q != ' ' && *q != '\t') || numend == q ||
                numend != eol || cnt < 0) {
                fprintf(stderr, "spellcheck: %s:%ld: expected 'word count'\n", path, lineno);
                exit(1);
            }
            if (2 * (dict->n + 1) > dict->mask)
                table_grow(dict);
            size_t s = table_slot(dict, w, wl);
            if (!dict->key[s]) {
                dict->key[s] = dupn(w, wl);
                dict->n++;
            }
            dict->val[s] += cnt;
        }
        p = *eol ? eol + 1 : eol;
    }
    free(text);
    if (dict->n == 0) {
        fprintf(stderr, "spellcheck: %s: empty dictionary\n", path);
        exit(1);
    }
}

/* look a candidate up; keep it if it is more frequent (ties: alphabetically first) */
static inline void consider(const table_t *dict, const char *c, size_t len, long *bestf,
                            const char **bestw)
{
    size_t s = table_slot(dict, c, len);
    if (!dict->key[s])
        return;
    long f = dict->val[s];
    if (f > *bestf || (f == *bestf && *bestw && strcmp(dict->key[s], *bestw) < 0)) {
        *bestf = f;
        *bestw = dict->key[s];
    }
}

static const char *suggest(const table_t *dict, const char *w)
{
    size_t L = strlen(w);
    char buf[MAXW + 2];
    long bestf = -1;
    const char *bestw = NULL;
    /* deletes */
    for (size_t i = 0; i < L; i++) {
        memcpy(buf, w, i);
        memcpy(buf + i, w + i + 1, L - i - 1);
        consider(dict, buf, L - 1, &bestf, &bestw);
    }
    /* adjacent transposes */
    memcpy(buf, w, L);
    for (size_t i = 0; i + 1 < L; i++) {
        if (buf[i] == buf[i + 1])
            continue;
        char t = buf[i];
        buf[i] = buf[i + 1];
        buf[i + 1] = t;
        consider(dict, buf, L, &bestf, &bestw);
        buf[i + 1] = buf[i];
        buf[i] = t;
    }
    /* replaces */
    for (size_t i = 0; i < L; i++) {
        char orig = buf[i];
        for (char c = 'a'; c <= 'z'; c++) {
            if (c == orig)
                continue;
            buf[i] = c;
            consider(dict, buf, L, &bestf, &bestw);
        }
        buf[i] = orig;
    }
    /* inserts */
    for (size_t i = 0; i <= L; i++) {
        memcpy(buf, w, i);
        memcpy(buf + i + 1, w + i, L - i);
        for (char c = 'a'; c <= 'z'; c++) {
            buf[i] = c;
            consider(dict, buf, L + 1, &bestf, &bestw);
        }
    }
    return bestw;
}

typedef struct {
    const char *word;
    long count;
    const char *best;
} miss_t;

static int cmp_miss(const void *a, const void *b)
{
    const miss_t *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->word, y->word);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage(argv[0]);

    table_t dict;
    load_dictionary(argv[1], &dict);

    size_t tlen;
    char *text = slurp(argv[2], &tlen);

    /* distinct words of the text with their counts */
    table_t words;
    table_init(&words, 4096);
    long total_words = 0, skipped_long = 0;
    for (size_t i = 0; i < tlen;) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c < 'a' || c > 'z') {
            i++;
            continue;
        }
        char w[MAXW + 1];
        size_t wl = 0;
        while (i < tlen) {
            c = text[i];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c >= 'a' && c <= 'z') {
                if (wl < MAXW)
                    w[wl] = c;
                wl++;
                i++;
            } else if (c == '\'') {
                i++; /* don't -> dont */
            } else {
                break;
            }
        }
        total_words++;
        if (wl >= MAXW) {
            skipped_long++;
            continue;
        }
        if (2 * (words.n + 1) > words.mask)
            table_grow(&words);
        size_t s = table_slot(&words, w, wl);
        if (!words.key[s]) {
            words.key[s] = dupn(w, wl);
            words.n++;
        }
        words.val[s]++;
    }
    free(text);

    /* which distinct words are unknown to the dictionary */
    size_t nd = 0;
    miss_t *all = xmalloc(words.n * sizeof(miss_t));
    for (size_t i = 0; i <= words.mask; i++)
        if (words.key[i]) {
            all[nd].word = words.key[i];
            all[nd].count = words.val[i];
            all[nd].best = NULL;
            nd++;
        }
    unsigned char *unknown = xmalloc(nd);
    long nmiss = 0, miss_occ = 0;
#pragma omp parallel for reduction(+:nmiss, miss_occ)
    for (size_t i = 0; i < nd; i++) {
        size_t s = table_slot(&dict, all[i].word, strlen(all[i].word));
        unknown[i] = dict.key[s] == NULL;
        if (unknown[i]) {
            nmiss++;
            miss_occ += all[i].count;
        }
    }
    miss_t *miss = xmalloc((size_t)(nmiss > 0 ? nmiss : 1) * sizeof(miss_t));
    size_t k = 0;
    for (size_t i = 0; i < nd; i++)
        if (unknown[i])
            miss[k++] = all[i];

    /* suggestions, one misspelled word per iteration */
    long nosugg = 0, nosugg_occ = 0;
#pragma omp parallel for reduction(+:nosugg, nosugg_occ)
    for (long i = 0; i < nmiss; i++) {
        miss[i].best = suggest(&dict, miss[i].word);
        if (!miss[i].best) {
            nosugg++;
            nosugg_occ += miss[i].count;
        }
    }

    qsort(miss, (size_t)nmiss, sizeof(miss_t), cmp_miss);

    printf("dictionary: %zu words; text: %ld words, %zu distinct\n", dict.n, total_words, nd);
    if (skipped_long)
        printf("skipped %ld words longer than %d letters\n", skipped_long, MAXW - 1);
    printf("misspelled: %ld distinct words, %ld occurrences\n", nmiss, miss_occ);
    printf("no suggestion: %ld distinct words, %ld occurrences\n", nosugg, nosugg_occ);
    printf("most frequent misspellings:\n");
    for (long i = 0; i < nmiss && i < 10; i++)
        printf("  %-20s %6ld  -> %s\n", miss[i].word, miss[i].count,
               miss[i].best ? miss[i].best : "(none)");

    free(miss);
    free(all);
    free(unknown);
    return 0;
}
