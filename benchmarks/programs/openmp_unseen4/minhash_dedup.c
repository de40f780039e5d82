/*
 * minhash_dedup: find near-duplicate lines in a text file with MinHash + LSH.
 *
 * usage: minhash_dedup DOCS_FILE THRESHOLD
 *
 * Every line of DOCS_FILE is a document.  Documents are normalised (lower
 * case, runs of punctuation/space folded to one space), cut into character
 * 5-shingles, and summarised by a 128-value MinHash signature.  The signature
 * is split into 32 bands of 4 rows; documents that agree on a whole band are
 * candidate pairs.  Candidates are checked with the exact Jaccard similarity
 * of their shingle sets, and pairs with similarity >= THRESHOLD are reported
 * and merged into clusters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <ctype.h>
#include <errno.h>

#define SHINGLE 5
#define NHASH 128
#define BANDS 32
#define ROWS (NHASH / BANDS)
#define MAX_LINE 65536

typedef struct {
    char *text;
    int len;
    uint64_t *sh;     /* sorted, unique shingle hashes */
    int nsh;
    uint64_t sig[NHASH];
    uint64_t band[BANDS];
} Doc;

typedef struct { uint64_t key; int doc; } BandEntry;
typedef struct { int a, b; } Pair;

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDULL;
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ULL;
    return z ^ (z >> 33);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int cmp_band(const void *x, const void *y)
{
    const BandEntry *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->doc > b->doc) - (a->doc < b->doc);
}

static int cmp_pair(const void *x, const void *y)
{
    const Pair *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

static char *read_all_lines(const char *path, Doc **docs_out, int *n_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "minhash_dedup: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap + 1);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); buf = NULL; }
            buf = nb;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) { fprintf(stderr, "minhash_dedup: out of memory\n"); return NULL; }
    if (failed) {
        fprintf(stderr, "minhash_dedup: error reading %s\n", path);
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        fprintf(stderr, "minhash_dedup: %s: not a text file (NUL byte)\n", path);
        free(buf);
        return NULL;
    }
    int n = 0, dcap = 1024;
    Doc *docs = malloc(sizeof(Doc) * dcap);
    char *p = buf;
    while (*p) {
        char *e = strchr(p, '\n');
        if (e) *e = '\0';
        size_t l = strlen(p);
        if (l > 0 && p[l - 1] == '\r') p[--l] = '\0';
        if (l >= MAX_LINE) {
            fprintf(stderr, "minhash_dedup: %s:%d: line too long\n", path, n + 1);
            free(buf); free(docs);
            return NULL;
        }
        if (n == dcap) { dcap *= 2; docs = realloc(docs, sizeof(Doc) * dcap); }
        memset(&docs[n], 0, sizeof(Doc));
        docs[n].text = p;
        docs[n].len = (int)l;
        n++;
        if (!e) break;
        p = e + 1;
    }
    if (n < 2) {
        fprintf(stderr, "minhash_dedup: %s: need at least two documents\n", path);
        free(buf); free(docs);
        return NULL;
    }
    *docs_out = docs;
    *n_out = n;
    return buf;
}

/* Normalise the text and build the sorted set of shingle hashes. */
static void shingle_doc(Doc *d)
{
    char *norm = malloc((size_t)d->len + 1);
    int m = 0, space = 1;
    for (int i = 0; i < d->len; i++) {
        unsigned char c = (unsigned char)d->text[i];
        if (isalnum(c)) {
            norm[m++] = (char)tolower(c);
            space = 0;
        } else if (!space) {
            norm[m++] = ' ';
            space = 1;
        }
    }
    if (m > 0 && norm[m - 1] == ' ') m--;
    int cnt = m >= SHINGLE ? m - SHINGLE + 1 : (m > 0 ? 1 : 0);
    d->sh = malloc(sizeof(uint64_t) * (cnt > 0 ? cnt : 1));
    for (int i = 0; i < cnt; i++) {
        uint64_t h = 0xCBF29CE484222325ULL;    /* FNV-1a */
        int k = m >= SHINGLE ? SHINGLE : m;
        for (int j = 0; j < k; j++) {
            h ^= (unsigned char)norm[i + j];
            h *= 0x100000001B3ULL;
        }
        d->sh[i] = h;
    }
    qsort(d->sh, (size_t)cnt, sizeof(uint64_t), cmp_u64);
    int u = 0;
    for (int i = 0; i < cnt; i++)
        if (u == 0 || d->sh[i] != d->sh[u - 1]) d->sh[u++] = d->sh[i];
    d->nsh = u;
    free(norm);
}

