/* log_stats: access-log analytics.  Reads a common-log-format-like access log
 * whose last field is the request latency in microseconds, parses it in
 * parallel over line ranges, counts status codes and requests per URL, and
 * computes per-URL latency percentiles with bootstrap estimates of the p95
 * spread.
 *
 * usage: log_stats ACCESS_LOG BOOTSTRAP_ROUNDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <omp.h>

#define LINES_PER_RANGE 512
#define MAX_CODE 600

typedef struct {
    const char *url;
    int url_len;
    int status;
    int hour;
    long bytes;
    long latency_us;
    int ok;
} Entry;

static int parse_line(const char *s, const char *end, Entry *e)
{
    const char *p = memchr(s, '[', (size_t)(end - s));
    if (!p) return 0;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    if (!colon || end - colon < 3 || colon[1] < '0' || colon[1] > '9' || colon[2] < '0' || colon[2] > '9')
        return 0;
    e->hour = (colon[1] - '0') * 10 + (colon[2] - '0');
    if (e->hour > 23) return 0;
    p = memchr(colon, '"', (size_t)(end - colon));
    if (!p) return 0;
    p++;
    const char *sp = memchr(p, ' ', (size_t)(end - p));          /* after the method */
    if (!sp) return 0;
    const char *u = sp + 1;
    const char *ue = u;
    while (ue < end && *ue != ' ' && *ue != '"') ue++;
    if (ue == u || ue >= end) return 0;
    const char *q = memchr(ue, '"', (size_t)(end - ue));         /* closing quote */
    if (!q) return 0;
    q++;
    char *stop;
    long status = strtol(q, &stop, 10);
    if (stop == q || status < 100 || status >= MAX_CODE) return 0;
    q = stop;
    long bytes = 0;
    while (q < end && *q == ' ') q++;
    if (q < end && *q == '-') {
        q++;
    } else {
        bytes = strtol(q, &stop, 10);
        if (stop == q || bytes < 0) return 0;
        q = stop;
    }
    long lat = strtol(q, &stop, 10);
    if (stop == q || lat < 0 || stop > end) return 0;
    while (stop < end && (*stop == ' ' || *stop == '\r')) stop++;
    if (stop != end) return 0;
    e->url = u;
    e->url_len = (int)(ue - u);
    e->status = (int)status;
    e->bytes = bytes;
    e->latency_us = lat;
    return 1;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of a sorted array */
static long pct(const long *v, long n, int p)
{
    long r = (p * n + 99) / 100;
    if (r < 1) r = 1;
    return v[r - 1];
}

