/*
 * ngram_lm: train an interpolated Kneser-Ney trigram language model on a
 * text file (one sentence per line, whitespace separated words) and score
 * a test file with it.
 *
 *   usage: ngram_lm TRAIN.txt TEST.txt
 *
 * Training words seen only once are mapped to <unk>.  Test sentences are
 * scored in parallel; for every sentence we record its log probability and
 * how many of its words the model would have guessed as the most likely
 * next word.  Prints perplexity, OOV rate, next-word accuracy and the 10
 * most / least probable sentences by per-word log10 probability.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- utils */

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "ngram_lm: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory", NULL);
    return p;
}

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p) die("out of memory", NULL);
    return p;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open", path);
    size_t cap = 1 << 20, n = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap + 1);
        if (!buf) die("out of memory", NULL);
    }
    if (ferror(f)) die("read error", path);
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27; x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t str_hash(const char *s, int len)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < len; i++) { h ^= (unsigned char)s[i]; h *= 1099511628211ULL; }
    return h;
}

/* ------------------------------------------------------- vocabulary map */

typedef struct {
    const char **str;     /* id -> word (points into the training buffer) */
    int *len;
    int *count;
    int n, cap;
    int *slot;            /* open addressing, -1 = empty */
    int nslot;
} Vocab;

static void vocab_init(Vocab *v)
{
    v->cap = 1024; v->n = 0;
    v->str = xmalloc(sizeof(char *) * v->cap);
    v->len = xmalloc(sizeof(int) * v->cap);
    v->count = xmalloc(sizeof(int) * v->cap);
    v->nslot = 4096;
    v->slot = xmalloc(sizeof(int) * v->nslot);
    for (int i = 0; i < v->nslot; i++) v->slot[i] = -1;
}

static int vocab_find(const Vocab *v, const char *s, int len)
{
    size_t m = v->nslot - 1, i = str_hash(s, len) & m;
    while (v->slot[i] >= 0) {
        int id = v->slot[i];
        if (v->len[id] == len && memcmp(v->str[id], s, len) == 0) return id;
        i = (i + 1) & m;
    }
    return -1;
}

static void vocab_rehash(Vocab *v)
{
    free(v->slot);
    v->nslot *= 2;
    v->slot = xmalloc(sizeof(int) * v->nslot);
    for (int i = 0; i < v->nslot; i++) v->slot[i] = -1;
    size_t m = v->nslot - 1;
    for (int id = 0; id < v->n; id++) {
        size_t i = str_hash(v->str[id], v->len[id]) & m;
        while (v->slot[i] >= 0) i = (i + 1) & m;
        v->slot[i] = id;
    }
}

static int vocab_add(Vocab *v, const char *s, int len)
{
    int id = vocab_find(v, s, len);
    if (id >= 0) return id;
    if (v->n == v->cap) {
        v->cap *= 2;
        v->str = realloc(v->str, sizeof(char *) * v->cap);
        v->len = realloc(v->len, sizeof(int) * v->cap);
        v->count = realloc(v->count, sizeof(int) * v->cap);
        if (!v->str || !v->len || !v->count) die("out of memory", NULL);
    }
    id = v->n++;
    v->str[id] = s; v->len[id] = len; v->count[id] = 0;
    if (2 * v->n > v->nslot) vocab_rehash(v);
    else {
        size_t m = v->nslot - 1, i = str_hash(s, len) & m;
        while (v->slot[i] >= 0) i = (i + 1) & m;
        v->slot[i] = id;
    }
    return id;
}

/* ------------------------------------------------ n-gram count table */

#define EMPTY_KEY UINT64_MAX

typedef struct {
    uint64_t *key;
    int32_t *a, *b;        /* two counters per entry */
    size_t cap, n;
} Table;

static void table_init(Table *t, size_t cap)
{
    t->cap = cap; t->n = 0;
    t->key = xmalloc(sizeof(uint64_t) * cap);
    t->a = xcalloc(cap, sizeof(int32_t));
    t->b = xcalloc(cap, sizeof(int32_t));
    for (size_t i = 0; i < cap; i++) t->key[i] = EMPTY_KEY;
}

static void table_free(Table *t)
{
    free(t->key); free(t->a); free(t->b);
}

static long table_find(const Table *t, uint64_t key)
{
    size_t m = t->cap - 1, i = mix64(key) & m;
    for (;;) {
        if (t->key[i] == key) return (long)i;
        if (t->key[i] == EMPTY_KEY) return -1;
        i = (i + 1) & m;
    }
}