static void signature(Doc *d, const uint64_t *seeds)
{
    for (int k = 0; k < NHASH; k++) d->sig[k] = UINT64_MAX;
    for (int i = 0; i < d->nsh; i++) {
        uint64_t x = d->sh[i];
        for (int k = 0; k < NHASH; k++) {
            uint64_t h = mix64(x ^ seeds[k]);
            if (h < d->sig[k]) d->sig[k] = h;
        }
    }
    for (int b = 0; b < BANDS; b++) {
        uint64_t h = 0x9E3779B97F4A7C15ULL * (uint64_t)(b + 1);
        for (int r = 0; r < ROWS; r++) h = mix64(h ^ d->sig[b * ROWS + r]);
        d->band[b] = h;
    }
}

static void jaccard_counts(const Doc *x, const Doc *y, int *inter, int *uni)
{
    int i = 0, j = 0, c = 0;
    while (i < x->nsh && j < y->nsh) {
        if (x->sh[i] < y->sh[j]) i++;
        else if (x->sh[i] > y->sh[j]) j++;
        else { c++; i++; j++; }
    }
    *inter = c;
    *uni = x->nsh + y->nsh - c;
}

static int find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void print_snippet(const char *label, const Doc *d)
{
    int n = d->len > 70 ? 70 : d->len;
    printf("%s%.*s%s\n", label, n, d->text, d->len > 70 ? "..." : "");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DOCS_FILE THRESHOLD\n", argv[0]);
        return 2;
    }
    char *end;
    double thr = strtod(argv[2], &end);
    if (*argv[2] == '\0' || *end != '\0' || !(thr > 0.0 && thr <= 1.0)) {
        fprintf(stderr, "usage: %s DOCS_FILE THRESHOLD   (THRESHOLD in (0, 1])\n", argv[0]);
        return 2;
    }
    Doc *docs;
    int n;
    char *buf = read_all_lines(argv[1], &docs, &n);
    if (!buf) return 1;

    uint64_t seeds[NHASH];
    uint64_t s = 0x243F6A8885A308D3ULL;
    for (int k = 0; k < NHASH; k++) { s += 0x9E3779B97F4A7C15ULL; seeds[k] = mix64(s); }

    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        shingle_doc(&docs[i]);
        signature(&docs[i], seeds);
    }

    /* LSH: bucket documents by band value, band by band */
    size_t ne = (size_t)n * BANDS;
    BandEntry *ent = malloc(sizeof(BandEntry) * ne);
    for (int b = 0; b < BANDS; b++)
        for (int i = 0; i < n; i++) {
            ent[(size_t)b * n + i].key = docs[i].band[b];
            ent[(size_t)b * n + i].doc = i;
        }
    qsort(ent, ne, sizeof(BandEntry), cmp_band);
    size_t npairs = 0, pcap = 1 << 16;
    Pair *pairs = malloc(sizeof(Pair) * pcap);
    for (size_t g = 0; g < ne;) {
        size_t h = g + 1;
        while (h < ne && ent[h].key == ent[g].key) h++;
        for (size_t x = g; x < h; x++)
            for (size_t y = x + 1; y < h; y++) {
                if (ent[x].doc == ent[y].doc) continue;
                if (npairs == pcap) { pcap *= 2; pairs = realloc(pairs, sizeof(Pair) * pcap); }
                pairs[npairs].a = ent[x].doc;
                pairs[npairs].b = ent[y].doc;
                npairs++;
            }
        g = h;
    }
    free(ent);
    qsort(pairs, npairs, sizeof(Pair), cmp_pair);
    size_t nc = 0;
    for (size_t i = 0; i < npairs; i++)
        if (nc == 0 || pairs[i].a != pairs[nc - 1].a || pairs[i].b != pairs[nc - 1].b)
            pairs[nc++] = pairs[i];

    /* verify the candidates exactly */
    int *inter = malloc(sizeof(int) * (nc ? nc : 1));
    int *uni = malloc(sizeof(int) * (nc ? nc : 1));
    #pragma omp parallel for
    for (long i = 0; i < (long)nc; i++)
        jaccard_counts(&docs[pairs[i].a], &docs[pairs[i].b], &inter[i], &uni[i]);

    int *parent = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) parent[i] = i;
    size_t ndup = 0, exact = 0;
    long long sh_total = 0;
    for (int i = 0; i < n; i++) sh_total += docs[i].nsh;
    long best[3] = {-1, -1, -1};  /* borderline pairs: lowest similarity above threshold */
    for (size_t i = 0; i < nc; i++) {
        if (uni[i] == 0 || (double)inter[i] / uni[i] < thr) continue;
        ndup++;
        if (inter[i] == uni[i]) exact++;
        int ra = find(parent, pairs[i].a), rb = find(parent, pairs[i].b);
        if (ra != rb) {
            if (ra < rb) parent[rb] = ra; else parent[ra] = rb;
        }
        /* keep the three lowest similarities, earliest pair first on ties */
        long cur = (long)i;
        for (int k = 0; k < 3 && cur >= 0; k++) {
            if (best[k] < 0 ||
                (double)inter[cur] * uni[best[k]] < (double)inter[best[k]] * uni[cur]) {
                long t = best[k]; best[k] = cur; cur = t;
            }
        }
    }

    int *csize = calloc((size_t)n, sizeof(int));
    int nclusters = 0, in_clusters = 0;
    for (int i = 0; i < n; i++) csize[find(parent, i)]++;
    for (int i = 0; i < n; i++)
        if (find(parent, i) == i && csize[i] > 1) { nclusters++; in_clusters += csize[i]; }

    printf("documents: %d   shingles per document: %.1f\n", n, (double)sh_total / n);
    printf("LSH: %d bands x %d rows, candidate pairs: %zu\n", BANDS, ROWS, nc);
    printf("near-duplicate pairs (Jaccard >= %.2f): %zu   (identical shingle sets: %zu)\n",
           thr, ndup, exact);
    printf("clusters: %d covering %d documents; %d documents would remain after dedup\n",
           nclusters, in_clusters, n - in_clusters + nclusters);

    printf("largest clusters:\n");
    int shown[5], nshown = 0;
    for (int k = 0; k < 5; k++) {
        int bi = -1;
        for (int i = 0; i < n; i++) {
            if (parent[i] != i || csize[i] < 2) continue;
            int used = 0;
            for (int q = 0; q < nshown; q++) used |= (shown[q] == i);
            if (used) continue;
            if (bi < 0 || csize[i] > csize[bi]) bi = i;
        }
        if (bi < 0) break;
        shown[nshown++] = bi;
        char label[64];
        snprintf(label, sizeof label, "  %3d docs, first #%d: ", csize[bi], bi + 1);
        print_snippet(label, &docs[bi]);
    }

    printf("borderline pairs:\n");
    for (int k = 0; k < 3; k++) {
        if (best[k] < 0) break;
        long i = best[k];
        printf("  #%d and #%d, Jaccard %.3f\n", pairs[i].a + 1, pairs[i].b + 1,
               (double)inter[i] / uni[i]);
        print_snippet("    ", &docs[pairs[i].a]);
        print_snippet("    ", &docs[pairs[i].b]);
    }

    for (int i = 0; i < n; i++) free(docs[i].sh);
    free(docs); free(buf); free(pairs); free(inter); free(uni); free(parent); free(csize);
    return 0;
}