static unsigned long long splitmix(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned long long hash_str(const char *s, int n)
{
    unsigned long long h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static long *req_count;
static int cmp_url(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (req_count[i] != req_count[j])
        return req_count[i] > req_count[j] ? -1 : 1;
    return i - j;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ACCESS_LOG BOOTSTRAP_ROUNDS\n", argv[0]);
        return 2;
    }
    char *e1;
    long rounds = strtol(argv[2], &e1, 10);
    if (*e1 || rounds < 0 || rounds > 1000000) {
        fprintf(stderr, "usage: %s ACCESS_LOG BOOTSTRAP_ROUNDS  (BOOTSTRAP_ROUNDS >= 0)\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "log_stats: cannot open %s\n", argv[1]);
        return 1;
    }
    size_t cap = 1 << 20, len = 0, got;
    char *buf = malloc(cap + 1);
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    fclose(f);
    buf[len] = '\0';

    /* line boundaries */
    long nlines = 0, lcap = 1024;
    long *start = malloc(sizeof(long) * (size_t)(lcap + 1));
    for (size_t pos = 0; pos < len;) {
        char *nl = memchr(buf + pos, '\n', len - pos);
        size_t next = nl ? (size_t)(nl - buf) + 1 : len;
        if (nlines == lcap) {
            lcap *= 2;
            start = realloc(start, sizeof(long) * (size_t)(lcap + 1));
        }
        start[nlines++] = (long)pos;
        pos = next;
    }
    start[nlines] = (long)len;
    if (nlines == 0) {
        fprintf(stderr, "log_stats: %s: empty log\n", argv[1]);
        return 1;
    }

    Entry *ent = malloc(sizeof(Entry) * (size_t)nlines);
    long nranges = (nlines + LINES_PER_RANGE - 1) / LINES_PER_RANGE;
    long codes[MAX_CODE];
    memset(codes, 0, sizeof codes);
    long bytes_total = 0;
    long lat_max = 0;
    #pragma omp parallel
    {
        #pragma omp for
        for (long r = 0; r < nranges; r++) {
            long l1 = (r + 1) * LINES_PER_RANGE < nlines ? (r + 1) * LINES_PER_RANGE : nlines;
            for (long l = r * LINES_PER_RANGE; l < l1; l++) {
                const char *s = buf + start[l];
                const char *e = buf + start[l + 1];
                if (e > s && e[-1] == '\n') e--;
                ent[l].ok = parse_line(s, e, &ent[l]);
                if (!ent[l].ok && e == s)
                    ent[l].ok = -1;   /* blank line: ignored */
            }
        }
        #pragma omp for reduction(+:codes[:MAX_CODE], bytes_total) reduction(max:lat_max)
        for (long l = 0; l < nlines; l++) {
            if (ent[l].ok == 1) {
                codes[ent[l].status]++;
                bytes_total += ent[l].bytes;
                if (ent[l].latency_us > lat_max)
                    lat_max = ent[l].latency_us;
            }
        }
    }
    for (long l = 0; l < nlines; l++)
        if (ent[l].ok == 0) {
            fprintf(stderr, "log_stats: %s:%ld: malformed log line\n", argv[1], l + 1);
            return 1;
        }

    /* intern URLs in order of first appearance */
    long hcap = 1024;
    while (hcap < 2 * nlines) hcap *= 2;
    int *table = malloc(sizeof(int) * (size_t)hcap);
    for (long h = 0; h < hcap; h++) table[h] = -1;
    int nurls = 0;
    int *url_of = malloc(sizeof(int) * (size_t)nlines);
    int *first_line = malloc(sizeof(int) * (size_t)nlines);
    long nreq = 0;
    int hour_count[24] = {0};
    for (long l = 0; l < nlines; l++) {
        if (ent[l].ok != 1) { url_of[l] = -1; continue; }
        nreq++;
        hour_count[ent[l].hour]++;
        unsigned long long h = hash_str(ent[l].url, ent[l].url_len) & (unsigned long long)(hcap - 1);
        for (;;) {
            int id = table[h];
            if (id < 0) {
                table[h] = nurls;
                first_line[nurls] = (int)l;
                url_of[l] = nurls++;
                break;
            }
            const Entry *o = &ent[first_line[id]];
            if (o->url_len == ent[l].url_len && memcmp(o->url, ent[l].url, (size_t)o->url_len) == 0) {
                url_of[l] = id;
                break;
            }
            h = (h + 1) & (unsigned long long)(hcap - 1);
        }
    }
    if (nreq == 0) {
        fprintf(stderr, "log_stats: %s: no requests found\n", argv[1]);
        return 1;
    }
    req_count = calloc((size_t)nurls, sizeof(long));
    long *err_count = calloc((size_t)nurls, sizeof(long));
    long *uptr = calloc((size_t)nurls + 1, sizeof(long));
    for (long l = 0; l < nlines; l++)
        if (url_of[l] >= 0) {
            req_count[url_of[l]]++;
            if (ent[l].status >= 400) err_count[url_of[l]]++;
        }
    for (int u = 0; u < nurls; u++) uptr[u + 1] = uptr[u] + req_count[u];
    long *lat = malloc(sizeof(long) * (size_t)nreq);
    long *fill = malloc(sizeof(long) * (size_t)nurls);
    memcpy(fill, uptr, sizeof(long) * (size_t)nurls);
    for (long l = 0; l < nlines; l++)
        if (url_of[l] >= 0)
            lat[fill[url_of[l]]++] = ent[l].latency_us;

    long *p50 = malloc(sizeof(long) * (size_t)nurls);
    long *p95 = malloc(sizeof(long) * (size_t)nurls);
    long *p99 = malloc(sizeof(long) * (size_t)nurls);
    double *boot_mean = malloc(sizeof(double) * (size_t)nurls);
    double *boot_sd = malloc(sizeof(double) * (size_t)nurls);
    #pragma omp parallel
    {
        long *sample = malloc(sizeof(long) * (size_t)(nreq > 0 ? nreq : 1));
        #pragma omp for
        for (int u = 0; u < nurls; u++) {
            long n = req_count[u];
            long *v = lat + uptr[u];
            qsort(v, (size_t)n, sizeof(long), cmp_long);
            p50[u] = pct(v, n, 50);
            p95[u] = pct(v, n, 95);
            p99[u] = pct(v, n, 99);
            long long s1 = 0;
            double s2 = 0.0;
            for (long b = 0; b < rounds; b++) {
                unsigned long long st = ((unsigned long long)u << 32) ^ (unsigned long long)b ^ 0x5eedULL;
                for (long t = 0; t < n; t++)
                    sample[t] = v[splitmix(&st) % (unsigned long long)n];
                qsort(sample, (size_t)n, sizeof(long), cmp_long);
                long q = pct(sample, n, 95);
                s1 += q;
                s2 += (double)q * (double)q;
            }
            if (rounds > 0) {
                double m = (double)s1 / (double)rounds;
                double var = s2 / (double)rounds - m * m;
                boot_mean[u] = m;
                boot_sd[u] = var > 0 ? sqrt(var) : 0.0;
            } else {
                boot_mean[u] = (double)p95[u];
                boot_sd[u] = 0.0;
            }
        }
        free(sample);
    }

    printf("requests %ld, distinct URLs %d, bytes %ld, max latency %.3f ms\n", nreq, nurls, bytes_total,
           lat_max / 1000.0);
    printf("status codes:");
    for (int c = 0; c < MAX_CODE; c++)
        if (codes[c] > 0)
            printf(" %d:%ld", c, codes[c]);
    printf("\n");
    int busiest = 0;
    for (int h = 1; h < 24; h++)
        if (hour_count[h] > hour_count[busiest]) busiest = h;
    printf("busiest hour: %02d:00 (%d requests)\n", busiest, hour_count[busiest]);
    int *order = malloc(sizeof(int) * (size_t)nurls);
    for (int u = 0; u < nurls; u++) order[u] = u;
    qsort(order, (size_t)nurls, sizeof(int), cmp_url);
    printf("%-4s %7s %7s %6s %10s %10s %10s %18s  %s\n", "rank", "reqs", "share%", "errs", "p50_ms",
           "p95_ms", "p99_ms", "boot_p95_ms", "url");
    for (int t = 0; t < 10 && t < nurls; t++) {
        int u = order[t];
        const Entry *e = &ent[first_line[u]];
        printf("%-4d %7ld %7.3f %6ld %10.3f %10.3f %10.3f %9.3f+-%7.3f  %.*s\n", t + 1, req_count[u],
               100.0 * req_count[u] / nreq, err_count[u], p50[u] / 1000.0, p95[u] / 1000.0, p99[u] / 1000.0,
               boot_mean[u] / 1000.0, boot_sd[u] / 1000.0, e->url_len, e->url);
    }
    return 0;
}
