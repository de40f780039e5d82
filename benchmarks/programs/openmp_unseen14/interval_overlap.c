/*
 * interval_overlap: for every query interval, count the reference intervals
 * that overlap it.
 *
 * Both input files are BED-like text: one interval per line,
 *     <chrom> <start> <end>
 * separated by blanks or tabs, 0-based half-open coordinates, start < end.
 * Lines that are empty or start with '#' are ignored.
 *
 * The reference intervals are sorted per chromosome by start; a query
 * [qs, qe) overlaps reference [rs, re) iff rs < qe and re > qs.  A binary
 * search finds the references with rs < qe, then a backwards scan stops once
 * rs <= qs - maxlen (maxlen = longest reference on that chromosome), since
 * no earlier reference can reach qs.
 *
 * usage: interval_overlap REFERENCE.bed QUERIES.bed TOP_K
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <ctype.h>

#define MAX_CHROMS 4096
#define MAX_NAME 63

_Noreturn static void usage(void)
{
    fprintf(stderr, "usage: interval_overlap REFERENCE.bed QUERIES.bed TOP_K   (TOP_K in 1..50)\n");
    exit(2);
}

_Noreturn static void die(const char *path, long line, const char *what)
{
    if (line > 0)
        fprintf(stderr, "interval_overlap: %s:%ld: %s\n", path, line, what);
    else
        fprintf(stderr, "interval_overlap: %s: %s\n", path, what);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "interval_overlap: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- chromosome name table (insertion order = first appearance) ---- */
static char chrom_names[MAX_CHROMS][MAX_NAME + 1];
static int n_chroms = 0;

static int chrom_id(const char *name, size_t len, int create)
{
    for (int c = 0; c < n_chroms; c++)
        if (strlen(chrom_names[c]) == len && memcmp(chrom_names[c], name, len) == 0)
            return c;
    if (!create || n_chroms == MAX_CHROMS) return -1;
    memcpy(chrom_names[n_chroms], name, len);
    chrom_names[n_chroms][len] = '\0';
    return n_chroms++;
}

typedef struct {
    int n, cap;
    int *chrom;   /* index into chrom_names */
    int64_t *start, *end;
    long *lineno;
} ivset_t;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) die(path, 0, strerror(errno));
    size_t cap = 1 << 20, n = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        cap *= 2;
        buf = realloc(buf, cap + 1);
        if (!buf) die(path, 0, "out of memory");
    }
    if (ferror(f)) die(path, 0, "read error");
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static const char *parse_coord(const char *p, int64_t *out)
{
    while (*p == ' ' || *p == '\t') p++;
    if (!isdigit((unsigned char)*p)) return NULL;
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (*p - '0');
        if (v > 4000000000LL) return NULL;
        p++;
    }
    *out = v;
    return p;
}

static void load_intervals(const char *path, ivset_t *s)
{
    size_t len;
    char *buf = slurp(path, &len);
    if (memchr(buf, '\0', len)) die(path, 0, "binary data in text file");
    s->n = 0;
    s->cap = 1024;
    s->chrom = xmalloc(s->cap * sizeof(int));
    s->start = xmalloc(s->cap * sizeof(int64_t));
    s->end = xmalloc(s->cap * sizeof(int64_t));
    s->lineno = xmalloc(s->cap * sizeof(long));

    long line = 0;
    char *p = buf;
    while (*p) {
        line++;
        char *eol = strchr(p, '\n');
        char *next = eol ? eol + 1 : p + strlen(p);
        if (eol) *eol = '\0';
        if (eol && eol > p && eol[-1] == '\r') eol[-1] = '\0';

        char *q = p;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '\0' || *q == '#') { p = next; continue; }

        char *name = q;
        while (*q && *q != ' ' && *q != '\t') q++;
        size_t nlen = (size_t)(q - name);
        if (nlen > MAX_NAME) die(path, line, "chromosome name too long");
        int64_t a, b;
        const char *r = parse_coord(q, &a);
        if (!r || (*r != ' ' && *r != '\t')) die(path, line, "bad start coordinate");
        r = parse_coord(r, &b);
        if (!r) die(path, line, "bad end coordinate");
        while (*r == ' ' || *r == '\t') r++;
        if (*r != '\0') die(path, line, "trailing text after end coordinate");
        if (a >= b) die(path, line, "interval must have start < end");

        int c = chrom_id(name, nlen, 1);
        if (c < 0) die(path, line, "too many chromosomes");

        if (s->n == s->cap) {
            s->cap *= 2;
            s->chrom = realloc(s->chrom, s->cap * sizeof(int));
            s->start = realloc(s->start, s->cap * sizeof(int64_t));
            s->end = realloc(s->end, s->cap * sizeof(int64_t));
            s->lineno = realloc(s->lineno, s->cap * sizeof(long));
            if (!s->chrom || !s->start || !s->end || !s->lineno) die(path, 0, "out of memory");
        }
        s->chrom[s->n] = c;
        s->start[s->n] = a;
        s->end[s->n] = b;
        s->lineno[s->n] = line;
        s->n++;
        p = next;
    }
    if (s->n == 0) die(path, 0, "no intervals found");
    free(buf);
}

typedef struct { int64_t start, end; } iv_t;

