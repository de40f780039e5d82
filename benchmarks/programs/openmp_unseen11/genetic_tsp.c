/* genetic_tsp: genetic algorithm for a travelling-salesman instance.
 *
 * usage: genetic_tsp CITIES_FILE GENERATIONS
 *
 * Distances are rounded to hundredths and kept as integers, so tour lengths
 * are exact.  Each generation the lengths of all tours of the population are
 * evaluated in one parallel loop; selection, order crossover and mutation run
 * sequentially with a fixed-seed random generator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define POP 256
#define ELITE 4
#define TOURNAMENT 3
#define MAX_CITIES 4096

static int ncity;
static int32_t *dist; /* ncity * ncity, hundredths */

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t rng_next(void)
{
    /* xorshift64* */
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int rng_below(int n)
{
    return (int)((rng_next() >> 33) % (uint64_t)n);
}

static int read_cities(const char *path, double **xs, double **ys)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "genetic_tsp: cannot open %s\n", path);
        return -1;
    }
    char line[256];
    int n = -1, got = 0;
    double *x = NULL, *y = NULL;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (n < 0) {
            if (sscanf(p, "%d", &n) != 1 || n < 4 || n > MAX_CITIES)
                goto bad;
            x = malloc(sizeof(double) * n);
            y = malloc(sizeof(double) * n);
            continue;
        }
        if (got >= n)
            goto bad;
        if (sscanf(p, "%lf %lf", &x[got], &y[got]) != 2)
            goto bad;
        got++;
    }
    fclose(f);
    if (n < 0 || got != n) {
        fprintf(stderr, "genetic_tsp: malformed city file %s\n", path);
        free(x);
        free(y);
        return -1;
    }
    *xs = x;
    *ys = y;
    return n;
bad:
    fclose(f);
    free(x);
    free(y);
    fprintf(stderr, "genetic_tsp: malformed city file %s\n", path);
    return -1;
}

static int64_t tour_length(const int16_t *t)
{
    int64_t len = 0;
    for (int i = 0; i + 1 < ncity; i++)
        len += dist[t[i] * ncity + t[i + 1]];
    len += dist[t[ncity - 1] * ncity + t[0]];
    return len;
}

static int tournament(const int64_t *len)
{
    int best = rng_below(POP);
    for (int k = 1; k < TOURNAMENT; k++) {
        int c = rng_below(POP);
        if (len[c] < len[best] || (len[c] == len[best] && c < best))
            best = c;
    }
    return best;
}

/* order crossover (OX1): copy a slice of parent a, fill the rest in the
 * order the cities appear in parent b after the slice */
static void order_crossover(const int16_t *a, const int16_t *b, int16_t *child,
                            unsigned char *used)
{
    int lo = rng_below(ncity), hi = rng_below(ncity);
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
    }
    memset(used, 0, ncity);
    for (int i = lo; i <= hi; i++) {
        child[i] = a[i];
        used[a[i]] = 1;
    }
    int pos = (hi + 1) % ncity;
    for (int k = 0; k < ncity; k++) {
        int16_t c = b[(hi + 1 + k) % ncity];
        if (used[c])
            continue;
        child[pos] = c;
        used[c] = 1;
        pos = (pos + 1) % ncity;
    }
}

