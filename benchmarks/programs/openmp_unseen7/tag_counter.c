/*
 * tag_counter.c - count hashtags in a text log of event records.
 *
 * Every line of the input is one record.  A tag is a '#' that starts a
 * word (beginning of line, or preceded by a space or punctuation other
 * than '#' and '&'), followed by letters, digits, '_' or '-'.  Tags are
 * case-insensitive and stored lower-case; tags longer than MAX_TAG
 * characters are truncated.
 *
 * The distinct tags of each record also form co-occurrence pairs
 * ("a+b", a < b), counted in a second table.
 *
 * Records are scanned in parallel; each table is one shared chained hash
 * table, and every lookup/insert/count update happens inside a critical
 * section (entered once per record with that record's tags and pairs).
 *
 * usage: tag_counter LOGFILE [TOP]
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_TAG 40
#define TAG_BUCKETS 4096
#define PAIR_BUCKETS 65536
#define MAX_SEEN 16
#define MAX_OCC 32

typedef struct node {
    struct node *next;
    long count;        /* occurrences */
    long records;      /* records mentioning the tag at least once */
    long first_line;   /* first record (1-based) where it appears */
    char name[2 * MAX_TAG + 2];   /* a tag, or "a+b" for a pair */
} node_t;

typedef struct {
    node_t **bucket;
    uint32_t nbuckets;
    long n_distinct;
} table_t;

static table_t tags;    /* single tags */
static table_t pairs;   /* co-occurring pairs of tags within a record */

static void table_init(table_t *t, uint32_t nbuckets)
{
    t->bucket = calloc(nbuckets, sizeof(node_t *));
    if (!t->bucket) {
        fprintf(stderr, "tag_counter: out of memory\n");
        exit(1);
    }
    t->nbuckets = nbuckets;
    t->n_distinct = 0;
}

static void table_free(table_t *t)
{
    for (uint32_t b = 0; b < t->nbuckets; b++) {
        node_t *p = t->bucket[b];
        while (p) {
            node_t *nx = p->next;
            free(p);
            p = nx;
        }
    }
    free(t->bucket);
}

/* all nodes of a table, sorted by count (desc) then name */
static node_t **table_sorted(const table_t *t, long *singletons, size_t *longest)
{
    node_t **all = malloc((size_t)(t->n_distinct > 0 ? t->n_distinct : 1) * sizeof(node_t *));
    if (!all) {
        fprintf(stderr, "tag_counter: out of memory\n");
        exit(1);
    }
    long k = 0;
    *singletons = 0;
    *longest = 0;
    for (uint32_t b = 0; b < t->nbuckets; b++) {
        size_t chain = 0;
        for (node_t *p = t->bucket[b]; p; p = p->next) {
            all[k++] = p;
            chain++;
            if (p->count == 1)
                (*singletons)++;
        }
        if (chain > *longest)
            *longest = chain;
    }
    return all;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 16777619u;
    }
    return h;
}

/* Must be called inside the critical section. */
static void table_add(table_t *t, const char *tag, int new_in_record, long line)
{
    uint32_t b = fnv1a(tag) % t->nbuckets;
    node_t *p;
    for (p = t->bucket[b]; p; p = p->next)
        if (strcmp(p->name, tag) == 0)
            break;
    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p) {
            fprintf(stderr, "tag_counter: out of memory\n");
            exit(1);
        }
        strcpy(p->name, tag);
        p->first_line = line;
        p->next = t->bucket[b];
        t->bucket[b] = p;
        t->n_distinct++;
    }
    p->count++;
    if (new_in_record)
        p->records++;
    if (line < p->first_line)
        p->first_line = line;
}

static int is_tag_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-';
}

