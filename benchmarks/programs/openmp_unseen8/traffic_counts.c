/*
 * traffic_counts.c - summarise vehicle-detector logs.
 *
 * Each log line is one detected vehicle:
 *
 *     <time s> <sensor id> <speed km/h> <length cm>
 *
 * where time is seconds since midnight of the log's day (values past one
 * day wrap onto the hour of day), sensor ids are small integers starting
 * at 0.  Blank lines and lines starting with '#' are ignored.  Several
 * log files (e.g. one per day) can be given and are summed together.
 *
 * Usage: traffic_counts <car limit km/h> <heavy limit km/h> <log file>...
 *
 * Vehicles of at least 7.5 m count as heavy and are held to the second
 * speed limit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#define MAX_SENSORS 256
#define HOURS 24
#define SPEED_BIN_KMH 5
#define SPEED_BINS 40          /* 0..194 km/h, last bin holds 195 and up */
#define HEAVY_LENGTH_CM 750
#define BAR_WIDTH 40

typedef struct {
    int time_s;
    unsigned short sensor;
    unsigned short speed;
    unsigned short length_cm;
} Record;

typedef struct {
    Record *rec;
    size_t n, cap;
    int max_sensor;
} Log;

static const char *prog = "traffic_counts";

static void usage(void)
{
    fprintf(stderr, "usage: %s <car limit km/h> <heavy limit km/h> <log file>...\n", prog);
    exit(2);
}

static int parse_limit(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < 5 || v > 300)
        return -1;
    *out = (int)v;
    return 0;
}

/* Parse an unsigned decimal field starting at *pp, skipping blanks before
 * it.  Stops at the first non-digit.  Returns -1 if there is no digit. */
static long read_field(const char **pp, const char *end)
{
    const char *p = *pp;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p < '0' || *p > '9')
        return -1;
    long v = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        if (v > 100000000L)
            return -1;
        p++;
    }
    *pp = p;
    return v;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fprintf(stderr, "%s: out of memory reading %s\n", prog, path);
            exit(1);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    if (ferror(f)) {
        fprintf(stderr, "%s: read error on %s\n", prog, path);
        exit(1);
    }
    fclose(f);
    *len = n;
    return buf;
}

static void load_log(const char *path, Log *log)
{
    size_t len;
    char *buf = slurp(path, &len);
    const char *p = buf, *end = buf + len;
    long lineno = 0;
    size_t before = log->n;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        lineno++;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q == eol || *q == '#') {
            p = eol + 1;
            continue;
        }
        long v[4];
        int ok = 1;
        for (int k = 0; k < 4 && ok; k++) {
            v[k] = read_field(&q, eol);
            if (v[k] < 0)
                ok = 0;
        }
        while (ok && q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (!ok || q != eol || v[1] >= MAX_SENSORS || v[2] > 400 ||
            v[3] < 100 || v[3] > 4000 || v[0] > 10 * 86400L) {
            fprintf(stderr, "%s: %s:%ld: malformed record\n", prog, path, lineno);
            exit(1);
        }
        if (log->n == log->cap) {
            log->cap = log->cap ? 2 * log->cap : 1 << 16;
            log->rec = realloc(log->rec, log->cap * sizeof *log->rec);
            if (!log->rec) {
                fprintf(stderr, "%s: out of memory\n", prog);
                exit(1);
            }
        }
        Record *r = &log->rec[log->n++];
        r->time_s = (int)v[0];
        r->sensor = (unsigned short)v[1];
        r->speed = (unsigned short)v[2];
        r->length_cm = (unsigned short)v[3];
        if ((int)v[1] > log->max_sensor)
            log->max_sensor = (int)v[1];
        p = eol + 1;
    }
    free(buf);
    if (log->n == before) {
        fprintf(stderr, "%s: %s: no vehicle records\n", prog, path);
        exit(1);
    }
}