static void mutate(int16_t *t)
{
    int r = rng_below(100);
    if (r < 30) {
        /* segment reversal */
        int i = rng_below(ncity), j = rng_below(ncity);
        if (i > j) {
            int x = i;
            i = j;
            j = x;
        }
        while (i < j) {
            int16_t x = t[i];
            t[i] = t[j];
            t[j] = x;
            i++;
            j--;
        }
    } else if (r < 45) {
        /* swap two cities */
        int i = rng_below(ncity), j = rng_below(ncity);
        int16_t x = t[i];
        t[i] = t[j];
        t[j] = x;
    } else if (r < 55) {
        /* move one city to another position */
        int i = rng_below(ncity), j = rng_below(ncity);
        int16_t c = t[i];
        if (i < j)
            memmove(t + i, t + i + 1, sizeof(int16_t) * (j - i));
        else if (i > j)
            memmove(t + j + 1, t + j, sizeof(int16_t) * (i - j));
        t[j] = c;
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CITIES_FILE GENERATIONS\n", argv[0]);
        return 2;
    }
    char *end;
    long gens = strtol(argv[2], &end, 10);
    if (*end != '\0' || gens < 1 || gens > 10000000) {
        fprintf(stderr, "usage: %s CITIES_FILE GENERATIONS\n", argv[0]);
        return 2;
    }
    double *xs, *ys;
    ncity = read_cities(argv[1], &xs, &ys);
    if (ncity < 0)
        return 1;

    dist = malloc(sizeof(int32_t) * ncity * ncity);
    for (int i = 0; i < ncity; i++)
        for (int j = 0; j < ncity; j++) {
            double dx = xs[i] - xs[j], dy = ys[i] - ys[j];
            dist[i * ncity + j] = (int32_t)llround(sqrt(dx * dx + dy * dy) * 100.0);
        }

    int16_t *pop = malloc(sizeof(int16_t) * POP * ncity);
    int16_t *next = malloc(sizeof(int16_t) * POP * ncity);
    int64_t *len = malloc(sizeof(int64_t) * POP);
    int order[POP];
    unsigned char *used = malloc(ncity);

    for (int p = 0; p < POP; p++) {
        int16_t *t = pop + (size_t)p * ncity;
        for (int i = 0; i < ncity; i++)
            t[i] = (int16_t)i;
        for (int i = ncity - 1; i > 0; i--) {
            int j = rng_below(i + 1);
            int16_t x = t[i];
            t[i] = t[j];
            t[j] = x;
        }
    }

    int report_every = gens >= 4000 ? (int)(gens / 10) : 500;
    int64_t best_len = INT64_MAX;
    int best_at = -1;
    int16_t *best_tour = malloc(sizeof(int16_t) * ncity);

    for (long g = 0; g <= gens; g++) {
        /* evaluate the whole population */
        #pragma omp parallel for
        for (int p = 0; p < POP; p++)
            len[p] = tour_length(pop + (size_t)p * ncity);

        int gbest = 0;
        for (int p = 1; p < POP; p++)
            if (len[p] < len[gbest])
                gbest = p;
        if (len[gbest] < best_len) {
            best_len = len[gbest];
            best_at = (int)g;
            memcpy(best_tour, pop + (size_t)gbest * ncity, sizeof(int16_t) * ncity);
        }
        if (g % report_every == 0 || g == gens) {
            int64_t sum = 0;
            for (int p = 0; p < POP; p++)
                sum += len[p];
            printf("generation %6ld  best %9lld.%02lld  population mean %9lld.%02lld\n", g,
                   (long long)(best_len / 100), (long long)(best_len % 100),
                   (long long)(sum / POP / 100), (long long)(sum / POP % 100));
        }
        if (g == gens)
            break;

        /* elitism: keep the ELITE shortest tours (ties by index) */
        for (int p = 0; p < POP; p++)
            order[p] = p;
        for (int e = 0; e < ELITE; e++) {
            int m = e;
            for (int p = e + 1; p < POP; p++)
                if (len[order[p]] < len[order[m]] ||
                    (len[order[p]] == len[order[m]] && order[p] < order[m]))
                    m = p;
            int x = order[e];
            order[e] = order[m];
            order[m] = x;
            memcpy(next + (size_t)e * ncity, pop + (size_t)order[e] * ncity,
                   sizeof(int16_t) * ncity);
        }
        for (int p = ELITE; p < POP; p++) {
            int a = tournament(len), b = tournament(len);
            int16_t *child = next + (size_t)p * ncity;
            if (rng_below(100) < 85)
                order_crossover(pop + (size_t)a * ncity, pop + (size_t)b * ncity, child, used);
            else
                memcpy(child, pop + (size_t)a * ncity, sizeof(int16_t) * ncity);
            mutate(child);
        }
        int16_t *t = pop;
        pop = next;
        next = t;
    }

    /* rotate the best tour so that it starts at city 0 */
    int start = 0;
    while (best_tour[start] != 0)
        start++;
    printf("best tour length %lld.%02lld found in generation %d\n", (long long)(best_len / 100),
           (long long)(best_len % 100), best_at);
    printf("best tour starts:");
    for (int i = 0; i < 20 && i < ncity; i++)
        printf(" %d", best_tour[(start + i) % ncity]);
    printf("\n");

    free(best_tour);
    free(used);
    free(len);
    free(next);
    free(pop);
    free(dist);
    free(xs);
    free(ys);
    return 0;
}
