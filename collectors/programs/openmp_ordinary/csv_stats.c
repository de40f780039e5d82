/*
 * csv_stats.c - summary statistics for a CSV file of weather-station readings.
 *
 * usage: csv_stats FILE [PASSES] [TOPK]
 *
 * The file has a header line followed by rows
 *     timestamp,station,temperature,humidity,pressure,wind
 * e.g. "2023-03-01 00:05:55,WS-0313,9.1,62.0,,15.1".  Empty fields are
 * missing values; lines that cannot be parsed are counted and skipped.
 *
 * The whole file is read into memory and split into lines; then each pass
 * parses all lines in parallel, groups the records by station (count, mean,
 * min, max per station) and builds per-hour temperature histograms.  PASSES
 * repeats the parse+aggregate work (for benchmarking); every pass produces
 * the same result.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define NFIELDS 4          /* temperature, humidity, pressure, wind */
#define TBINS 40           /* temperature histogram: -30..50 C, 2 C bins */
#define TMIN (-30.0)
#define TBINW 2.0

static const char *field_names[NFIELDS] = {"temp", "humid", "press", "wind"};

typedef struct {
    int station;           /* -1 if the line is malformed */
    int hour;
    long minute;           /* minutes since 1970-01-01 */
    double v[NFIELDS];     /* NAN when missing */
} record_t;

typedef struct {
    int station;
    int count;
    int nvalid[NFIELDS];
    double mean[NFIELDS];
    double min[NFIELDS];
    double max[NFIELDS];
    double max_jump;       /* largest temperature change between readings */
} station_stats_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE [PASSES] [TOPK]\n", prog);
    fprintf(stderr, "  FILE    CSV file (timestamp,station,temperature,humidity,pressure,wind)\n");
    fprintf(stderr, "  PASSES  how many times to parse and aggregate (default 1)\n");
    fprintf(stderr, "  TOPK    number of busiest stations to list (default 8)\n");
    exit(2);
}

static int parse_int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

/* days since 1970-01-01 for a proleptic Gregorian date */
static long days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int read_digits(const char *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)p[i]))
            return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 1;
}

/* Parse "YYYY-MM-DD HH:MM:SS" (or with 'T'); returns pointer after it or NULL. */
static const char *parse_timestamp(const char *p, const char *end, long *minute, int *hour)
{
    int y, mo, d, h, mi, s;
    if (end - p < 19)
        return NULL;
    if (!read_digits(p, 4, &y) || p[4] != '-' || !read_digits(p + 5, 2, &mo) ||
        p[7] != '-' || !read_digits(p + 8, 2, &d) || (p[10] != ' ' && p[10] != 'T') ||
        !read_digits(p + 11, 2, &h) || p[13] != ':' || !read_digits(p + 14, 2, &mi) ||
        p[16] != ':' || !read_digits(p + 17, 2, &s))
        return NULL;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
        return NULL;
    *minute = days_from_civil(y, mo, d) * 1440L + h * 60L + mi;
    *hour = h;
    return p + 19;
}

