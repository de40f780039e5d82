/*
 * knn_graph: brute-force k-nearest-neighbour graph of a point set.
 *
 * usage: knn_graph POINTS K
 *
 * POINTS is "PTS1", uint32 count, uint32 dimension (little endian), then
 * count*dimension float32 coordinates.  For every point the K nearest
 * other points (Euclidean, ties broken by the lower index) are found by
 * scanning all points.  Prints the mean and maximum distance to the K-th
 * neighbour, the number of mutual neighbour pairs, and the degree
 * histogram of the undirected graph (edge i-j if either lists the other).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KMAX 64
#define DMAX 64

static uint32_t rd_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static float *load_points(const char *path, int *n_out, int *d_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "knn_graph: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "PTS1", 4) != 0) {
        fprintf(stderr, "knn_graph: %s: not a point file\n", path);
        fclose(f);
        return NULL;
    }
    uint32_t n = rd_u32(hdr + 4), d = rd_u32(hdr + 8);
    if (n < 2 || n > 2000000 || d < 1 || d > DMAX) {
        fprintf(stderr, "knn_graph: %s: bad header (%u points, dimension %u)\n", path, n, d);
        fclose(f);
        return NULL;
    }
    size_t cnt = (size_t)n * d;
    float *pts = malloc(cnt * sizeof(float));
    unsigned char *raw = malloc(cnt * 4);
    if (!pts || !raw) {
        fprintf(stderr, "knn_graph: out of memory\n");
        fclose(f);
        free(pts);
        free(raw);
        return NULL;
    }
    size_t got = fread(raw, 4, cnt, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != cnt || extra != EOF) {
        fprintf(stderr, "knn_graph: %s: coordinate data has wrong size\n", path);
        free(pts);
        free(raw);
        return NULL;
    }
    for (size_t i = 0; i < cnt; i++) {
        uint32_t u = rd_u32(raw + 4 * i);
        float v;
        memcpy(&v, &u, sizeof v);
        if (!isfinite(v)) {
            fprintf(stderr, "knn_graph: %s: coordinate %zu is not a finite number\n", path, i);
            free(pts);
            free(raw);
            return NULL;
        }
        pts[i] = v;
    }
    free(raw);
    *n_out = (int)n;
    *d_out = (int)d;
    return pts;
}

static int lists(const int *nbr, int k, int i, int j)
{
    const int *row = nbr + (size_t)i * k;
    for (int t = 0; t < k; t++)
        if (row[t] == j)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    long k = 0;
    char *end = NULL;
    if (argc == 3) {
        errno = 0;
        k = strtol(argv[2], &end, 10);
    }
    if (argc != 3 || errno || end == argv[2] || *end != '\0' || k < 1 || k > KMAX) {
        fprintf(stderr, "usage: %s POINTS K   (1 <= K <= %d)\n", argv[0], KMAX);
        return 2;
    }

    int n, dim;
    float *pts = load_points(argv[1], &n, &dim);
    if (!pts)
        return 1;
    if (k >= n) {
        fprintf(stderr, "knn_graph: K=%ld needs more than %d points\n", k, n);
        return 1;
    }
    const int K = (int)k;

    int *nbr = malloc((size_t)n * K * sizeof(int));
    double *kd2 = malloc((size_t)n * sizeof(double)); /* squared distance to the K-th neighbour */
    double *nd2 = malloc((size_t)n * sizeof(double)); /* squared distance to the nearest one */
    if (!nbr || !kd2 || !nd2) {
        fprintf(stderr, "knn_graph: out of memory\n");
        return 1;
    }

#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double bd[KMAX];
        int bi[KMAX];
        int cnt = 0;
        const float *pi = pts + (size_t)i * dim;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            const float *pj = pts + (size_t)j * dim;
            double d2 = 0.0;
            for (int t = 0; t < dim; t++) {
                double diff = (double)pi[t] - pj[t];
                d2 += diff * diff;
            }
            if (cnt == K && d2 >= bd[K - 1])
                continue;
            int pos = cnt < K ? cnt++ : K - 1;
            while (pos > 0 && bd[pos - 1] > d2) {
                bd[pos] = bd[pos - 1];
                bi[pos] = bi[pos - 1];
                pos--;
            }
            bd[pos] = d2;
            bi[pos] = j;
        }
        memcpy(nbr + (size_t)i * K, bi, K * sizeof(int));
        kd2[i] = bd[K - 1];
        nd2[i] = bd[0];
    }

    /* mutual pairs: i lists j and j lists i, counted once */
    long mutual = 0;
#pragma omp parallel for reduction(+ : mutual)
    for (int i = 0; i < n; i++) {
        const int *row = nbr + (size_t)i * K;
        for (int t = 0; t < K; t++) {
            int j = row[t];
            if (j > i && lists(nbr, K, j, i))
                mutual++;
        }
    }

    /* undirected degree = K + number of points that list i but are not listed by i */
    int *deg = malloc((size_t)n * sizeof(int));
    if (!deg) {
        fprintf(stderr, "knn_graph: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        deg[i] = K;
    for (int i = 0; i < n; i++) {
        const int *row = nbr + (size_t)i * K;
        for (int t = 0; t < K; t++) {
            int j = row[t];
            if (!lists(nbr, K, j, i))
                deg[j]++;
        }
    }

    double sum_k = 0.0, sum_1 = 0.0;
    int argmax = 0;
    for (int i = 0; i < n; i++) {
        sum_k += sqrt(kd2[i]);
        sum_1 += sqrt(nd2[i]);
        if (kd2[i] > kd2[argmax])
            argmax = i;
    }
    int maxdeg = K, argmaxdeg = 0;
    for (int i = 0; i < n; i++)
        if (deg[i] > maxdeg) {
            maxdeg = deg[i];
            argmaxdeg = i;
        }
    long edges = (long)n * K - mutual;

    printf("points %d, dimension %d, k %d\n", n, dim, K);
    printf("mean nearest-neighbour distance %.5f\n", sum_1 / n);
    printf("mean %d-distance %.5f, max %.5f (point %d)\n", K, sum_k / n,
           sqrt(kd2[argmax]), argmax);
    printf("mutual pairs %ld (%.2f%% of directed edges), undirected edges %ld\n", mutual,
           100.0 * 2.0 * mutual / ((double)n * K), edges);
    printf("max degree %d (point %d), mean degree %.3f\n", maxdeg, argmaxdeg,
           2.0 * edges / n);
    printf("degree histogram:\n");
    const int bw = 5;
    for (int lo = K; lo <= maxdeg; lo += bw) {
        int c = 0;
        for (int i = 0; i < n; i++)
            if (deg[i] >= lo && deg[i] < lo + bw)
                c++;
        printf("  %3d-%-3d %6d\n", lo, lo + bw - 1, c);
    }

    free(deg);
    free(nbr);
    free(kd2);
    free(nd2);
    free(pts);
    return 0;
}
