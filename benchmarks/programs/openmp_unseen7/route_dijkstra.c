/*
 * route_dijkstra - shortest road routes from a set of source towns.
 *
 * Reads a full road-distance matrix (km, '-' for "no direct road") and runs
 * Dijkstra's algorithm in its O(n^2) array form from a number of source
 * towns spread evenly over the town list.  For every source it reports the
 * farthest reachable town, the mean route length and the distances to the
 * towns named on the command line; a summary over all sources follows.
 *
 * usage: route_dijkstra <matrix-file> <num-sources> [target-town ...]
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_ROAD INT32_MAX
#define UNREACHED INT64_MAX

static const char *prog = "route_dijkstra";

static void usage(void)
{
    fprintf(stderr, "usage: %s <matrix-file> <num-sources> [target-town ...]\n", prog);
    exit(2);
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return NULL;
    }
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* skip blanks and '#' comment lines */
static char *skip_space(char *p)
{
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        return p;
    }
}

static int32_t *read_matrix(const char *path, int *n_out)
{
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    char *p = skip_space(text);
    char *end;
    long n = strtol(p, &end, 10);
    if (end == p || n < 2 || n > 20000) {
        fprintf(stderr, "%s: %s: bad town count\n", prog, path);
        exit(1);
    }
    p = end;
    int32_t *w = malloc((size_t)n * (size_t)n * sizeof *w);
    if (!w) {
        fprintf(stderr, "%s: out of memory for %ld towns\n", prog, n);
        exit(1);
    }
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++) {
            p = skip_space(p);
            if (*p == '-' && (p[1] == '\0' || isspace((unsigned char)p[1]))) {
                w[i * n + j] = NO_ROAD;
                p++;
                continue;
            }
            if (!isdigit((unsigned char)*p)) {
                fprintf(stderr, "%s: %s: malformed entry at row %ld, column %ld\n",
                        prog, path, i + 1, j + 1);
                exit(1);
            }
            long v = 0;
            while (isdigit((unsigned char)*p)) {
                v = v * 10 + (*p - '0');
                if (v > 1000000)
                    break;
                p++;
            }
            if (v > 1000000 || (*p && !isspace((unsigned char)*p))) {
                fprintf(stderr, "%s: %s: malformed entry at row %ld, column %ld\n",
                        prog, path, i + 1, j + 1);
                exit(1);
            }
            w[i * n + j] = (int32_t)v;
        }
    }
    p = skip_space(p);
    if (*p != '\0') {
        fprintf(stderr, "%s: %s: trailing data after %ld rows\n", prog, path, n);
        exit(1);
    }
    for (long i = 0; i < n; i++) {
        if (w[i * n + i] != 0) {
            fprintf(stderr, "%s: %s: diagonal entry %ld is not 0\n", prog, path, i + 1);
            exit(1);
        }
    }
    free(text);
    *n_out = (int)n;
    return w;
}

/*
 * Dijkstra from src over the dense matrix w.  dist[] receives route
 * lengths (UNREACHED when there is none), pred[] the previous town.
 */
static void dijkstra(const int32_t *w, int n, int src, int64_t *dist, int *pred,
                     unsigned char *done)
{
    for (int v = 0; v < n; v++) {
        dist[v] = UNREACHED;
        pred[v] = -1;
        done[v] = 0;
    }
    dist[src] = 0;

    for (int step = 0; step < n; step++) {
        /* nearest unvisited town: key = distance, ties broken by index */
        uint64_t best = UINT64_MAX;
#pragma omp parallel for reduction(min : best)
        for (int v = 0; v < n; v++) {
            if (!done[v] && dist[v] != UNREACHED) {
                uint64_t key = ((uint64_t)dist[v] << 20) | (uint64_t)v;
                if (key < best)
                    best = key;
            }
        }
        if (best == UINT64_MAX)
            break; /* the rest cannot be reached */
        int u = (int)(best & 0xFFFFF);
        done[u] = 1;
        const int32_t *row = w + (size_t)u * n;
        int64_t du = dist[u];

#pragma omp parallel for
        for (int v = 0; v < n; v++) {
            if (!done[v] && row[v] != NO_ROAD) {
                int64_t alt = du + row[v];
                if (alt < dist[v]) {
                    dist[v] = alt;
                    pred[v] = u;
                }
            }
        }
    }
}

static int hops_to(const int *pred, int src, int v)
{
    int h = 0;
    while (v != src && v >= 0) {
        v = pred[v];
        h++;
    }
    return h;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    long nsrc;
    if (!parse_int(argv[2], 1, 100000, &nsrc))
        usage();
    int ntarg = argc - 3;
    long *targ = malloc(sizeof(long) * (size_t)(ntarg > 0 ? ntarg : 1));
    for (int k = 0; k < ntarg; k++)
        if (!parse_int(argv[3 + k], 0, 1000000, &targ[k]))
            usage();

    int n;
    int32_t *w = read_matrix(argv[1], &n);
    if (nsrc > n) {
        fprintf(stderr, "%s: %ld sources requested but only %d towns\n", prog, nsrc, n);
        return 2;
    }
    for (int k = 0; k < ntarg; k++) {
        if (targ[k] >= n) {
            fprintf(stderr, "%s: target town %ld out of range (0..%d)\n", prog, targ[k], n - 1);
            return 2;
        }
    }

    int64_t *dist = malloc(sizeof *dist * (size_t)n);
    int *pred = malloc(sizeof *pred * (size_t)n);
    unsigned char *done = malloc((size_t)n);
    if (!dist || !pred || !done) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }

    int roads = 0;
    for (long i = 0; i < (long)n * n; i++)
        if (w[i] != NO_ROAD && w[i] > 0)
            roads++;
    printf("road network: %d towns, %d direct roads\n", n, roads / 2);
    printf("routes from %ld source towns\n", nsrc);

    long long total_km = 0, total_routes = 0, unreachable_pairs = 0;
    int64_t longest = -1;
    int long_a = -1, long_b = -1;

    for (long k = 0; k < nsrc; k++) {
        int src = (int)((k * (long)n) / nsrc);
        dijkstra(w, n, src, dist, pred, done);

        long long sum = 0;
        int reached = 0, far = src;
        for (int v = 0; v < n; v++) {
            if (v == src || dist[v] == UNREACHED)
                continue;
            reached++;
            sum += dist[v];
            if (dist[v] > dist[far])
                far = v;
        }
        total_km += sum;
        total_routes += reached;
        unreachable_pairs += (n - 1) - reached;
        if (dist[far] > longest) {
            longest = dist[far];
            long_a = src;
            long_b = far;
        }

        printf("from %4d: reaches %4d, farthest %4d at %5lld km (%2d hops), mean %7.2f km",
               src, reached, far, (long long)dist[far], hops_to(pred, src, far),
               reached ? (double)sum / reached : 0.0);
        if (ntarg > 0) {
            printf(" |");
            for (int t = 0; t < ntarg; t++) {
                if (dist[targ[t]] == UNREACHED)
                    printf(" %ld:-", targ[t]);
                else
                    printf(" %ld:%lld", targ[t], (long long)dist[targ[t]]);
            }
        }
        printf("\n");
    }

    printf("overall: %lld routes, mean length %.2f km, %lld unreachable pairs\n",
           total_routes, total_routes ? (double)total_km / total_routes : 0.0,
           unreachable_pairs);
    printf("longest route found: %d -> %d, %lld km\n", long_a, long_b, (long long)longest);

    free(w);
    free(dist);
    free(pred);
    free(done);
    free(targ);
    return 0;
}
