/* kmedoids_swap: k-medoids clustering with the PAM swap phase.
 *
 * usage: kmedoids_swap POINTS_FILE K
 *
 * Distances are Manhattan distances of integer coordinates, so every cost is
 * exact.  Medoids start at evenly spaced point indices.  Each iteration
 * evaluates every (medoid, non-medoid) swap -- a parallel loop over the
 * candidate points, each computing the cost change of putting it in place of
 * every medoid -- then applies the best swap (ties go to the lower candidate
 * index, then the lower medoid slot), until no swap lowers the cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MAX_DIM 64
#define MAX_K 256

static int npts, dim;
static int32_t *X;

static inline int64_t distance(int a, int b)
{
    const int32_t *p = X + (size_t)a * dim, *q = X + (size_t)b * dim;
    int64_t s = 0;
    for (int k = 0; k < dim; k++) {
        int64_t v = (int64_t)p[k] - q[k];
        s += v < 0 ? -v : v;
    }
    return s;
}

static int read_points(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "kmedoids_swap: cannot open %s\n", path);
        return -1;
    }
    char magic[4];
    int32_t hdr[2];
    if (fread(magic, 1, 4, f) != 4 || memcmp(magic, "KMP6", 4) != 0 ||
        fread(hdr, sizeof(int32_t), 2, f) != 2 || hdr[0] < 2 || hdr[0] > 1000000 ||
        hdr[1] < 1 || hdr[1] > MAX_DIM) {
        fprintf(stderr, "kmedoids_swap: malformed point file %s\n", path);
        fclose(f);
        return -1;
    }
    npts = hdr[0];
    dim = hdr[1];
    size_t cnt = (size_t)npts * dim;
    X = malloc(sizeof(int32_t) * cnt);
    if (fread(X, sizeof(int32_t), cnt, f) != cnt || fgetc(f) != EOF) {
        fprintf(stderr, "kmedoids_swap: malformed point file %s (wrong length)\n", path);
        fclose(f);
        free(X);
        return -1;
    }
    fclose(f);
    for (size_t i = 0; i < cnt; i++)
        if (X[i] < -100000000 || X[i] > 100000000) {
            fprintf(stderr, "kmedoids_swap: coordinate out of range in %s\n", path);
            free(X);
            return -1;
        }
    return 0;
}

/* nearest and second nearest medoid distance of every point */
static int64_t assign(const int *med, int k, int *near, int64_t *dn, int64_t *ds)
{
    int64_t total = 0;
    #pragma omp parallel for reduction(+ : total)
    for (int j = 0; j < npts; j++) {
        int64_t b1 = INT64_MAX, b2 = INT64_MAX;
        int w = -1;
        for (int i = 0; i < k; i++) {
            int64_t d = distance(j, med[i]);
            if (d < b1) {
                b2 = b1;
                b1 = d;
                w = i;
            } else if (d < b2)
                b2 = d;
        }
        near[j] = w;
        dn[j] = b1;
        ds[j] = b2;
        total += b1;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s POINTS_FILE K\n", argv[0]);
        return 2;
    }
    char *end;
    long kl = strtol(argv[2], &end, 10);
    if (*end != '\0' || kl < 2 || kl > MAX_K) {
        fprintf(stderr, "usage: %s POINTS_FILE K\n", argv[0]);
        return 2;
    }
    int k = (int)kl;
    if (read_points(argv[1]) != 0)
        return 1;
    if (k >= npts) {
        fprintf(stderr, "kmedoids_swap: K must be below the number of points (%d)\n", npts);
        return 2;
    }

    int med[MAX_K];
    char *is_med = calloc(npts, 1);
    for (int i = 0; i < k; i++) {
        med[i] = (int)((int64_t)i * npts / k);
        is_med[med[i]] = 1;
    }
    int *near = malloc(sizeof(int) * npts);
    int64_t *dn = malloc(sizeof(int64_t) * npts), *ds = malloc(sizeof(int64_t) * npts);
    int64_t *best_delta = malloc(sizeof(int64_t) * npts);
    int *best_slot = malloc(sizeof(int) * npts);

    int64_t cost = assign(med, k, near, dn, ds);
    printf("%d points in %d dimensions, k = %d\n", npts, dim, k);
    printf("initial cost %lld\n", (long long)cost);

    int iter = 0;
    for (;;) {
        #pragma omp parallel for
        for (int h = 0; h < npts; h++) {
            best_delta[h] = 0;
            best_slot[h] = -1;
            if (is_med[h])
                continue;
            /* delta[i] = cost change of swapping medoid slot i with h */
            int64_t delta[MAX_K];
            int64_t shared = 0;
            for (int i = 0; i < k; i++)
                delta[i] = 0;
            for (int j = 0; j < npts; j++) {
                int64_t d = distance(j, h);
                int64_t a = d < dn[j] ? d : dn[j];
                int64_t b = d < ds[j] ? d : ds[j];
                shared += a - dn[j];
                delta[near[j]] += b - a;
            }
            int bs = -1;
            int64_t bd = 0;
            for (int i = 0; i < k; i++) {
                int64_t t = shared + delta[i];
                if (t < bd) {
                    bd = t;
                    bs = i;
                }
            }
            best_delta[h] = bd;
            best_slot[h] = bs;
        }

        int bh = -1;
        int64_t bd = 0;
        for (int h = 0; h < npts; h++)
            if (best_slot[h] >= 0 && best_delta[h] < bd) {
                bd = best_delta[h];
                bh = h;
            }
        if (bh < 0)
            break;
        iter++;
        int slot = best_slot[bh];
        is_med[med[slot]] = 0;
        med[slot] = bh;
        is_med[bh] = 1;
        int64_t newcost = assign(med, k, near, dn, ds);
        if (newcost != cost + bd) {
            fprintf(stderr, "kmedoids_swap: internal error, cost mismatch\n");
            return 3;
        }
        cost = newcost;
        if (iter <= 5 || iter % 5 == 0)
            printf("swap %3d: point %5d replaces slot %2d, cost %lld (change %lld)\n", iter, bh,
                   slot, (long long)cost, (long long)bd);
    }

    printf("converged after %d swaps, final cost %lld\n", iter, (long long)cost);
    int size[MAX_K] = {0};
    for (int j = 0; j < npts; j++)
        size[near[j]]++;
    printf("medoid   point  size  coordinates\n");
    for (int i = 0; i < k; i++) {
        printf("%6d  %6d  %4d ", i, med[i], size[i]);
        for (int c = 0; c < dim; c++)
            printf(" %6d", X[(size_t)med[i] * dim + c]);
        printf("\n");
    }
    free(best_slot);
    free(best_delta);
    free(ds);
    free(dn);
    free(near);
    free(is_med);
    free(X);
    return 0;
}
