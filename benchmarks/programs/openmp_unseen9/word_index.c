/*
 * word_index.c - build an inverted index (word -> documents) of a text corpus.
 * Every non-empty line of every corpus file is one document.  Documents are
 * processed by a parallel loop; all words go into one shared hash table that
 * is protected by a critical section.  Then the vocabulary size, the most
 * frequent words and the answers to a list of AND-queries are printed.
 *
 * usage: word_index QUERY_FILE CORPUS_FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <omp.h>

#define MAX_WORD 48
#define NBUCKETS (1 << 17)
#define MAX_QUERY_WORDS 8

struct entry {
    unsigned hash;
    int next;            /* next entry in bucket chain, -1 = end */
    long word;           /* offset into the word arena */
    long count;          /* total occurrences */
    int npost, cap;      /* postings: document ids */
    int *post;
};

struct doc {
    const char *text;
    int len;
    int file;
    int line;
};

/* shared hash table, only touched inside the critical section */
static int buckets[NBUCKETS];
static struct entry *entries;
static int nentries, cap_entries;
static char *arena;
static long arena_len, arena_cap;

static unsigned hash_word(const char *w, int len)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < len; i++) {
        h ^= (unsigned char)w[i];
        h *= 16777619u;
    }
    return h;
}

static void die_oom(void)
{
    fprintf(stderr, "word_index: out of memory\n");
    exit(1);
}

/* caller holds the critical section */
static void add_word(const char *w, int len, unsigned h, int doc)
{
    int b = h & (NBUCKETS - 1);
    int e;
    for (e = buckets[b]; e >= 0; e = entries[e].next)
        if (entries[e].hash == h && strcmp(arena + entries[e].word, w) == 0)
            break;
    if (e < 0) {
        if (nentries == cap_entries) {
            cap_entries = cap_entries ? 2 * cap_entries : 4096;
            entries = realloc(entries, (size_t)cap_entries * sizeof *entries);
            if (!entries) die_oom();
        }
        if (arena_len + len + 1 > arena_cap) {
            arena_cap = arena_cap ? 2 * arena_cap : 1 << 16;
            arena = realloc(arena, arena_cap);
            if (!arena) die_oom();
        }
        e = nentries++;
        entries[e].hash = h;
        entries[e].word = arena_len;
        memcpy(arena + arena_len, w, len + 1);
        arena_len += len + 1;
        entries[e].count = 0;
        entries[e].npost = entries[e].cap = 0;
        entries[e].post = NULL;
        entries[e].next = buckets[b];
        buckets[b] = e;
    }
    struct entry *en = &entries[e];
    en->count++;
    if (en->npost == 0 || en->post[en->npost - 1] != doc) {
        if (en->npost == en->cap) {
            en->cap = en->cap ? 2 * en->cap : 4;
            en->post = realloc(en->post, (size_t)en->cap * sizeof(int));
            if (!en->post) die_oom();
        }
        en->post[en->npost++] = doc;
    }
}

static int find_word(const char *w, int len)
{
    unsigned h = hash_word(w, len);
    for (int e = buckets[h & (NBUCKETS - 1)]; e >= 0; e = entries[e].next)
        if (entries[e].hash == h && strcmp(arena + entries[e].word, w) == 0)
            return e;
    return -1;
}

