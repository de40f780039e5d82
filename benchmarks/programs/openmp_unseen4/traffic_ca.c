/*
 * traffic_ca: Nagel-Schreckenberg traffic simulation on independent ring lanes.
 *
 * usage: traffic_ca ROADS_FILE STEPS
 *
 * The road file holds one ring lane per line ("id length density vmax p_slow",
 * after a line with the number of lanes; '#' lines are comments).  Every lane
 * is simulated for STEPS time steps; the first quarter of the steps is a
 * warm-up and is not counted in the statistics.  Each lane has its own
 * random generator seeded from its id, so the results do not depend on how
 * the lanes are shared out between threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <errno.h>

typedef struct {
    int id;
    int length;      /* cells in the ring */
    double density;  /* requested cars per cell */
    int vmax;
    double p_slow;   /* random braking probability */
    int ncars;
    int *pos;        /* car positions, in driving order around the ring */
    int *vel;
    /* statistics over the measured steps */
    long long distance;
    long long stopped;   /* car-steps with speed 0 */
    long long car_steps;
    double flow;         /* cars passing a point per step */
    double mean_speed;
    double jam_frac;
} Lane;

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double rng_uniform(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int read_roads(const char *path, Lane **lanes_out, int *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "traffic_ca: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    int n = -1, got = 0, lineno = 0;
    Lane *lanes = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\0') continue;
        if (n < 0) {
            if (sscanf(p, "%d", &n) != 1 || n <= 0 || n > 1000000) {
                fprintf(stderr, "traffic_ca: %s:%d: bad lane count\n", path, lineno);
                goto fail;
            }
            lanes = calloc((size_t)n, sizeof *lanes);
            if (!lanes) { fprintf(stderr, "traffic_ca: out of memory\n"); goto fail; }
            continue;
        }
        if (got >= n) {
            fprintf(stderr, "traffic_ca: %s:%d: more lanes than announced\n", path, lineno);
            goto fail;
        }
        Lane *L = &lanes[got];
        if (sscanf(p, "%d %d %lf %d %lf", &L->id, &L->length, &L->density,
                   &L->vmax, &L->p_slow) != 5 ||
            L->length < 10 || L->length > 10000000 ||
            !(L->density > 0.0 && L->density < 1.0) ||
            L->vmax < 1 || L->vmax > 20 ||
            !(L->p_slow >= 0.0 && L->p_slow < 1.0)) {
            fprintf(stderr, "traffic_ca: %s:%d: malformed lane line\n", path, lineno);
            goto fail;
        }
        got++;
    }
    if (ferror(f)) {
        fprintf(stderr, "traffic_ca: error reading %s\n", path);
        goto fail;
    }
    if (n < 0 || got != n) {
        fprintf(stderr, "traffic_ca: %s: expected %d lanes, found %d\n", path, n < 0 ? 0 : n, got);
        goto fail;
    }
    fclose(f);
    *lanes_out = lanes;
    *n_out = n;
    return 0;
fail:
    free(lanes);
    fclose(f);
    return -1;
}

/* Place the cars on distinct random cells (selection sampling keeps them
 * sorted, i.e. in driving order). */
static void init_lane(Lane *L, uint64_t *rng)
{
    int n = (int)(L->density * L->length + 0.5);
    if (n < 1) n = 1;
    if (n > L->length) n = L->length;
    L->ncars = n;
    L->pos = malloc(sizeof(int) * (size_t)n);
    L->vel = calloc((size_t)n, sizeof(int));
    int placed = 0;
    for (int c = 0; c < L->length && placed < n; c++) {
        double u = rng_uniform(rng);
        if ((L->length - c) * u < (double)(n - placed))
            L->pos[placed++] = c;
    }
}

