/*
 * hashjoin.c - join an orders table with a customers table and aggregate,
 * like
 *     SELECT c.region, c.segment, month(o.date), count(*), sum(o.amount)
 *     FROM orders o JOIN customers c ON o.customer_id = c.customer_id
 *     GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;
 *
 * usage: hashjoin orders.csv customers.csv [passes]
 *
 *   orders.csv     order_id,customer_id,amount,date   (amount like 12.50, date YYYY-MM-DD)
 *   customers.csv  customer_id,region,segment
 * Both files start with a header line.  The files are read into memory once;
 * the query (parse, build, probe, group) runs `passes` times (default 1),
 * which is how it is benchmarked.  Amounts are kept in integer cents.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_NAMES 64
#define NAME_LEN 32
#define BLOCK 256          /* rows handled together: parsing and probing go block by block */

typedef struct {
    char *text;
    long nlines;      /* data lines (header excluded) */
    char **line;      /* start of each data line, NUL-terminated */
} table_text_t;

typedef struct {
    long long count, cents, max_cents;
} agg_t;

typedef struct {
    char names[MAX_NAMES][NAME_LEN];
    int n;
} dict_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s orders.csv customers.csv [passes]\n", prog);
    fprintf(stderr, "  orders.csv     order_id,customer_id,amount,date (with a header line)\n");
    fprintf(stderr, "  customers.csv  customer_id,region,segment (with a header line)\n");
    fprintf(stderr, "  passes         run the query this many times (default 1)\n");
}