static void table_grow(Table *t);

static size_t table_insert(Table *t, uint64_t key)
{
    if (2 * (t->n + 1) > t->cap) table_grow(t);
    size_t m = t->cap - 1, i = mix64(key) & m;
    while (t->key[i] != EMPTY_KEY) {
        if (t->key[i] == key) return i;
        i = (i + 1) & m;
    }
    t->key[i] = key;
    t->n++;
    return i;
}

static void table_grow(Table *t)
{
    Table nt;
    table_init(&nt, t->cap * 2);
    for (size_t i = 0; i < t->cap; i++) {
        if (t->key[i] == EMPTY_KEY) continue;
        size_t j = table_insert(&nt, t->key[i]);
        nt.a[j] = t->a[i];
        nt.b[j] = t->b[i];
    }
    table_free(t);
    *t = nt;
}

#define ID_BITS 21
#define ID_MASK ((1ULL << ID_BITS) - 1)
static uint64_t key2(uint32_t v, uint32_t w) { return ((uint64_t)v << ID_BITS) | w; }
static uint64_t key3(uint32_t u, uint32_t v, uint32_t w)
{
    return ((uint64_t)u << (2 * ID_BITS)) | ((uint64_t)v << ID_BITS) | w;
}

/* ------------------------------------------------------------- model */

typedef struct {
    int V;                 /* vocabulary size, including <s>, </s>, <unk> */
    Table tri;             /* (u,v,w): a = count */
    Table ctx;             /* (u,v):   a = c(u,v,*), b = N1+(u,v,*) ; also list index */
    Table cont;            /* (v,w):   a = N1+(*,v,w) */
    int32_t *mid_total;    /* N1+(*,v,*) */
    int32_t *mid_types;    /* N1+(v,*) among continuation bigrams */
    int32_t *uni_cont;     /* N1+(*,w) */
    long uni_total;        /* number of bigram types */
    int uni_types;         /* words with uni_cont > 0 */
    double D3, D2, D1;
    /* successor lists for next-word prediction */
    int32_t *ctx_start;    /* per ctx slot: first index into ctx_list (-1 if none) */
    int32_t *ctx_list;
    int32_t *bi_start;     /* per v: [bi_start[v], bi_start[v+1]) in bi_list */
    int32_t *bi_list;
    int best_unigram;
} Model;

enum { BOS = 0, EOS = 1, UNK = 2 };

static double discount(const long cc[3])
{
    /* D = n1 / (n1 + 2 n2), clamped to a sane range */
    if (cc[1] <= 0) return 0.5;
    double d = (double)cc[1] / (cc[1] + 2.0 * cc[2]);
    if (d < 0.1) d = 0.1;
    if (d > 0.9) d = 0.9;
    return d;
}

static double p_uni(const Model *m, int w)
{
    double p = (m->uni_cont[w] - m->D1 > 0 ? m->uni_cont[w] - m->D1 : 0.0) / m->uni_total;
    p += m->D1 * m->uni_types / (double)m->uni_total / m->V;
    return p;
}

static double p_bi(const Model *m, int v, int w)
{
    if (m->mid_total[v] == 0) return p_uni(m, w);
    long i = table_find(&m->cont, key2(v, w));
    double c = i >= 0 ? m->cont.a[i] : 0.0;
    double p = (c - m->D2 > 0 ? c - m->D2 : 0.0) / m->mid_total[v];
    double gamma = m->D2 * m->mid_types[v] / (double)m->mid_total[v];
    return p + gamma * p_uni(m, w);
}

static double p_tri_ctx(const Model *m, long ci, int v, int w, uint64_t k3)
{
    if (ci < 0) return p_bi(m, v, w);
    long i = table_find(&m->tri, k3);
    double c = i >= 0 ? m->tri.a[i] : 0.0;
    double tot = m->ctx.a[ci];
    double p = (c - m->D3 > 0 ? c - m->D3 : 0.0) / tot;
    double gamma = m->D3 * m->ctx.b[ci] / tot;
    return p + gamma * p_bi(m, v, w);
}

static double p_tri(const Model *m, int u, int v, int w)
{
    long ci = table_find(&m->ctx, key2(u, v));
    return p_tri_ctx(m, ci, v, w, key3(u, v, w));
}

/* Most likely next word after (u,v), searched over the words actually
 * seen after the context (or after v, or the best unigram). */