static int cmp_iv(const void *x, const void *y)
{
    const iv_t *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) usage();
    char *endp;
    errno = 0;
    long topk = strtol(argv[3], &endp, 10);
    if (errno || *endp || endp == argv[3] || topk < 1 || topk > 50) usage();

    ivset_t ref, qry;
    load_intervals(argv[1], &ref);
    const int n_ref_chroms = n_chroms;   /* ids >= this appear only in queries */
    load_intervals(argv[2], &qry);

    /* ---- bucket the references by chromosome and sort each bucket ---- */
    int64_t *off = xmalloc((n_ref_chroms + 1) * sizeof(int64_t));
    memset(off, 0, (n_ref_chroms + 1) * sizeof(int64_t));
    for (int i = 0; i < ref.n; i++) off[ref.chrom[i] + 1]++;
    for (int c = 0; c < n_ref_chroms; c++) off[c + 1] += off[c];
    iv_t *sorted = xmalloc((size_t)ref.n * sizeof(iv_t));
    int64_t *fill = xmalloc(n_ref_chroms * sizeof(int64_t));
    memcpy(fill, off, n_ref_chroms * sizeof(int64_t));
    for (int i = 0; i < ref.n; i++) {
        iv_t v = { ref.start[i], ref.end[i] };
        sorted[fill[ref.chrom[i]]++] = v;
    }
    int64_t *maxlen = xmalloc(n_ref_chroms * sizeof(int64_t));
    for (int c = 0; c < n_ref_chroms; c++) {
        qsort(sorted + off[c], (size_t)(off[c + 1] - off[c]), sizeof(iv_t), cmp_iv);
        maxlen[c] = 0;
        for (int64_t j = off[c]; j < off[c + 1]; j++)
            if (sorted[j].end - sorted[j].start > maxlen[c])
                maxlen[c] = sorted[j].end - sorted[j].start;
    }
    /* structure-of-arrays copy for the scan */
    int64_t *rs = xmalloc((size_t)ref.n * sizeof(int64_t));
    int64_t *re = xmalloc((size_t)ref.n * sizeof(int64_t));
    for (int i = 0; i < ref.n; i++) {
        rs[i] = sorted[i].start;
        re[i] = sorted[i].end;
    }
    free(sorted);

    /* ---- count overlaps of every query ---- */
    const int nq = qry.n;
    int64_t *count = xmalloc((size_t)nq * sizeof(int64_t));
    int64_t total = 0, scanned = 0;

    #pragma omp parallel for reduction(+:total, scanned)
    for (int i = 0; i < nq; i++) {
        int c = qry.chrom[i];
        int64_t cnt = 0;
        if (c < n_ref_chroms) {
            int64_t qs = qry.start[i], qe = qry.end[i];
            /* first reference with start >= qe */
            int64_t lo = off[c], hi = off[c + 1];
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (rs[mid] < qe) lo = mid + 1;
                else hi = mid;
            }
            int64_t limit = qs - maxlen[c];
            for (int64_t j = lo - 1; j >= off[c] && rs[j] > limit; j--) {
                cnt += (re[j] > qs);
                scanned++;
            }
        }
        count[i] = cnt;
        total += cnt;
    }

    /* ---- summaries ---- */
    int64_t bins[5] = {0};
    int k = (int)topk;
    int *top = xmalloc(k * sizeof(int));
    int ntop = 0;
    for (int i = 0; i < nq; i++) {
        int64_t v = count[i];
        int b = v == 0 ? 0 : v == 1 ? 1 : v <= 4 ? 2 : v <= 16 ? 3 : 4;
        bins[b]++;
        int pos = ntop;
        while (pos > 0 && count[top[pos - 1]] < v) pos--;
        if (pos < k) {
            int last = ntop < k ? ntop : k - 1;
            for (int t = last; t > pos; t--) top[t] = top[t - 1];
            top[pos] = i;
            if (ntop < k) ntop++;
        }
    }
    int unknown = 0;
    for (int i = 0; i < nq; i++) unknown += (qry.chrom[i] >= n_ref_chroms);

    printf("reference intervals: %d on %d chromosomes\n", ref.n, n_ref_chroms);
    printf("queries: %d (%d on chromosomes without references)\n", nq, unknown);
    printf("total overlaps: %lld, references examined: %lld\n",
           (long long)total, (long long)scanned);
    printf("queries by number of overlaps:\n");
    static const char *labels[5] = { "0", "1", "2-4", "5-16", "17+" };
    for (int b = 0; b < 5; b++)
        printf("  %-5s %8lld\n", labels[b], (long long)bins[b]);
    printf("queries with most overlaps:\n");
    for (int t = 0; t < ntop; t++) {
        int i = top[t];
        printf("  line %6ld  %s:%lld-%lld  %lld overlaps\n", qry.lineno[i],
               chrom_names[qry.chrom[i]], (long long)qry.start[i],
               (long long)qry.end[i], (long long)count[i]);
    }

    free(top); free(count); free(rs); free(re); free(maxlen); free(fill); free(off);
    free(ref.chrom); free(ref.start); free(ref.end); free(ref.lineno);
    free(qry.chrom); free(qry.start); free(qry.end); free(qry.lineno);
    return 0;
}
