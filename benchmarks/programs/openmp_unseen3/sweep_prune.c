/* sweep_prune: broad-phase collision detection for moving axis-aligned boxes.
 * Each time step sorts the boxes by their minimum x, sweeps along x to find
 * candidate pairs, keeps the pairs that overlap in y and z as well and
 * measures their exact overlap volume, then advances the boxes (reflecting
 * at the domain walls).
 *
 * usage: sweep_prune BOXES STEPS DT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

static int n;
static double L;
static double *lo[3], *ext[3], *vel[3];
static double *key;

static int cmp_key(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (key[i] < key[j]) return -1;
    if (key[i] > key[j]) return 1;
    return i - j;
}

static void read_boxes(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "sweep_prune: cannot open %s\n", path);
        exit(1);
    }
    char line[512];
    long lineno = 0;
    int have_header = 0, m = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        if (!have_header) {
            if (sscanf(s, "%d %lf", &n, &L) != 2 || n <= 0 || n > 50000000 || !(L > 0)) {
                fprintf(stderr, "sweep_prune: %s:%ld: bad header (expected: count domain_size)\n", path, lineno);
                exit(1);
            }
            for (int d = 0; d < 3; d++) {
                lo[d] = malloc(sizeof(double) * (size_t)n);
                ext[d] = malloc(sizeof(double) * (size_t)n);
                vel[d] = malloc(sizeof(double) * (size_t)n);
            }
            have_header = 1;
            continue;
        }
        if (m >= n) {
            fprintf(stderr, "sweep_prune: %s:%ld: more boxes than declared\n", path, lineno);
            exit(1);
        }
        double v[9];
        if (sscanf(s, "%lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                   &v[6], &v[7], &v[8]) != 9 || !(v[3] > 0 && v[4] > 0 && v[5] > 0) ||
            v[3] >= L || v[4] >= L || v[5] >= L) {
            fprintf(stderr, "sweep_prune: %s:%ld: malformed box line\n", path, lineno);
            exit(1);
        }
        for (int d = 0; d < 3; d++) {
            lo[d][m] = v[d];
            ext[d][m] = v[3 + d];
            vel[d][m] = v[6 + d];
        }
        m++;
    }
    fclose(f);
    if (!have_header || m != n) {
        fprintf(stderr, "sweep_prune: %s: expected %d boxes, found %d\n", path, n, m);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s BOXES STEPS DT\n", argv[0]);
        return 2;
    }
    char *e1, *e2;
    long steps = strtol(argv[2], &e1, 10);
    double dt = strtod(argv[3], &e2);
    if (*e1 || *e2 || steps < 1 || steps > 100000 || !(dt >= 0 && dt < 1e6)) {
        fprintf(stderr, "usage: %s BOXES STEPS DT  (STEPS >= 1, DT >= 0)\n", argv[0]);
        return 2;
    }
    read_boxes(argv[1]);

    int *order = malloc(sizeof(int) * (size_t)n);
    key = malloc(sizeof(double) * (size_t)n);
    long *cand = malloc(sizeof(long) * (size_t)n);
    long *hits = malloc(sizeof(long) * (size_t)n);
    double *vol = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        order[i] = i;

    printf("boxes %d, domain %.1f, steps %ld, dt %g\n", n, L, steps, dt);
    printf("%5s %12s %10s %14s %12s\n", "step", "candidates", "pairs", "overlap_vol", "max_overlap");
    double total_volume = 0.0;
    long total_pairs = 0, peak_pairs = 0;
    int peak_step = 0;
    for (int step = 0; step < (int)steps; step++) {
        for (int i = 0; i < n; i++)
            key[i] = lo[0][i];
        /* the previous order is nearly sorted; the comparator is a total order */
        qsort(order, (size_t)n, sizeof(int), cmp_key);

        double max_overlap = 0.0;
        #pragma omp parallel for reduction(max:max_overlap)
        for (int a = 0; a < n; a++) {
            int i = order[a];
            double xi1 = lo[0][i] + ext[0][i];
            double yi0 = lo[1][i], yi1 = yi0 + ext[1][i];
            double zi0 = lo[2][i], zi1 = zi0 + ext[2][i];
            long c = 0, h = 0;
            double v = 0.0;
            for (int b = a + 1; b < n; b++) {
                int j = order[b];
                if (lo[0][j] > xi1)
                    break;
                c++;
                double yj0 = lo[1][j], yj1 = yj0 + ext[1][j];
                if (yj0 > yi1 || yi0 > yj1)
                    continue;
                double zj0 = lo[2][j], zj1 = zj0 + ext[2][j];
                if (zj0 > zi1 || zi0 > zj1)
                    continue;
                double xj1 = lo[0][j] + ext[0][j];
                double ox = (xi1 < xj1 ? xi1 : xj1) - lo[0][j];
                double oy = (yi1 < yj1 ? yi1 : yj1) - (yi0 > yj0 ? yi0 : yj0);
                double oz = (zi1 < zj1 ? zi1 : zj1) - (zi0 > zj0 ? zi0 : zj0);
                double o = ox * oy * oz;
                if (o > 0.0) {
                    h++;
                    v += o;
                    if (o > max_overlap)
                        max_overlap = o;
                }
            }
            cand[a] = c;
            hits[a] = h;
            vol[a] = v;
        }
        long step_cand = 0, step_pairs = 0;
        double step_vol = 0.0;
        for (int a = 0; a < n; a++) {
            step_cand += cand[a];
            step_pairs += hits[a];
            step_vol += vol[a];
        }
        printf("%5d %12ld %10ld %14.4f %12.4f\n", step, step_cand, step_pairs, step_vol, max_overlap);
        total_volume += step_vol;
        total_pairs += step_pairs;
        if (step_pairs > peak_pairs) {
            peak_pairs = step_pairs;
            peak_step = step;
        }

        /* advance, reflecting off the walls of [0, L]^3 */
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            for (int d = 0; d < 3; d++) {
                double p = lo[d][i] + dt * vel[d][i];
                double hi = L - ext[d][i];
                if (p < 0.0) {
                    p = -p;
                    vel[d][i] = -vel[d][i];
                } else if (p > hi) {
                    p = 2.0 * hi - p;
                    vel[d][i] = -vel[d][i];
                }
                if (p < 0.0) p = 0.0;
                if (p > hi) p = hi;
                lo[d][i] = p;
            }
        }
    }
    printf("total overlapping pairs over all steps: %ld (peak %ld at step %d)\n", total_pairs, peak_pairs, peak_step);
    printf("total overlap volume: %.4f\n", total_volume);
    return 0;
}