/* Reads a whole file and splits it into lines; the header line is checked and dropped. */
static int load_table(const char *path, const char *header, table_text_t *t, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size < 0) {
        snprintf(err, errlen, "cannot read '%s'", path);
        fclose(f);
        return -1;
    }
    t->text = malloc(size + 1);
    if (!t->text || fread(t->text, 1, size, f) != (size_t)size) {
        snprintf(err, errlen, "cannot read '%s'", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    t->text[size] = 0;
    long n = 0;
    for (long i = 0; i < size; i++)
        if (t->text[i] == '\n')
            n++;
    t->line = malloc(sizeof(char *) * (n + 2));
    long k = 0;
    char *s = t->text;
    while (*s) {
        char *e = strchr(s, '\n');
        if (e) *e = 0;
        size_t len = strlen(s);
        if (len && s[len - 1] == '\r') s[len - 1] = 0;
        if (*s) t->line[k++] = s;
        if (!e) break;
        s = e + 1;
    }
    if (k == 0 || strcmp(t->line[0], header) != 0) {
        snprintf(err, errlen, "'%s': expected header line '%s'", path, header);
        return -1;
    }
    t->line++;
    t->nlines = k - 1;
    return 0;
}

static int parse_long(const char **p, long long *v)
{
    const char *s = *p;
    int neg = 0;
    if (*s == '-') { neg = 1; s++; }
    if (*s < '0' || *s > '9') return -1;
    long long x = 0;
    while (*s >= '0' && *s <= '9') {
        x = x * 10 + (*s - '0');
        if (x > 1000000000000LL) return -1;
        s++;
    }
    *v = neg ? -x : x;
    *p = s;
    return 0;
}

/* "123.45" or "-7.5" or "12" -> cents */
static int parse_amount(const char **p, long long *cents)
{
    const char *s = *p;
    int neg = (*s == '-');
    if (neg) s++;
    long long whole;
    if (parse_long(&s, &whole)) return -1;
    long long frac = 0;
    if (*s == '.') {
        s++;
        int digits = 0;
        while (*s >= '0' && *s <= '9') {
            if (digits < 2) frac = frac * 10 + (*s - '0');
            digits++;
            s++;
        }
        if (digits == 0) return -1;
        if (digits == 1) frac *= 10;
    }
    long long c = whole * 100 + frac;
    *cents = neg ? -c : c;
    *p = s;
    return 0;
}

/* parses "order_id,customer_id,amount,YYYY-MM-DD"; month = year*12 + month-1 */
static int parse_order(const char *s, long long *cust, long long *cents, int *month)
{
    long long id, y, m, d;
    if (parse_long(&s, &id) || *s++ != ',') return -1;
    if (parse_long(&s, cust) || *s++ != ',') return -1;
    if (parse_amount(&s, cents) || *s++ != ',') return -1;
    if (parse_long(&s, &y) || *s++ != '-' || parse_long(&s, &m) || *s++ != '-' || parse_long(&s, &d) || *s)
        return -1;
    if (y < 1900 || y > 2200 || m < 1 || m > 12 || d < 1 || d > 31) return -1;
    *month = (int)(y * 12 + m - 1);
    return 0;
}

/* parses "customer_id,region,segment": returns offsets of the two names */
static int parse_customer(const char *s, long long *id, const char **region, int *rlen,
                          const char **segment, int *slen)
{
    if (parse_long(&s, id) || *s++ != ',') return -1;
    *region = s;
    while (*s && *s != ',') s++;
    *rlen = (int)(s - *region);
    if (*s++ != ',') return -1;
    *segment = s;
    while (*s && *s != ',') s++;
    *slen = (int)(s - *segment);
    if (*s || *rlen == 0 || *slen == 0 || *rlen >= NAME_LEN || *slen >= NAME_LEN) return -1;
    return 0;
}

static int dict_id(dict_t *d, const char *s, int len)
{
    for (int i = 0; i < d->n; i++)
        if ((int)strlen(d->names[i]) == len && memcmp(d->names[i], s, len) == 0)
            return i;
    if (d->n == MAX_NAMES) return -1;
    memcpy(d->names[d->n], s, len);
    d->names[d->n][len] = 0;
    return d->n++;
}

static inline uint64_t hash_id(long long id)
{
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* integer cents -> "-1234.56" */
static const char *money(long long c, char *buf, size_t len)
{
    long long a = c < 0 ? -c : c;
    snprintf(buf, len, "%s%lld.%02lld", c < 0 ? "-" : "", a / 100, a % 100);
    return buf;
}

static int cmp_names(const void *a, const void *b, const dict_t *d)
{
    return strcmp(d->names[*(const int *)a], d->names[*(const int *)b]);
}
static const dict_t *sort_dict;
static int cmp_idx(const void *a, const void *b) { return cmp_names(a, b, sort_dict); }

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    long passes = 1;
    if (argc > 3) {
        char *end;
        passes = strtol(argv[3], &end, 10);
        if (*end || end == argv[3] || passes < 1 || passes > 1000000) {
            usage(argv[0]);
            return 2;
        }
    }
    char err[512];
    table_text_t ot, ct;
    if (load_table(argv[1], "order_id,customer_id,amount,date", &ot, err, sizeof err) ||
        load_table(argv[2], "customer_id,region,segment", &ct, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    long no = ot.nlines, nc = ct.nlines;
    if (nc == 0) {
        fprintf(stderr, "%s: '%s' has no customers\n", argv[0], argv[2]);
        return 1;
    }

    long long *o_cust = malloc(sizeof(long long) * (no + 1));
    long long *o_cents = malloc(sizeof(long long) * (no + 1));
    int *o_month = malloc(sizeof(int) * (no + 1));
    long long *c_id = malloc(sizeof(long long) * nc);
    int *c_region = malloc(sizeof(int) * nc), *c_segment = malloc(sizeof(int) * nc);
    const char **c_rname = malloc(sizeof(char *) * nc), **c_sname = malloc(sizeof(char *) * nc);
    int *c_rlen = malloc(sizeof(int) * nc), *c_slen = malloc(sizeof(int) * nc);
    long cap = 16;
    while (cap < 2 * nc) cap *= 2;
    long long *slot_key = malloc(sizeof(long long) * cap);
    int *slot_row = malloc(sizeof(int) * cap);
    int nthreads = omp_get_max_threads();
    dict_t regions, segments;
    agg_t *groups = NULL, *partial = NULL;
    int ngroups = 0, month_lo = 0, nmonths = 0;
    long unmatched = 0, duplicates = 0, matched_total = 0;
    long long unmatched_cents = 0;

    for (long pass = 0; pass < passes; pass++) {
        /* parse customers in parallel; remember where the names are */
        long bad = nc;
        long cblocks = (nc + BLOCK - 1) / BLOCK;
#pragma omp parallel for reduction(min:bad)
        for (long b = 0; b < cblocks; b++) {
            long end = (b + 1) * BLOCK < nc ? (b + 1) * BLOCK : nc;
            for (long i = b * BLOCK; i < end; i++)
                if (parse_customer(ct.line[i], &c_id[i], &c_rname[i], &c_rlen[i], &c_sname[i], &c_slen[i]))
                    if (i < bad) bad = i;
        }
        if (bad < nc) {
            fprintf(stderr, "%s: '%s' line %ld: malformed customer row\n", argv[0], argv[2], bad + 2);
            return 1;
        }
        /* name dictionaries and hash table: sequential, in file order */
        regions.n = segments.n = 0;
        for (long i = 0; i < nc; i++) {
            c_region[i] = dict_id(&regions, c_rname[i], c_rlen[i]);
            c_segment[i] = dict_id(&segments, c_sname[i], c_slen[i]);
            if (c_region[i] < 0 || c_segment[i] < 0) {
                fprintf(stderr, "%s: '%s': more than %d distinct regions or segments\n", argv[0], argv[2], MAX_NAMES);
                return 1;
            }
        }
        for (long s = 0; s < cap; s++)
            slot_row[s] = -1;
        duplicates = 0;
        for (long i = 0; i < nc; i++) {
            long s = (long)(hash_id(c_id[i]) & (cap - 1));
            while (slot_row[s] >= 0 && slot_key[s] != c_id[i])
                s = (s + 1) & (cap - 1);
            if (slot_row[s] >= 0) {
                duplicates++;          /* first occurrence wins */
                continue;
            }
            slot_key[s] = c_id[i];
            slot_row[s] = (int)i;
        }

        /* parse orders in parallel */
        int mlo = 1 << 30, mhi = -1;
        bad = no;
        long oblocks = (no + BLOCK - 1) / BLOCK;
#pragma omp parallel for reduction(min:bad, mlo) reduction(max:mhi)
        for (long b = 0; b < oblocks; b++) {
            long end = (b + 1) * BLOCK < no ? (b + 1) * BLOCK : no;
            for (long i = b * BLOCK; i < end; i++) {
                if (parse_order(ot.line[i], &o_cust[i], &o_cents[i], &o_month[i])) {
                    if (i < bad) bad = i;
                    continue;
                }
                if (o_month[i] < mlo) mlo = o_month[i];
                if (o_month[i] > mhi) mhi = o_month[i];
            }
        }
        if (bad < no) {
            fprintf(stderr, "%s: '%s' line %ld: malformed order row\n", argv[0], argv[1], bad + 2);
            return 1;
        }
        if (no == 0) { mlo = 0; mhi = 0; }
        month_lo = mlo;
        nmonths = mhi - mlo + 1;
        ngroups = regions.n * segments.n * nmonths;
        free(partial);
        free(groups);
        partial = calloc((size_t)nthreads * ngroups, sizeof(agg_t));
        groups = calloc((size_t)ngroups, sizeof(agg_t));

        /* probe: every order looks up its customer; per-thread partial aggregates */
        long miss = 0;
        long long miss_cents = 0;
#pragma omp parallel reduction(+:miss, miss_cents)
        {
            agg_t *mine = partial + (size_t)omp_get_thread_num() * ngroups;
#pragma omp for
            for (long b = 0; b < oblocks; b++) {
                long end = (b + 1) * BLOCK < no ? (b + 1) * BLOCK : no;
                for (long i = b * BLOCK; i < end; i++) {
                    long long key = o_cust[i];
                    long s = (long)(hash_id(key) & (cap - 1));
                    while (slot_row[s] >= 0 && slot_key[s] != key)
                        s = (s + 1) & (cap - 1);
                    if (slot_row[s] < 0) {
                        miss++;
                        miss_cents += o_cents[i];
                        continue;
                    }
                    int c = slot_row[s];
                    int g = (c_region[c] * segments.n + c_segment[c]) * nmonths + (o_month[i] - month_lo);
                    mine[g].count++;
                    mine[g].cents += o_cents[i];
                    if (mine[g].count == 1 || o_cents[i] > mine[g].max_cents)
                        mine[g].max_cents = o_cents[i];
                }
            }
        }
        /* merge the partials in thread order */
        for (int t = 0; t < nthreads; t++) {
            const agg_t *p = partial + (size_t)t * ngroups;
            for (int g = 0; g < ngroups; g++) {
                if (!p[g].count) continue;
                if (!groups[g].count || p[g].max_cents > groups[g].max_cents)
                    groups[g].max_cents = p[g].max_cents;
                groups[g].count += p[g].count;
                groups[g].cents += p[g].cents;
            }
        }
        unmatched = miss;
        unmatched_cents = miss_cents;
        matched_total = no - miss;
    }

    /* ORDER BY region, segment, month */
    int rorder[MAX_NAMES], sorder[MAX_NAMES];
    for (int i = 0; i < regions.n; i++) rorder[i] = i;
    for (int i = 0; i < segments.n; i++) sorder[i] = i;
    sort_dict = &regions;
    qsort(rorder, regions.n, sizeof(int), cmp_idx);
    sort_dict = &segments;
    qsort(sorder, segments.n, sizeof(int), cmp_idx);

    printf("orders: %ld rows, customers: %ld rows (%d regions, %d segments, %ld duplicate ids ignored), %ld passes\n",
           no, nc, regions.n, segments.n, duplicates, passes);
    printf("%-12s %-12s %-7s %7s %14s %10s %10s\n", "region", "segment", "month", "orders", "total", "average", "largest");
    long long grand = 0;
    int printed = 0;
    for (int a = 0; a < regions.n; a++) {
        for (int b = 0; b < segments.n; b++) {
            int r = rorder[a], s = sorder[b];
            for (int m = 0; m < nmonths; m++) {
                const agg_t *g = &groups[(r * segments.n + s) * nmonths + m];
                if (!g->count) continue;
                int mon = month_lo + m;
                char buf[32];
                grand += g->cents;
                printed++;
                printf("%-12s %-12s %04d-%02d %7lld %14s %10.2f %10.2f\n", regions.names[r],
                       segments.names[s], mon / 12, mon % 12 + 1, g->count, money(g->cents, buf, sizeof buf),
                       (double)g->cents / 100.0 / g->count, g->max_cents / 100.0);
            }
        }
    }
    char b1[32], b2[32];
    printf("groups: %d, joined orders: %ld, total %s\n", printed, matched_total, money(grand, b1, sizeof b1));
    printf("orders without a customer: %ld (amount %s)\n", unmatched, money(unmatched_cents, b2, sizeof b2));
    return 0;
}