static void simulate_lane(Lane *L, int steps, int warmup, uint64_t *rng)
{
    const int n = L->ncars, len = L->length, vmax = L->vmax;
    const double p = L->p_slow;
    int *pos = L->pos, *vel = L->vel;
    long long dist = 0, stopped = 0;

    for (int t = 0; t < steps; t++) {
        /* rules 1-3: accelerate, keep distance, random braking */
        for (int i = 0; i < n; i++) {
            int gap;
            if (n == 1) {
                gap = len - 1;
            } else {
                int next = (i + 1 == n) ? pos[0] : pos[i + 1];
                gap = next - pos[i] - 1;
                if (gap < 0) gap += len;
            }
            int v = vel[i] + 1;
            if (v > vmax) v = vmax;
            if (v > gap) v = gap;
            if (v > 0 && rng_uniform(rng) < p) v--;
            vel[i] = v;
        }
        /* rule 4: move */
        long long moved = 0, zero = 0;
        for (int i = 0; i < n; i++) {
            int x = pos[i] + vel[i];
            if (x >= len) x -= len;
            pos[i] = x;
            moved += vel[i];
            zero += (vel[i] == 0);
        }
        if (t >= warmup) {
            dist += moved;
            stopped += zero;
        }
    }
    int measured = steps - warmup;
    L->distance = dist;
    L->stopped = stopped;
    L->car_steps = (long long)n * measured;
    L->flow = (double)dist / ((double)len * measured);
    L->mean_speed = (double)dist / (double)L->car_steps;
    L->jam_frac = (double)stopped / (double)L->car_steps;
}

static int more_jammed(const Lane *a, const Lane *b)
{
    if (a->jam_frac != b->jam_frac) return a->jam_frac > b->jam_frac;
    return a->id < b->id;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ROADS_FILE STEPS\n", argv[0]);
        return 2;
    }
    char *end;
    long steps = strtol(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0' || steps < 4 || steps > 10000000) {
        fprintf(stderr, "usage: %s ROADS_FILE STEPS   (STEPS: integer >= 4)\n", argv[0]);
        return 2;
    }
    Lane *lanes;
    int nl;
    if (read_roads(argv[1], &lanes, &nl) != 0) return 1;
    int warmup = (int)(steps / 4);

    #pragma omp parallel for
    for (int i = 0; i < nl; i++) {
        uint64_t rng = 0x5EEDBA5EULL ^ ((uint64_t)lanes[i].id * 0x2545F4914F6CDD1DULL);
        init_lane(&lanes[i], &rng);
        simulate_lane(&lanes[i], (int)steps, warmup, &rng);
    }

    /* summary, combined in lane order */
    long long total_dist = 0, total_cars = 0, total_cells = 0;
    enum { NB = 10 };
    int b_lanes[NB] = {0};
    double b_flow[NB] = {0}, b_speed[NB] = {0}, b_dens[NB] = {0};
    for (int i = 0; i < nl; i++) {
        Lane *L = &lanes[i];
        total_dist += L->distance;
        total_cars += L->ncars;
        total_cells += L->length;
        double rho = (double)L->ncars / L->length;
        int b = (int)(rho * NB);
        if (b >= NB) b = NB - 1;
        b_lanes[b]++;
        b_flow[b] += L->flow;
        b_speed[b] += L->mean_speed;
        b_dens[b] += rho;
    }

    printf("lanes: %d   cells: %lld   cars: %lld   steps: %ld (warm-up %d)\n",
           nl, total_cells, total_cars, steps, warmup);
    printf("density bucket   lanes  mean density  mean flow  mean speed\n");
    for (int b = 0; b < NB; b++) {
        if (b_lanes[b] == 0) continue;
        printf("  %.1f - %.1f     %5d  %12.4f  %9.4f  %10.3f\n",
               (double)b / NB, (double)(b + 1) / NB, b_lanes[b],
               b_dens[b] / b_lanes[b], b_flow[b] / b_lanes[b], b_speed[b] / b_lanes[b]);
    }

    int top[5], ntop = 0;
    for (int i = 0; i < nl; i++) {
        int k = ntop < 5 ? ntop++ : 5;
        if (k == 5) {
            if (!more_jammed(&lanes[i], &lanes[top[4]])) continue;
            k = 4;
        }
        while (k > 0 && more_jammed(&lanes[i], &lanes[top[k - 1]])) {
            top[k] = top[k - 1];
            k--;
        }
        top[k] = i;
    }
    printf("most jammed lanes:\n");
    for (int k = 0; k < ntop; k++) {
        Lane *L = &lanes[top[k]];
        printf("  lane %4d  length %6d  cars %6d  vmax %d  p %.2f  stopped %5.1f%%  flow %.4f\n",
               L->id, L->length, L->ncars, L->vmax, L->p_slow, 100.0 * L->jam_frac, L->flow);
    }
    printf("total distance travelled: %lld cells (mean speed %.4f cells/step)\n",
           total_dist, (double)total_dist / ((double)total_cars * (steps - warmup)));

    for (int i = 0; i < nl; i++) {
        free(lanes[i].pos);
        free(lanes[i].vel);
    }
    free(lanes);
    return 0;
}