static int cmp_nodes(const void *a, const void *b)
{
    const node_t *x = *(const node_t *const *)a, *y = *(const node_t *const *)b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s LOGFILE [TOP]\n", argv[0]);
        return 2;
    }
    int top = 20;
    if (argc == 3) {
        char *end;
        long t = strtol(argv[2], &end, 10);
        if (*end != '\0' || t < 1 || t > 100000) {
            fprintf(stderr, "usage: %s LOGFILE [TOP]  (TOP a positive integer)\n", argv[0]);
            return 2;
        }
        top = (int)t;
    }

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "tag_counter: cannot open %s\n", argv[1]);
        return 1;
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        if (!buf) {
            fprintf(stderr, "tag_counter: out of memory\n");
            return 1;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "tag_counter: read error on %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    buf[len] = '\0';
    if (memchr(buf, '\0', len) != NULL) {
        fprintf(stderr, "tag_counter: %s: contains NUL bytes, not a text log\n", argv[1]);
        return 1;
    }

    /* index the records (lines) */
    long nlines = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n')
            nlines++;
    if (len > 0 && buf[len - 1] != '\n')
        nlines++;
    size_t *start = malloc((size_t)(nlines + 1) * sizeof(size_t));
    {
        long k = 0;
        start[k++] = 0;
        for (size_t i = 0; i < len; i++)
            if (buf[i] == '\n' && k <= nlines)
                start[k++] = i + 1;
        start[nlines] = len + (len > 0 && buf[len - 1] != '\n' ? 1 : 0);
    }

    table_init(&tags, TAG_BUCKETS);
    table_init(&pairs, PAIR_BUCKETS);
    long tagged_records = 0, occurrences = 0, truncated = 0, pair_occ = 0;

#pragma omp parallel for reduction(+:tagged_records, occurrences, truncated, pair_occ)
    for (long r = 0; r < nlines; r++) {
        const char *s = buf + start[r];
        const char *e = buf + start[r + 1] - 1;   /* points at '\n' (or end) */
        /* distinct tags of this record (sorted), for the per-record counts */
        char seen[MAX_SEEN][MAX_TAG + 1];
        int nseen = 0;
        /* tag occurrences of this record, added to the table in one go */
        char occ[MAX_OCC][MAX_TAG + 1];
        unsigned char occ_fresh[MAX_OCC];
        int nocc = 0;
        for (const char *p = s; p < e; p++) {
            if (*p != '#')
                continue;
            if (p > s) {
                unsigned char prev = (unsigned char)p[-1];
                if (is_tag_char(prev) || prev == '#' || prev == '&')
                    continue;
            }
            const char *q = p + 1;
            char tag[MAX_TAG + 1];
            int tl = 0;
            while (q < e && is_tag_char((unsigned char)*q)) {
                if (tl < MAX_TAG)
                    tag[tl++] = (char)tolower((unsigned char)*q);
                q++;
            }
            long full_len = (long)(q - p - 1);
            p = q - 1;
            if (tl == 0)
                continue;
            if (full_len > MAX_TAG)
                truncated++;
            tag[tl] = '\0';
            int pos = 0, fresh = 1;
            while (pos < nseen) {
                int c = strcmp(seen[pos], tag);
                if (c == 0) {
                    fresh = 0;
                    break;
                }
                if (c > 0)
                    break;
                pos++;
            }
            if (fresh && nseen < MAX_SEEN) {
                memmove(seen[pos + 1], seen[pos], (size_t)(nseen - pos) * sizeof seen[0]);
                strcpy(seen[pos], tag);
                nseen++;
            }
            if (nocc == MAX_OCC) {   /* unusually many tags: flush early */
#pragma omp critical(tag_tables)
                for (int k = 0; k < nocc; k++)
                    table_add(&tags, occ[k], occ_fresh[k], r + 1);
                nocc = 0;
            }
            strcpy(occ[nocc], tag);
            occ_fresh[nocc++] = (unsigned char)fresh;
            occurrences++;
        }
        if (nseen == 0)
            continue;
        tagged_records++;

        /* co-occurrence keys "a+b" (a < b) */
        char keys[MAX_SEEN * (MAX_SEEN - 1) / 2][2 * MAX_TAG + 2];
        int nkeys = 0;
        for (int a = 0; a < nseen; a++)
            for (int b = a + 1; b < nseen; b++)
                snprintf(keys[nkeys++], sizeof keys[0], "%s+%s", seen[a], seen[b]);
        pair_occ += nkeys;

#pragma omp critical(tag_tables)
        {
            for (int k = 0; k < nocc; k++)
                table_add(&tags, occ[k], occ_fresh[k], r + 1);
            for (int k = 0; k < nkeys; k++)
                table_add(&pairs, keys[k], 1, r + 1);
        }
    }

    /* collect and rank */
    long ntags = tags.n_distinct, npairs = pairs.n_distinct;
    long singletons, pair_singletons;
    size_t longest_chain, pair_longest;
    node_t **all = table_sorted(&tags, &singletons, &longest_chain);
    node_t **allp = table_sorted(&pairs, &pair_singletons, &pair_longest);
    qsort(all, (size_t)ntags, sizeof(node_t *), cmp_nodes);
    qsort(allp, (size_t)npairs, sizeof(node_t *), cmp_nodes);

    printf("records: %ld (%ld with tags), bytes: %zu\n", nlines, tagged_records, len);
    printf("tag occurrences: %ld, distinct tags: %ld, seen once: %ld, truncated: %ld\n",
           occurrences, ntags, singletons, truncated);
    printf("tag table: %u buckets, load %.2f, longest chain %zu\n", tags.nbuckets,
           (double)ntags / tags.nbuckets, longest_chain);
    int shown = top < ntags ? top : (int)ntags;
    printf("top %d tags:\n", shown);
    printf("  %-4s %-24s %9s %8s %9s %10s\n", "rank", "tag", "count", "share%", "records",
           "first_seen");
    for (int i = 0; i < shown; i++) {
        const node_t *p = all[i];
        printf("  %-4d #%-23s %9ld %8.3f %9ld %10ld\n", i + 1, p->name, p->count,
               100.0 * (double)p->count / (double)occurrences, p->records, p->first_line);
    }
    printf("tag pairs: %ld co-occurrences, %ld distinct (%ld seen once), longest chain %zu\n",
           pair_occ, npairs, pair_singletons, pair_longest);
    int pshown = npairs < 5 ? (int)npairs : 5;
    for (int i = 0; i < pshown; i++)
        printf("  #%-50s %7ld\n", allp[i]->name, allp[i]->count);

    table_free(&tags);
    table_free(&pairs);
    free(allp);
    free(all);
    free(start);
    free(buf);
    return 0;
}