static double pct(long part, long whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

int main(int argc, char **argv)
{
    int car_limit, heavy_limit;

    if (argc < 4)
        usage();
    if (parse_limit(argv[1], &car_limit) || parse_limit(argv[2], &heavy_limit))
        usage();

    Log log = { NULL, 0, 0, -1 };
    for (int a = 3; a < argc; a++)
        load_log(argv[a], &log);

    const int nsensors = log.max_sensor + 1;
    const long n = (long)log.n;
    const Record *rec = log.rec;

    long *hourly = calloc((size_t)nsensors * HOURS, sizeof *hourly);
    long *speeding = calloc((size_t)nsensors, sizeof *speeding);
    long *heavy = calloc((size_t)nsensors, sizeof *heavy);
    long *speed_hist = calloc(SPEED_BINS, sizeof *speed_hist);
    if (!hourly || !speeding || !heavy || !speed_hist) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }

    #pragma omp parallel for
    for (long i = 0; i < n; i++) {
        const Record *r = &rec[i];
        int s = r->sensor;
        int hour = (r->time_s / 3600) % HOURS;
        int bin = r->speed / SPEED_BIN_KMH;
        if (bin >= SPEED_BINS)
            bin = SPEED_BINS - 1;
        int is_heavy = r->length_cm >= HEAVY_LENGTH_CM;
        int limit = is_heavy ? heavy_limit : car_limit;

        #pragma omp atomic
        hourly[s * HOURS + hour]++;
        #pragma omp atomic
        speed_hist[bin]++;
        if (is_heavy) {
            #pragma omp atomic
            heavy[s]++;
        }
        if (r->speed > limit) {
            #pragma omp atomic
            speeding[s]++;
        }
    }

    /* ---- report ---- */
    long hour_total[HOURS] = { 0 };
    long all_speeding = 0, all_heavy = 0;
    int active = 0;

    printf("%ld vehicle records from %d log file%s, %d sensor ids\n",
           n, argc - 3, argc - 3 == 1 ? "" : "s", nsensors);
    printf("speed limits: %d km/h (cars), %d km/h (heavy, >= %.1f m)\n\n",
           car_limit, heavy_limit, HEAVY_LENGTH_CM / 100.0);
    printf("sensor  vehicles  heavy%%  speeding%%  busiest hour\n");
    for (int s = 0; s < nsensors; s++) {
        long total = 0, best = -1;
        int best_hour = 0;
        for (int h = 0; h < HOURS; h++) {
            long c = hourly[s * HOURS + h];
            total += c;
            hour_total[h] += c;
            if (c > best) {
                best = c;
                best_hour = h;
            }
        }
        all_speeding += speeding[s];
        all_heavy += heavy[s];
        if (total == 0)
            continue;
        active++;
        printf("%6d  %8ld  %6.1f  %9.1f  %02d:00-%02d:00 (%ld)\n", s, total,
               pct(heavy[s], total), pct(speeding[s], total),
               best_hour, best_hour + 1, best);
    }
    printf("all     %8ld  %6.1f  %9.1f  (%d active sensors)\n\n", n,
           pct(all_heavy, n), pct(all_speeding, n), active);

    int peak_hour = 0;
    for (int h = 1; h < HOURS; h++)
        if (hour_total[h] > hour_total[peak_hour])
            peak_hour = h;
    printf("vehicles per hour of day (peak %02d:00):\n", peak_hour);
    for (int h = 0; h < HOURS; h++)
        printf("  %02d:00 %8ld%s", h, hour_total[h], (h % 4 == 3) ? "\n" : "");
    printf("\n");

    int first = SPEED_BINS, last = -1;
    long hmax = 0;
    for (int b = 0; b < SPEED_BINS; b++) {
        if (speed_hist[b]) {
            if (b < first)
                first = b;
            last = b;
            if (speed_hist[b] > hmax)
                hmax = speed_hist[b];
        }
    }
    printf("speed histogram (km/h):\n");
    for (int b = first; b <= last; b++) {
        int bar = hmax ? (int)(speed_hist[b] * BAR_WIDTH / hmax) : 0;
        char label[16];
        if (b == SPEED_BINS - 1)
            snprintf(label, sizeof label, "%3d+   ", b * SPEED_BIN_KMH);
        else
            snprintf(label, sizeof label, "%3d-%3d", b * SPEED_BIN_KMH,
                     b * SPEED_BIN_KMH + SPEED_BIN_KMH - 1);
        printf("  %s %8ld %.*s\n", label, speed_hist[b], bar,
               "########################################");
    }

    free(hourly);
    free(speeding);
    free(heavy);
    free(speed_hist);
    free(log.rec);
    return 0;
}
