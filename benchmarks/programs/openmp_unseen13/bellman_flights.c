/*
 * bellman_flights: cheapest fares from a few origin airports (Bellman-Ford).
 *
 * The flight list is turned into "incoming flights per airport" (CSR).  Each
 * Bellman-Ford pass computes, for every airport, the cheapest of its current
 * fare and (fare of a flight's origin + ticket price) over all its incoming
 * flights, writing into a second array (Jacobi style, so a pass only uses
 * the fares of the previous pass).  Passes repeat until nothing changes.
 *
 * usage: bellman_flights FLIGHTS_FILE ORIGIN1 ORIGIN2 ORIGIN3
 *   FLIGHTS_FILE  little-endian binary: magic "FLTNET01", uint32 N, uint32 M,
 *                 then M records {uint16 from, uint16 to, uint16 fare}
 *   ORIGINi       airport numbers 0..N-1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>

#define NSRC 3
#define UNREACHED INT64_MAX

static unsigned rd_u16(const unsigned char *p) { return p[0] | (unsigned)p[1] << 8; }
static unsigned long rd_u32(const unsigned char *p)
{
    return p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}

static void usage(void)
{
    fprintf(stderr, "usage: bellman_flights FLIGHTS_FILE ORIGIN1 ORIGIN2 ORIGIN3   (airport numbers)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 2 + NSRC)
        usage();
    long src[NSRC];
    for (int s = 0; s < NSRC; s++) {
        char *end;
        errno = 0;
        src[s] = strtol(argv[2 + s], &end, 10);
        if (errno || *end || end == argv[2 + s] || src[s] < 0)
            usage();
    }

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "bellman_flights: cannot open %s\n", argv[1]);
        return 1;
    }
    unsigned char hdr[16];
    if (fread(hdr, 1, 16, f) != 16 || memcmp(hdr, "FLTNET01", 8) != 0) {
        fprintf(stderr, "bellman_flights: %s: not a flight network file (bad magic)\n", argv[1]);
        fclose(f);
        return 1;
    }
    long n = (long)rd_u32(hdr + 8), m = (long)rd_u32(hdr + 12);
    fseek(f, 0, SEEK_END);
    long bytes = ftell(f);
    if (n <= 0 || n > 65536 || bytes != 16 + 6 * m) {
        fprintf(stderr, "bellman_flights: %s: header says %ld airports, %ld flights, but file has %ld bytes\n",
                argv[1], n, m, bytes);
        fclose(f);
        return 1;
    }
    fseek(f, 16, SEEK_SET);
    unsigned char *raw = malloc(6 * m + 1);
    if (fread(raw, 1, 6 * m, f) != (size_t)(6 * m)) {
        fprintf(stderr, "bellman_flights: %s: read error\n", argv[1]);
        fclose(f);
        return 1;
    }
    fclose(f);
    int *efrom = malloc(sizeof(int) * (m ? m : 1));
    int *eto = malloc(sizeof(int) * (m ? m : 1));
    int *efare = malloc(sizeof(int) * (m ? m : 1));
    for (long e = 0; e < m; e++) {
        efrom[e] = rd_u16(raw + 6 * e);
        eto[e] = rd_u16(raw + 6 * e + 2);
        efare[e] = rd_u16(raw + 6 * e + 4);
        if (efrom[e] >= n || eto[e] >= n) {
            fprintf(stderr, "bellman_flights: %s: flight %ld refers to airport %d (N = %ld)\n",
                    argv[1], e, efrom[e] >= n ? efrom[e] : eto[e], n);
            return 1;
        }
    }
    free(raw);
    for (int s = 0; s < NSRC; s++) {
        if (src[s] >= n) {
            fprintf(stderr, "bellman_flights: origin %ld out of range (N = %ld)\n", src[s], n);
            return 2;
        }
    }

    /* incoming flights per airport, in file order */
    long *start = calloc(n + 1, sizeof(long));
    for (long e = 0; e < m; e++)
        start[eto[e] + 1]++;
    for (long v = 0; v < n; v++)
        start[v + 1] += start[v];
    long *fill = malloc(sizeof(long) * n);
    memcpy(fill, start, sizeof(long) * n);
    int *in_from = malloc(sizeof(int) * (m ? m : 1));
    int *in_fare = malloc(sizeof(int) * (m ? m : 1));
    for (long e = 0; e < m; e++) {
        long k = fill[eto[e]]++;
        in_from[k] = efrom[e];
        in_fare[k] = efare[e];
    }
    free(fill);
    free(efrom);
    free(eto);
    free(efare);

    int64_t *dist = malloc(sizeof(int64_t) * n);
    int64_t *next = malloc(sizeof(int64_t) * n);

    printf("airports: %ld  flights: %ld\n", n, m);
    for (int s = 0; s < NSRC; s++) {
        for (long v = 0; v < n; v++)
            dist[v] = UNREACHED;
        dist[src[s]] = 0;

        long passes = 0, changed;
        do {
            changed = 0;
            #pragma omp parallel for reduction(+:changed)
            for (long v = 0; v < n; v++) {
                int64_t best = dist[v];
                for (long k = start[v]; k < start[v + 1]; k++) {
                    int64_t du = dist[in_from[k]];
                    if (du != UNREACHED && du + in_fare[k] < best)
                        best = du + in_fare[k];
                }
                next[v] = best;
                if (best != dist[v])
                    changed++;
            }
            int64_t *t = dist;
            dist = next;
            next = t;
            passes++;
        } while (changed > 0);

        long reach = 0;
        int64_t maxfare = 0;
        long long sumfare = 0;
        #pragma omp parallel for reduction(+:reach,sumfare) reduction(max:maxfare)
        for (long v = 0; v < n; v++) {
            if (dist[v] != UNREACHED) {
                reach++;
                sumfare += dist[v];
                if (dist[v] > maxfare)
                    maxfare = dist[v];
            }
        }
        long farthest = -1;
        for (long v = 0; v < n && farthest < 0; v++)
            if (dist[v] == maxfare)
                farthest = v;

        printf("origin %ld: reachable %ld of %ld, max fare %lld (to airport %ld), mean fare %.2f, passes %ld\n",
               src[s], reach, n, (long long)maxfare, farthest,
               (double)sumfare / (double)reach, passes);
    }

    free(dist);
    free(next);
    free(start);
    free(in_from);
    free(in_fare);
    return 0;
}