static int predict(const Model *m, int u, int v)
{
    long ci = table_find(&m->ctx, key2(u, v));
    const int32_t *cand;
    int ncand;
    if (ci >= 0) {
        cand = m->ctx_list + m->ctx_start[ci];
        ncand = m->ctx.b[ci];
    } else if (m->bi_start[v + 1] > m->bi_start[v]) {
        cand = m->bi_list + m->bi_start[v];
        ncand = m->bi_start[v + 1] - m->bi_start[v];
    } else {
        return m->best_unigram;
    }
    int best = -1;
    double bp = -1.0;
    for (int k = 0; k < ncand; k++) {
        int w = cand[k];
        double p = p_tri_ctx(m, ci, v, w, key3(u, v, w));
        if (p > bp || (p == bp && w < best)) { bp = p; best = w; }
    }
    return best;
}

/* ------------------------------------------------------------ corpus */

typedef struct {
    char **line;           /* start of each non-empty line */
    int *line_len;
    int n;
} Lines;

static void split_lines(char *buf, size_t len, Lines *L)
{
    int cap = 1024;
    L->n = 0;
    L->line = xmalloc(sizeof(char *) * cap);
    L->line_len = xmalloc(sizeof(int) * cap);
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && buf[j] != '\n') j++;
        int empty = 1;
        for (size_t k = i; k < j; k++)
            if (buf[k] != ' ' && buf[k] != '\t' && buf[k] != '\r') { empty = 0; break; }
        if (!empty) {
            if (L->n == cap) {
                cap *= 2;
                L->line = realloc(L->line, sizeof(char *) * cap);
                L->line_len = realloc(L->line_len, sizeof(int) * cap);
                if (!L->line || !L->line_len) die("out of memory", NULL);
            }
            L->line[L->n] = buf + i;
            L->line_len[L->n] = (int)(j - i);
            L->n++;
        }
        i = j + 1;
    }
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static int next_token(const char *s, int len, int *pos, int *tlen)
{
    int i = *pos;
    while (i < len && is_space(s[i])) i++;
    if (i >= len) return -1;
    int st = i;
    while (i < len && !is_space(s[i])) i++;
    *tlen = i - st;
    *pos = i;
    return st;
}

static int check_text(const char *buf, size_t len, const char *path)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0 || (c < 32 && c != '\n' && c != '\t' && c != '\r'))
            die("not a text file (control byte found)", path);
    }
    return 0;
}

/* ------------------------------------------------------------- results */

typedef struct { double lp; int idx; } Ranked;

static int cmp_desc(const void *a, const void *b)
{
    const Ranked *x = a, *y = b;
    if (x->lp != y->lp) return x->lp > y->lp ? -1 : 1;
    return x->idx - y->idx;
}

