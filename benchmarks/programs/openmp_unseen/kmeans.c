/*
 * kmeans.c - Lloyd's k-means on points read from a text file, run for a range of k
 * (the "elbow" method) with several restarts per k.
 *
 * usage: kmeans <points-file> <kmin> <kmax> <restarts> <max-iter>
 *
 * File format: optional '#' comment lines, then a line "n d", then n lines of d numbers.
 */
#include <errno.h>
#include <float.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <points-file> <kmin> <kmax> <restarts> <max-iter>\n", prog);
    fprintf(stderr, "  e.g. %s points.txt 2 24 3 100\n", prog);
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end != '\0' || end == s || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static double *read_points(const char *path, int *n_out, int *d_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return NULL;
    }
    char line[4096];
    int n = 0, d = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%d %d", &n, &d) != 2 || n <= 0 || d <= 0 || d > 64) {
            fprintf(stderr, "%s: bad header line\n", path);
            fclose(f);
            return NULL;
        }
        break;
    }
    if (n <= 0) {
        fprintf(stderr, "%s: no header\n", path);
        fclose(f);
        return NULL;
    }
    double *x = malloc((size_t)n * d * sizeof *x);
    if (!x) {
        fclose(f);
        return NULL;
    }
    for (long i = 0; i < (long)n * d; i++) {
        if (fscanf(f, "%lf", &x[i]) != 1) {
            fprintf(stderr, "%s: expected %d x %d values, file ends after %ld\n", path, n, d, i);
            free(x);
            fclose(f);
            return NULL;
        }
    }
    fclose(f);
    *n_out = n;
    *d_out = d;
    return x;
}

/* deterministic pick of initial centres: a simple hash of (k, restart, c) */
static uint32_t pick(uint32_t k, uint32_t r, uint32_t c, uint32_t n)
{
    uint32_t h = k * 2654435761u ^ (r + 0x9e3779b9u) * 40503u ^ (c + 1u) * 2246822519u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    h *= 3266489917u;
    h ^= h >> 16;
    return h % n;
}

struct result {
    double inertia;
    int iters;
    int min_size, max_size;
};

static struct result kmeans(const double *x, int n, int d, int k, int restart, int maxit,
                            double *cent, int *assign, double *dist, int *order, int *start)
{
    struct result res;
    for (int c = 0; c < k; c++) {
        uint32_t p = pick((uint32_t)k, (uint32_t)restart, (uint32_t)c, (uint32_t)n);
        memcpy(&cent[(size_t)c * d], &x[(size_t)p * d], d * sizeof(double));
    }
    for (int i = 0; i < n; i++)
        assign[i] = -1;

    int it;
    for (it = 1; it <= maxit; it++) {
        int changed = 0;

        /* assignment step */
        int i, c, j;
        double s;
#pragma omp parallel for private(c, j, s) reduction(+:changed)
        for (i = 0; i < n; i++) {
            const double *p = &x[(size_t)i * d];
            int best = 0;
            double bestd = DBL_MAX;
            for (c = 0; c < k; c++) {
                const double *q = &cent[(size_t)c * d];
                s = 0.0;
                for (j = 0; j < d; j++) {
                    double t = p[j] - q[j];
                    s += t * t;
                }
                if (s < bestd) {
                    bestd = s;
                    best = c;
                }
            }
            if (assign[i] != best)
                changed++;
            assign[i] = best;
            dist[i] = bestd;
        }

        if (changed == 0)
            break;

        /* group point indices by cluster (counting sort, keeps index order) */
        memset(start, 0, (k + 1) * sizeof(int));
        for (int i = 0; i < n; i++)
            start[assign[i] + 1]++;
        for (int c = 0; c < k; c++)
            start[c + 1] += start[c];
        for (int i = 0; i < n; i++)
            order[start[assign[i]]++] = i;
        for (int c = k; c > 0; c--)
            start[c] = start[c - 1];
        start[0] = 0;

        /* update step: one cluster per iteration */
#pragma omp parallel for
        for (int c = 0; c < k; c++) {
            int cnt = start[c + 1] - start[c];
            if (cnt == 0)
                continue; /* empty cluster keeps its centre */
            double sum[64];
            for (int j = 0; j < d; j++)
                sum[j] = 0.0;
            for (int m = start[c]; m < start[c + 1]; m++) {
                const double *p = &x[(size_t)order[m] * d];
                for (int j = 0; j < d; j++)
                    sum[j] += p[j];
            }
            for (int j = 0; j < d; j++)
                cent[(size_t)c * d + j] = sum[j] / cnt;
        }
    }
    if (it > maxit)
        it = maxit;

    double inertia = 0.0;
    for (int i = 0; i < n; i++)
        inertia += dist[i];
    int *size = calloc(k, sizeof(int));
    for (int i = 0; i < n; i++)
        size[assign[i]]++;
    res.min_size = n;
    res.max_size = 0;
    for (int c = 0; c < k; c++) {
        if (size[c] < res.min_size)
            res.min_size = size[c];
        if (size[c] > res.max_size)
            res.max_size = size[c];
    }
    free(size);
    res.inertia = inertia;
    res.iters = it;
    return res;
}

int main(int argc, char **argv)
{
    int kmin, kmax, restarts, maxit;
    if (argc != 6 || parse_int(argv[2], 1, 64, &kmin) || parse_int(argv[3], 1, 64, &kmax) || kmax < kmin ||
        parse_int(argv[4], 1, 1000, &restarts) || parse_int(argv[5], 1, 100000, &maxit)) {
        usage(argv[0]);
        return 2;
    }
    int n, d;
    double *x = read_points(argv[1], &n, &d);
    if (!x)
        return 1;
    if (kmax > n) {
        fprintf(stderr, "kmax (%d) larger than number of points (%d)\n", kmax, n);
        return 2;
    }

    double *cent = malloc((size_t)kmax * d * sizeof *cent);
    int *assign = malloc(n * sizeof *assign);
    double *dist = malloc(n * sizeof *dist);
    int *order = malloc(n * sizeof *order);
    int *start = malloc((kmax + 1) * sizeof *start);
    if (!cent || !assign || !dist || !order || !start) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    printf("read %d points of dimension %d from %s\n", n, d, strrchr(argv[1], '/') ? strrchr(argv[1], '/') + 1 : argv[1]);
    printf("%4s %14s %6s %9s %9s %9s\n", "k", "best inertia", "iters", "restart", "smallest", "largest");
    double prev = 0.0;
    int elbow = kmin;
    double best_drop_ratio = 0.0;
    for (int k = kmin; k <= kmax; k++) {
        struct result best = {DBL_MAX, 0, 0, 0};
        int best_r = 0;
        for (int r = 0; r < restarts; r++) {
            struct result res = kmeans(x, n, d, k, r, maxit, cent, assign, dist, order, start);
            if (res.inertia < best.inertia) {
                best = res;
                best_r = r;
            }
        }
        printf("%4d %14.6e %6d %9d %9d %9d\n", k, best.inertia, best.iters, best_r, best.min_size, best.max_size);
        if (k > kmin && best.inertia > 0.0) {
            double ratio = prev / best.inertia;
            if (ratio > best_drop_ratio) {
                best_drop_ratio = ratio;
                elbow = k;
            }
        }
        prev = best.inertia;
    }
    printf("largest relative drop in inertia at k = %d (factor %.4f)\n", elbow, best_drop_ratio);

    free(x);
    free(cent);
    free(assign);
    free(dist);
    free(order);
    free(start);
    return 0;
}
