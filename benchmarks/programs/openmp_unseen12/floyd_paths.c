/*
 * floyd_paths: all-pairs shortest travel times on a directed road network by
 * Floyd-Warshall, with a next-hop table for path reconstruction.
 *
 * usage: floyd_paths ROADS.txt FROM TO
 *
 * Prints the diameter, the number of unreachable ordered pairs, the average
 * travel time over reachable pairs, a few sample distances and the route
 * from FROM to TO.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF 0x3f3f3f3f /* INF + INF still fits in an int */

_Noreturn static void fail(const char *path, const char *msg)
{
    fprintf(stderr, "floyd_paths: %s: %s\n", path, msg);
    exit(1);
}

static int next_line(FILE *f, char *buf, int len)
{
    while (fgets(buf, len, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != '#' && *p != '\n' && *p != '\r' && *p != '\0')
            return 1;
    }
    return 0;
}

static int parse_node(const char *s, int n)
{
    char *end;
    long v = strtol(s, &end, 10);
    return (*s == '\0' || *end != '\0' || v < 0 || v >= n) ? -1 : (int)v;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s ROADS.txt FROM TO\n", argv[0]);
        return 2;
    }
    const char *path = argv[1];
    FILE *f = fopen(path, "r");
    if (!f)
        fail(path, "cannot open road file");
    char line[256];
    int n = 0;
    long m = 0;
    if (!next_line(f, line, sizeof line) || sscanf(line, "nodes %d edges %ld", &n, &m) != 2 || n < 2 ||
        n > 20000 || m < 0)
        fail(path, "missing or bad 'nodes N edges M' line");
    int src = parse_node(argv[2], n), dst = parse_node(argv[3], n);
    if (src < 0 || dst < 0) {
        fprintf(stderr, "usage: %s ROADS.txt FROM TO   (FROM and TO are node numbers 0..%d)\n", argv[0], n - 1);
        return 2;
    }

    size_t nn = (size_t)n * (size_t)n;
    int *d = malloc(nn * sizeof(int));
    int *nxt = malloc(nn * sizeof(int));
    if (!d || !nxt)
        fail(path, "out of memory");
    for (size_t p = 0; p < nn; p++) {
        d[p] = INF;
        nxt[p] = -1;
    }
    for (int i = 0; i < n; i++) {
        d[(size_t)i * n + i] = 0;
        nxt[(size_t)i * n + i] = i;
    }
    for (long e = 0; e < m; e++) {
        int a, b, w;
        if (!next_line(f, line, sizeof line))
            fail(path, "fewer edges than announced");
        if (sscanf(line, "%d %d %d", &a, &b, &w) != 3 || a < 0 || a >= n || b < 0 || b >= n || w < 1 ||
            w > 1000000)
            fail(path, "malformed edge line");
        size_t p = (size_t)a * n + b;
        if (a != b && w < d[p]) {
            d[p] = w;
            nxt[p] = b;
        }
    }
    if (next_line(f, line, sizeof line))
        fail(path, "more edges than announced");
    fclose(f);

    /* Row k does not change during step k (d[k][k] = 0), so rows i are
       independent of each other. */
    for (int k = 0; k < n; k++) {
        const int *dk = d + (size_t)k * n;
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            int *di = d + (size_t)i * n;
            int *ni = nxt + (size_t)i * n;
            const int dik = di[k];
            if (dik == INF || i == k)
                continue;
            const int hop = ni[k];
            for (int j = 0; j < n; j++) {
                int alt = dik + dk[j];
                if (alt < di[j]) {
                    di[j] = alt;
                    ni[j] = hop;
                }
            }
        }
    }

    /* statistics, one row per iteration, combined with integer reductions */
    long long unreachable = 0, reach = 0, total = 0;
    int diameter = 0;
#pragma omp parallel for reduction(+ : unreachable, reach, total) reduction(max : diameter)
    for (int i = 0; i < n; i++) {
        const int *di = d + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            if (di[j] >= INF) {
                unreachable++;
            } else {
                reach++;
                total += di[j];
                if (di[j] > diameter)
                    diameter = di[j];
            }
        }
    }
    int da = -1, db = -1;
    for (int i = 0; i < n && da < 0; i++)
        for (int j = 0; j < n; j++)
            if (j != i && d[(size_t)i * n + j] == diameter) {
                da = i;
                db = j;
                break;
            }

    printf("nodes: %d  road segments: %ld\n", n, m);
    printf("ordered pairs reachable: %lld  unreachable: %lld\n", reach, unreachable);
    if (reach > 0) {
        long long milli = (total * 1000 + reach / 2) / reach;
        printf("average travel time: %lld.%03lld\n", milli / 1000, milli % 1000);
        printf("diameter: %d (from %d to %d)\n", diameter, da, db);
    }
    const int samples[5][2] = {{0, n - 1}, {n - 1, 0}, {n / 4, 3 * n / 4}, {n / 2, 1}, {3 * n / 4, n / 3}};
    for (int s = 0; s < 5; s++) {
        int a = samples[s][0], b = samples[s][1];
        int v = d[(size_t)a * n + b];
        if (v >= INF)
            printf("sample %4d -> %4d: unreachable\n", a, b);
        else
            printf("sample %4d -> %4d: %d\n", a, b, v);
    }

    if (d[(size_t)src * n + dst] >= INF) {
        printf("route %d -> %d: no route\n", src, dst);
    } else {
        int hops = 0;
        for (int u = src; u != dst; u = nxt[(size_t)u * n + dst])
            hops++;
        printf("route %d -> %d: time %d, %d segments\n", src, dst, d[(size_t)src * n + dst], hops);
        int col = 0, u = src;
        printf("  ");
        for (;;) {
            printf("%d", u);
            if (u == dst)
                break;
            u = nxt[(size_t)u * n + dst];
            printf(" -> ");
            if (++col % 12 == 0)
                printf("\n  ");
        }
        printf("\n");
    }
    free(d);
    free(nxt);
    return 0;
}