/* Parse one numeric field ending at ',' or end; empty -> NAN. */
static int parse_field(const char *p, const char *fend, double *out)
{
    if (p == fend) {
        *out = NAN;
        return 1;
    }
    char buf[64];
    size_t n = (size_t)(fend - p);
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *e;
    double v = strtod(buf, &e);
    if (e == buf || *e != '\0' || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static void parse_line(const char *p, const char *end, record_t *r)
{
    r->station = -1;
    const char *q = parse_timestamp(p, end, &r->minute, &r->hour);
    if (!q || q >= end || *q != ',')
        return;
    q++;
    /* station id "WS-1234" or plain number */
    const char *f = q;
    while (q < end && *q != ',')
        q++;
    if (q >= end)
        return;
    const char *digits = f;
    while (digits < q && !isdigit((unsigned char)*digits))
        digits++;
    if (digits == q)
        return;
    int id = 0;
    for (const char *c = digits; c < q; c++) {
        if (!isdigit((unsigned char)*c) || id > 1000000)
            return;
        id = id * 10 + (*c - '0');
    }
    for (int k = 0; k < NFIELDS; k++) {
        q++;                         /* skip the comma */
        const char *fs = q;
        while (q < end && *q != ',')
            q++;
        if (k < NFIELDS - 1 && q >= end)
            return;                  /* too few fields */
        if (k == NFIELDS - 1 && q < end)
            return;                  /* too many fields */
        if (!parse_field(fs, q, &r->v[k]))
            return;
    }
    r->station = id;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "csv_stats: cannot open '%s': %s\n", path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
    }
    if (!buf || ferror(fp)) {
        fprintf(stderr, "csv_stats: error reading '%s'\n", path);
        exit(1);
    }
    fclose(fp);
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int cmp_busiest(const void *a, const void *b)
{
    const station_stats_t *x = a, *y = b;
    if (x->count != y->count)
        return y->count - x->count;
    return x->station - y->station;
}

int main(int argc, char **argv)
{
    int passes = 1, topk = 8;
    if (argc < 2 || argc > 4)
        usage(argv[0]);
    if (argc > 2 && !parse_int_arg(argv[2], 1, 100000, &passes))
        usage(argv[0]);
    if (argc > 3 && !parse_int_arg(argv[3], 1, 1000, &topk))
        usage(argv[0]);

    size_t len;
    char *text = read_file(argv[1], &len);

    /* split into lines (sequential scan) */
    size_t nlines = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            nlines++;
    if (len > 0 && text[len - 1] != '\n')
        nlines++;
    size_t *start = malloc((nlines + 1) * sizeof *start);
    size_t *stop = malloc((nlines + 1) * sizeof *stop);
    size_t nl = 0, s = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n') {
            if (i == len && s == len)
                break;
            size_t e = i;
            if (e > s && text[e - 1] == '\r')
                e--;
            start[nl] = s;
            stop[nl] = e;
            nl++;
            s = i + 1;
        }
    }
    if (nl < 1) {
        fprintf(stderr, "csv_stats: '%s' is empty\n", argv[1]);
        return 1;
    }
    if (strncmp(text + start[0], "timestamp", 9) != 0) {
        fprintf(stderr, "csv_stats: '%s' has no header line\n", argv[1]);
        return 1;
    }
    long nrec = (long)nl - 1;   /* data lines after the header */

    record_t *rec = malloc((size_t)(nrec > 0 ? nrec : 1) * sizeof *rec);
    int *order = malloc((size_t)(nrec > 0 ? nrec : 1) * sizeof *order);
    long bad = 0, missing[NFIELDS] = {0};
    int nst_used = 0, maxid = -1;
    station_stats_t *stats = NULL;
    long hist[24][TBINS];
    long hour_count[24];
    long long hour_sum10[24];

    for (int pass = 0; pass < passes; pass++) {
        /* 1. parse every line */
        long nbad = 0, m0 = 0, m1 = 0, m2 = 0, m3 = 0;
        int mx = -1;
#pragma omp parallel for reduction(+:nbad, m0, m1, m2, m3) reduction(max:mx)
        for (long i = 0; i < nrec; i++) {
            record_t *r = &rec[i];
            parse_line(text + start[i + 1], text + stop[i + 1], r);
            if (r->station < 0) {
                nbad++;
                continue;
            }
            if (r->station > mx)
                mx = r->station;
            m0 += isnan(r->v[0]);
            m1 += isnan(r->v[1]);
            m2 += isnan(r->v[2]);
            m3 += isnan(r->v[3]);
        }
        bad = nbad;
        missing[0] = m0; missing[1] = m1; missing[2] = m2; missing[3] = m3;
        maxid = mx;

        /* 2. group by station: stable counting sort of record indices */
        int nid = maxid + 1;
        int *first = calloc((size_t)nid + 1, sizeof *first);
        for (long i = 0; i < nrec; i++)
            if (rec[i].station >= 0)
                first[rec[i].station + 1]++;
        for (int k = 0; k < nid; k++)
            first[k + 1] += first[k];
        int *fill = malloc(((size_t)nid + 1) * sizeof *fill);
        memcpy(fill, first, ((size_t)nid + 1) * sizeof *fill);
        for (long i = 0; i < nrec; i++)
            if (rec[i].station >= 0)
                order[fill[rec[i].station]++] = (int)i;
        free(fill);

        free(stats);
        stats = calloc((size_t)(nid > 0 ? nid : 1), sizeof *stats);

        /* 3. per-station statistics; each station reads its own records */
#pragma omp parallel for
        for (int st = 0; st < nid; st++) {
            station_stats_t *ss = &stats[st];
            ss->station = st;
            ss->count = first[st + 1] - first[st];
            double sum[NFIELDS] = {0};
            for (int k = 0; k < NFIELDS; k++) {
                ss->min[k] = INFINITY;
                ss->max[k] = -INFINITY;
            }
            double prev_t = NAN;
            ss->max_jump = 0.0;
            for (int j = first[st]; j < first[st + 1]; j++) {
                const record_t *r = &rec[order[j]];
                for (int k = 0; k < NFIELDS; k++) {
                    double v = r->v[k];
                    if (isnan(v))
                        continue;
                    ss->nvalid[k]++;
                    sum[k] += v;
                    if (v < ss->min[k]) ss->min[k] = v;
                    if (v > ss->max[k]) ss->max[k] = v;
                }
                if (!isnan(r->v[0])) {
                    if (!isnan(prev_t) && fabs(r->v[0] - prev_t) > ss->max_jump)
                        ss->max_jump = fabs(r->v[0] - prev_t);
                    prev_t = r->v[0];
                }
            }
            for (int k = 0; k < NFIELDS; k++)
                ss->mean[k] = ss->nvalid[k] ? sum[k] / ss->nvalid[k] : NAN;
        }
        nst_used = 0;
        for (int st = 0; st < nid; st++)
            if (stats[st].count > 0)
                nst_used++;
        free(first);

        /* 4. hourly temperature histograms: thread-local, merged at the end */
        memset(hist, 0, sizeof hist);
        memset(hour_count, 0, sizeof hour_count);
        memset(hour_sum10, 0, sizeof hour_sum10);
#pragma omp parallel
        {
            long lh[24][TBINS];
            long lc[24];
            long long ls[24];
            memset(lh, 0, sizeof lh);
            memset(lc, 0, sizeof lc);
            memset(ls, 0, sizeof ls);
#pragma omp for
            for (long i = 0; i < nrec; i++) {
                const record_t *r = &rec[i];
                if (r->station < 0 || isnan(r->v[0]))
                    continue;
                int b = (int)floor((r->v[0] - TMIN) / TBINW);
                if (b < 0) b = 0;
                if (b >= TBINS) b = TBINS - 1;
                lh[r->hour][b]++;
                lc[r->hour]++;
                ls[r->hour] += lround(r->v[0] * 10.0);
            }
#pragma omp critical
            {
                for (int h = 0; h < 24; h++) {
                    for (int b = 0; b < TBINS; b++)
                        hist[h][b] += lh[h][b];
                    hour_count[h] += lc[h];
                    hour_sum10[h] += ls[h];
                }
            }
        }
    }

    /* ---- report ---- */
    long good = nrec - bad;
    printf("file %s: %ld data lines, %ld parsed, %ld malformed, %d stations\n",
           argv[1], nrec, good, bad, nst_used);
    printf("missing values:");
    for (int k = 0; k < NFIELDS; k++)
        printf(" %s=%ld", field_names[k], missing[k]);
    printf("\n\n");

    int nid = maxid + 1;
    station_stats_t *sorted = malloc((size_t)(nid > 0 ? nid : 1) * sizeof *sorted);
    if (nid > 0)
        memcpy(sorted, stats, (size_t)nid * sizeof *sorted);
    qsort(sorted, (size_t)nid, sizeof *sorted, cmp_busiest);
    if (topk > nst_used)
        topk = nst_used;
    printf("top %d stations by number of readings:\n", topk);
    printf("%-8s %6s %7s %7s %7s %7s %8s %6s %7s\n", "station", "count", "t_mean",
           "t_min", "t_max", "h_mean", "p_mean", "w_max", "t_jump");
    for (int i = 0; i < topk; i++) {
        const station_stats_t *ss = &sorted[i];
        printf("WS-%04d  %6d %7.2f %7.1f %7.1f %7.2f %8.2f %6.1f %7.1f\n", ss->station,
               ss->count, ss->mean[0], ss->min[0], ss->max[0], ss->mean[1], ss->mean[2],
               ss->max[3], ss->max_jump);
    }

    /* overall extremes from the per-station table */
    int hot = -1, cold = -1;
    for (int st = 0; st < nid; st++) {
        if (stats[st].nvalid[0] < 10)
            continue;
        if (hot < 0 || stats[st].mean[0] > stats[hot].mean[0]) hot = st;
        if (cold < 0 || stats[st].mean[0] < stats[cold].mean[0]) cold = st;
    }
    if (hot >= 0)
        printf("\nwarmest station WS-%04d (mean %.2f C), coldest WS-%04d (mean %.2f C)\n",
               hot, stats[hot].mean[0], cold, stats[cold].mean[0]);

    printf("\nhour  readings  mean_t  p10_t  median_t  p90_t\n");
    for (int h = 0; h < 24; h++) {
        long n = hour_count[h];
        double q[3] = {NAN, NAN, NAN};
        const double frac[3] = {0.10, 0.50, 0.90};
        for (int j = 0; j < 3 && n > 0; j++) {
            long target = (long)ceil(frac[j] * n), acc = 0;
            for (int b = 0; b < TBINS; b++) {
                acc += hist[h][b];
                if (acc >= target) {
                    q[j] = TMIN + (b + 0.5) * TBINW;
                    break;
                }
            }
        }
        printf("%02d   %8ld  %6.2f  %5.1f  %8.1f  %5.1f\n", h, n,
               n ? hour_sum10[h] / (10.0 * n) : NAN, q[0], q[1], q[2]);
    }

    free(sorted);
    free(stats);
    free(order);
    free(rec);
    free(start);
    free(stop);
    free(text);
    return 0;
}