static void print_sentence(const Lines *L, int idx, double lp)
{
    char out[64];
    int n = L->line_len[idx], k = 0;
    const char *s = L->line[idx];
    for (int i = 0; i < n && k < 56; i++) out[k++] = (s[i] == '\t' || s[i] == '\r') ? ' ' : s[i];
    out[k] = 0;
    printf("  %8.4f  line %5d  %s%s\n", lp, idx + 1, out, n > 56 ? " ..." : "");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TRAIN.txt TEST.txt\n", argv[0]);
        return 2;
    }
    size_t tlen, slen;
    char *tbuf = read_file(argv[1], &tlen);
    char *sbuf = read_file(argv[2], &slen);
    check_text(tbuf, tlen, argv[1]);
    check_text(sbuf, slen, argv[2]);

    Lines train, test;
    split_lines(tbuf, tlen, &train);
    split_lines(sbuf, slen, &test);
    if (train.n == 0) die("training file has no sentences", argv[1]);
    if (test.n == 0) die("test file has no sentences", argv[2]);

    /* pass 1: raw word counts */
    Vocab raw;
    vocab_init(&raw);
    long train_tokens = 0;
    for (int s = 0; s < train.n; s++) {
        int pos = 0, tl, st;
        while ((st = next_token(train.line[s], train.line_len[s], &pos, &tl)) >= 0) {
            int id = vocab_add(&raw, train.line[s] + st, tl);
            raw.count[id]++;
            train_tokens++;
        }
    }

    /* final vocabulary: <s> </s> <unk> + words seen at least twice */
    Vocab voc;
    vocab_init(&voc);
    vocab_add(&voc, "<s>", 3);
    vocab_add(&voc, "</s>", 4);
    vocab_add(&voc, "<unk>", 5);
    for (int i = 0; i < raw.n; i++)
        if (raw.count[i] >= 2) vocab_add(&voc, raw.str[i], raw.len[i]);
    if (voc.n >= (1 << ID_BITS)) die("vocabulary too large", argv[1]);

    Model m;
    memset(&m, 0, sizeof m);
    m.V = voc.n;
    table_init(&m.tri, 1 << 16);
    table_init(&m.ctx, 1 << 14);
    table_init(&m.cont, 1 << 14);

    /* pass 2: trigram counts (sentences padded with <s> <s> ... </s>) */
    int *ids = xmalloc(sizeof(int) * 4096);
    int idcap = 4096;
    for (int s = 0; s < train.n; s++) {
        int n = 0, pos = 0, tl, st;
        ids[n++] = BOS; ids[n++] = BOS;
        while ((st = next_token(train.line[s], train.line_len[s], &pos, &tl)) >= 0) {
            if (n + 2 >= idcap) {
                idcap *= 2;
                ids = realloc(ids, sizeof(int) * idcap);
                if (!ids) die("out of memory", NULL);
            }
            int id = vocab_find(&voc, train.line[s] + st, tl);
            ids[n++] = id < 0 ? UNK : id;
        }
        ids[n++] = EOS;
        for (int i = 2; i < n; i++) {
            size_t j = table_insert(&m.tri, key3(ids[i - 2], ids[i - 1], ids[i]));
            m.tri.a[j]++;
        }
    }

    /* derived counts */
    long cc3[3] = {0, 0, 0}, cc2[3] = {0, 0, 0}, cc1[3] = {0, 0, 0};
    for (size_t i = 0; i < m.tri.cap; i++) {
        if (m.tri.key[i] == EMPTY_KEY) continue;
        uint64_t k = m.tri.key[i];
        int u = (int)(k >> (2 * ID_BITS)), v = (int)((k >> ID_BITS) & ID_MASK), w = (int)(k & ID_MASK);
        int c = m.tri.a[i];
        if (c <= 2) cc3[c]++;
        size_t j = table_insert(&m.ctx, key2(u, v));
        m.ctx.a[j] += c;
        m.ctx.b[j] += 1;
        j = table_insert(&m.cont, key2(v, w));
        m.cont.a[j] += 1;
    }
    m.mid_total = xcalloc(m.V, sizeof(int32_t));
    m.mid_types = xcalloc(m.V, sizeof(int32_t));
    m.uni_cont = xcalloc(m.V, sizeof(int32_t));
    m.bi_start = xcalloc(m.V + 1, sizeof(int32_t));
    for (size_t i = 0; i < m.cont.cap; i++) {
        if (m.cont.key[i] == EMPTY_KEY) continue;
        int v = (int)(m.cont.key[i] >> ID_BITS), w = (int)(m.cont.key[i] & ID_MASK);
        int c = m.cont.a[i];
        if (c <= 2) cc2[c]++;
        m.mid_total[v] += c;
        m.mid_types[v] += 1;
        m.uni_cont[w] += 1;
        m.uni_total += 1;
    }
    for (int w = 0; w < m.V; w++) {
        if (m.uni_cont[w] > 0) m.uni_types++;
        if (m.uni_cont[w] <= 2) cc1[m.uni_cont[w]]++;
    }
    m.D3 = discount(cc3);
    m.D2 = discount(cc2);
    m.D1 = discount(cc1);

    /* successor lists: per (u,v) context and per v */
    m.ctx_start = xmalloc(sizeof(int32_t) * m.ctx.cap);
    m.ctx_list = xmalloc(sizeof(int32_t) * m.tri.n);
    int32_t *fill = xcalloc(m.ctx.cap, sizeof(int32_t));
    long off = 0;
    for (size_t i = 0; i < m.ctx.cap; i++) {
        m.ctx_start[i] = m.ctx.key[i] == EMPTY_KEY ? -1 : (int32_t)off;
        if (m.ctx.key[i] != EMPTY_KEY) off += m.ctx.b[i];
    }
    for (size_t i = 0; i < m.tri.cap; i++) {
        if (m.tri.key[i] == EMPTY_KEY) continue;
        uint64_t k = m.tri.key[i];
        long ci = table_find(&m.ctx, k >> ID_BITS);
        m.ctx_list[m.ctx_start[ci] + fill[ci]++] = (int32_t)(k & ID_MASK);
    }
    free(fill);
    for (int v = 0; v < m.V; v++) m.bi_start[v + 1] = m.bi_start[v] + m.mid_types[v];
    m.bi_list = xmalloc(sizeof(int32_t) * (m.cont.n ? m.cont.n : 1));
    int32_t *bfill = xcalloc(m.V, sizeof(int32_t));
    for (size_t i = 0; i < m.cont.cap; i++) {
        if (m.cont.key[i] == EMPTY_KEY) continue;
        int v = (int)(m.cont.key[i] >> ID_BITS), w = (int)(m.cont.key[i] & ID_MASK);
        m.bi_list[m.bi_start[v] + bfill[v]++] = w;
    }
    free(bfill);
    m.best_unigram = EOS;
    for (int w = 1; w < m.V; w++)
        if (w != UNK && m.uni_cont[w] > m.uni_cont[m.best_unigram]) m.best_unigram = w;

    /* ---------------- scoring (parallel over test sentences) */
    int ns = test.n;
    double *logp = xmalloc(sizeof(double) * ns);   /* natural log */
    int *nwords = xmalloc(sizeof(int) * ns);
    int *noov = xmalloc(sizeof(int) * ns);
    int *ncorrect = xmalloc(sizeof(int) * ns);

    #pragma omp parallel
    {
        int cap = 256;
        int *sid = xmalloc(sizeof(int) * cap);
        #pragma omp for
        for (int s = 0; s < ns; s++) {
            int n = 0, pos = 0, tl, st, oov = 0;
            sid[n++] = BOS; sid[n++] = BOS;
            while ((st = next_token(test.line[s], test.line_len[s], &pos, &tl)) >= 0) {
                if (n + 2 >= cap) {
                    cap *= 2;
                    sid = realloc(sid, sizeof(int) * cap);
                    if (!sid) die("out of memory", NULL);
                }
                int id = vocab_find(&voc, test.line[s] + st, tl);
                if (id < 0 || id == UNK) { id = UNK; oov++; }
                sid[n++] = id;
            }
            sid[n++] = EOS;
            double lp = 0.0;
            int correct = 0;
            for (int i = 2; i < n; i++) {
                lp += log(p_tri(&m, sid[i - 2], sid[i - 1], sid[i]));
                if (sid[i] != UNK && predict(&m, sid[i - 2], sid[i - 1]) == sid[i]) correct++;
            }
            logp[s] = lp;
            nwords[s] = n - 2;          /* words + </s> */
            noov[s] = oov;
            ncorrect[s] = correct;
        }
        free(sid);
    }

    /* ---------------- combine in sentence order */
    double total_lp = 0.0;
    long total_words = 0, total_oov = 0, total_correct = 0;
    Ranked *rk = xmalloc(sizeof(Ranked) * ns);
    for (int s = 0; s < ns; s++) {
        total_lp += logp[s];
        total_words += nwords[s];
        total_oov += noov[s];
        total_correct += ncorrect[s];
        rk[s].lp = logp[s] / log(10.0) / nwords[s];
        rk[s].idx = s;
    }
    qsort(rk, ns, sizeof(Ranked), cmp_desc);

    long test_tokens = total_words - ns;   /* without </s> */
    printf("training: %d sentences, %ld tokens, vocabulary %d (incl. <s> </s> <unk>)\n",
           train.n, train_tokens, m.V);
    printf("model: %zu trigram types, %zu bigram types, %zu contexts, KN discounts %.4f %.4f %.4f\n",
           m.tri.n, m.cont.n, m.ctx.n, m.D3, m.D2, m.D1);
    printf("test: %d sentences, %ld tokens, OOV rate %.3f%%\n",
           ns, test_tokens, 100.0 * total_oov / (test_tokens ? test_tokens : 1));
    printf("perplexity: %.3f (per-token log10 prob %.5f, %ld tokens incl. </s>)\n",
           exp(-total_lp / total_words), total_lp / log(10.0) / total_words, total_words);
    printf("next-word accuracy: %.3f%% (%ld of %ld in-vocabulary tokens)\n",
           100.0 * total_correct / (total_words - total_oov), total_correct, total_words - total_oov);
    int top = ns < 10 ? ns : 10;
    printf("most probable sentences (per-word log10 prob):\n");
    for (int i = 0; i < top; i++) print_sentence(&test, rk[i].idx, rk[i].lp);
    printf("least probable sentences (per-word log10 prob):\n");
    for (int i = 0; i < top; i++) print_sentence(&test, rk[ns - 1 - i].idx, rk[ns - 1 - i].lp);

    free(logp); free(nwords); free(noov); free(ncorrect); free(rk); free(ids);
    return 0;
}