static char *read_file(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "word_index: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc(n + 1);
    if (!buf) die_oom();
    if (n > 0 && fread(buf, 1, n, f) != (size_t)n) {
        fprintf(stderr, "word_index: error reading %s\n", path);
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *size = n;
    return buf;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_freq(const void *a, const void *b)
{
    const struct entry *x = &entries[*(const int *)a], *y = &entries[*(const int *)b];
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return strcmp(arena + x->word, arena + y->word);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s QUERY_FILE CORPUS_FILE...\n", argv[0]);
        return 2;
    }
    int nfiles = argc - 2;
    char **files = &argv[2];

    /* ---- read corpus, split into documents (non-empty lines) ---- */
    struct doc *docs = NULL;
    int ndocs = 0, cap_docs = 0;
    for (int f = 0; f < nfiles; f++) {
        long size;
        char *buf = read_file(files[f], &size);
        if (!buf) return 1;
        if (memchr(buf, '\0', size)) {
            fprintf(stderr, "word_index: %s: malformed text file (contains NUL bytes)\n", files[f]);
            return 1;
        }
        int line = 0;
        char *p = buf, *end = buf + size;
        while (p < end) {
            char *nl = memchr(p, '\n', end - p);
            if (!nl) nl = end;
            line++;
            int nonblank = 0;
            for (char *q = p; q < nl; q++)
                if (!isspace((unsigned char)*q)) { nonblank = 1; break; }
            if (nonblank) {
                if (ndocs == cap_docs) {
                    cap_docs = cap_docs ? 2 * cap_docs : 65536;
                    docs = realloc(docs, (size_t)cap_docs * sizeof *docs);
                    if (!docs) die_oom();
                }
                docs[ndocs].text = p;
                docs[ndocs].len = (int)(nl - p);
                docs[ndocs].file = f;
                docs[ndocs].line = line;
                ndocs++;
            }
            p = nl + 1;
        }
    }
    if (ndocs == 0) {
        fprintf(stderr, "word_index: corpus contains no documents\n");
        return 1;
    }

    /* ---- read queries ---- */
    long qsize;
    char *qbuf = read_file(argv[1], &qsize);
    if (!qbuf) return 1;
    char **queries = NULL;
    int nq = 0, qcap = 0, qline = 0;
    for (char *s = strtok(qbuf, "\n"); s; s = strtok(NULL, "\n")) {
        qline++;
        size_t l = strlen(s);
        if (l && s[l - 1] == '\r') s[--l] = '\0';
        char *t = s;
        while (*t == ' ' || *t == '\t') t++;
        if (*t == '\0' || *t == '#') continue;
        int words = 0, inword = 0;
        for (char *c = t; *c; c++) {
            if (isalpha((unsigned char)*c)) {
                if (!inword) words++;
                inword = 1;
            } else if (*c == ' ' || *c == '\t') {
                inword = 0;
            } else {
                fprintf(stderr, "word_index: %s: malformed query on line %d (only letters and spaces allowed)\n",
                        argv[1], qline);
                return 1;
            }
        }
        if (words > MAX_QUERY_WORDS) {
            fprintf(stderr, "word_index: %s: query on line %d has more than %d words\n",
                    argv[1], qline, MAX_QUERY_WORDS);
            return 1;
        }
        if (nq == qcap) {
            qcap = qcap ? 2 * qcap : 64;
            queries = realloc(queries, (size_t)qcap * sizeof *queries);
            if (!queries) die_oom();
        }
        queries[nq++] = t;
    }

    /* ---- build the index ---- */
    for (int b = 0; b < NBUCKETS; b++) buckets[b] = -1;

    #pragma omp parallel for
    for (int d = 0; d < ndocs; d++) {
        const char *s = docs[d].text;
        int len = docs[d].len;
        char w[MAX_WORD];
        int i = 0;
        while (i < len) {
            while (i < len && !isalpha((unsigned char)s[i])) i++;
            if (i >= len) break;
            int wl = 0;
            while (i < len && isalpha((unsigned char)s[i])) {
                if (wl < MAX_WORD - 1) w[wl++] = (char)tolower((unsigned char)s[i]);
                i++;
            }
            w[wl] = '\0';
            unsigned h = hash_word(w, wl);
            #pragma omp critical
            add_word(w, wl, h, d);
        }
    }

    /* postings arrive in any order: sort each list and drop duplicates */
    long tokens = 0;
    #pragma omp parallel for reduction(+:tokens)
    for (int e = 0; e < nentries; e++) {
        struct entry *en = &entries[e];
        qsort(en->post, en->npost, sizeof(int), cmp_int);
        int k = 0;
        for (int j = 0; j < en->npost; j++)
            if (k == 0 || en->post[k - 1] != en->post[j]) en->post[k++] = en->post[j];
        en->npost = k;
        tokens += en->count;
    }

    printf("documents: %d in %d files\n", ndocs, nfiles);
    printf("tokens: %ld\n", tokens);
    printf("vocabulary: %d distinct words\n", nentries);

    int *order = malloc((size_t)nentries * sizeof *order);
    if (!order) die_oom();
    for (int e = 0; e < nentries; e++) order[e] = e;
    qsort(order, nentries, sizeof *order, cmp_freq);
    printf("most frequent words:\n");
    for (int r = 0; r < 20 && r < nentries; r++) {
        struct entry *en = &entries[order[r]];
        printf("  %2d. %-14s %9ld occurrences in %8d documents\n",
               r + 1, arena + en->word, en->count, en->npost);
    }

    /* ---- queries ---- */
    int *result = malloc((size_t)ndocs * sizeof *result);
    int *tmp = malloc((size_t)ndocs * sizeof *tmp);
    if (!result || !tmp) die_oom();
    printf("queries:\n");
    for (int q = 0; q < nq; q++) {
        int ids[MAX_QUERY_WORDS], nids = 0, missing = 0;
        char norm[512];
        int nl = 0;
        const char *s = queries[q];
        while (*s) {
            while (*s && !isalpha((unsigned char)*s)) s++;
            if (!*s) break;
            char w[MAX_WORD];
            int wl = 0;
            while (isalpha((unsigned char)*s)) {
                if (wl < MAX_WORD - 1) w[wl++] = (char)tolower((unsigned char)*s);
                s++;
            }
            w[wl] = '\0';
            nl += snprintf(norm + nl, sizeof norm - nl, "%s%s", nl ? " " : "", w);
            int e = find_word(w, wl);
            if (e < 0) { missing = 1; continue; }
            int dup = 0;
            for (int j = 0; j < nids; j++) if (ids[j] == e) dup = 1;
            if (!dup) ids[nids++] = e;
        }
        int nres = 0;
        if (!missing && nids > 0) {
            /* start from the shortest posting list */
            for (int j = 1; j < nids; j++)
                if (entries[ids[j]].npost < entries[ids[0]].npost) {
                    int t = ids[0]; ids[0] = ids[j]; ids[j] = t;
                }
            nres = entries[ids[0]].npost;
            memcpy(result, entries[ids[0]].post, (size_t)nres * sizeof(int));
            for (int j = 1; j < nids && nres > 0; j++) {
                const int *p = entries[ids[j]].post;
                int np = entries[ids[j]].npost, a = 0, b = 0, k = 0;
                while (a < nres && b < np) {
                    if (result[a] < p[b]) a++;
                    else if (result[a] > p[b]) b++;
                    else { tmp[k++] = result[a]; a++; b++; }
                }
                memcpy(result, tmp, (size_t)k * sizeof(int));
                nres = k;
            }
        }
        printf("  [%s] %d documents", norm, nres);
        for (int j = 0; j < nres && j < 3; j++)
            printf("%s %s:%d", j ? "," : ";", files[docs[result[j]].file], docs[result[j]].line);
        printf("\n");
    }
    return 0;
}
