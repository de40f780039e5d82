/*
 * epidemic_sir - stochastic agent-based SIR epidemics on a contact network.
 *
 * Usage: epidemic_sir <network.txt> <runs> <beta> <gamma>
 *
 *   network.txt  first line "<nodes> <edges>", then one undirected edge "u v"
 *                per line (0-based ids)
 *   runs         number of independent simulations
 *   beta         per-contact, per-day transmission probability
 *   gamma        per-day recovery probability of an infected person
 *
 * Every simulation starts with a few randomly chosen infected people and runs
 * day by day until nobody is infected any more.  Each run has its own
 * deterministic random stream, so results do not depend on how the runs are
 * distributed over threads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_INFECTED 3
#define BASE_SEED 0x5eed5171u

enum { SUSCEPTIBLE = 0, INFECTED = 1, RECOVERED = 2 };

typedef struct {
    int n;          /* people */
    long m;         /* undirected edges */
    long *start;    /* CSR offsets, n+1 */
    int *adj;       /* neighbours, 2*m */
} Graph;

typedef struct {
    int final_size; /* people ever infected */
    int peak_day;
    int peak_infected;
    int duration;   /* days until extinction */
} RunResult;

/* ---------- random numbers: xoshiro256** seeded by splitmix64 ---------- */
typedef struct { uint64_t s[4]; } Rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(Rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(Rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* probability threshold on the top 53 bits, avoids floating point in the loop */
static inline uint64_t prob_threshold(double p)
{
    if (p <= 0.0) return 0;
    if (p >= 1.0) return (uint64_t)1 << 53;
    return (uint64_t)(p * 9007199254740992.0);
}

static inline int rng_hit(Rng *r, uint64_t thr) { return (rng_next(r) >> 11) < thr; }

/* ---------------------------- input ---------------------------------- */
static int load_graph(const char *path, Graph *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "epidemic_sir: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    int n;
    long m;
    if (fscanf(f, "%d %ld", &n, &m) != 2 || n <= 0 || m < 0) {
        fprintf(stderr, "epidemic_sir: '%s': bad header (expected \"<nodes> <edges>\")\n", path);
        fclose(f);
        return -1;
    }
    int *eu = malloc(sizeof(int) * (size_t)(m ? m : 1));
    int *ev = malloc(sizeof(int) * (size_t)(m ? m : 1));
    g->start = calloc((size_t)n + 1, sizeof(long));
    g->adj = malloc(sizeof(int) * (size_t)(2 * m + 1));
    if (!eu || !ev || !g->start || !g->adj) {
        fprintf(stderr, "epidemic_sir: out of memory\n");
        exit(1);
    }
    for (long e = 0; e < m; e++) {
        int u, v;
        if (fscanf(f, "%d %d", &u, &v) != 2) {
            fprintf(stderr, "epidemic_sir: '%s': edge %ld missing or malformed\n", path, e + 1);
            fclose(f);
            return -1;
        }
        if (u < 0 || u >= n || v < 0 || v >= n || u == v) {
            fprintf(stderr, "epidemic_sir: '%s': edge %ld (%d %d) out of range\n", path, e + 1, u, v);
            fclose(f);
            return -1;
        }
        eu[e] = u;
        ev[e] = v;
        g->start[u + 1]++;
        g->start[v + 1]++;
    }
    fclose(f);
    for (int i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    long *fill = malloc(sizeof(long) * (size_t)n);
    memcpy(fill, g->start, sizeof(long) * (size_t)n);
    for (long e = 0; e < m; e++) {
        g->adj[fill[eu[e]]++] = ev[e];
        g->adj[fill[ev[e]]++] = eu[e];
    }
    free(fill);
    free(eu);
    free(ev);
    g->n = n;
    g->m = m;
    return 0;
}

/* --------------------------- simulation ------------------------------ */
static void simulate(const Graph *g, int run, uint64_t beta_thr, uint64_t gamma_thr,
                     unsigned char *state, int *cur, int *next, RunResult *res)
{
    Rng rng;
    rng_seed(&rng, BASE_SEED ^ ((uint64_t)(run + 1) * 0x9e3779b97f4a7c15ULL));
    memset(state, SUSCEPTIBLE, (size_t)g->n);

    int ncur = 0;
    while (ncur < INITIAL_INFECTED && ncur < g->n) {
        int p = (int)(rng_next(&rng) % (uint64_t)g->n);
        if (state[p] == SUSCEPTIBLE) {
            state[p] = INFECTED;
            cur[ncur++] = p;
        }
    }
    int ever = ncur, peak = ncur, peak_day = 0, day = 0;

    while (ncur > 0) {
        int nnext = 0;
        day++;
        /* transmission: infected people contact their neighbours */
        for (int k = 0; k < ncur; k++) {
            int p = cur[k];
            for (long e = g->start[p]; e < g->start[p + 1]; e++) {
                int q = g->adj[e];
                if (state[q] == SUSCEPTIBLE && rng_hit(&rng, beta_thr)) {
                    state[q] = INFECTED;
                    next[nnext++] = q;
                }
            }
        }
        ever += nnext;
        /* recovery of those who were infected at the start of the day */
        for (int k = 0; k < ncur; k++) {
            int p = cur[k];
            if (rng_hit(&rng, gamma_thr))
                state[p] = RECOVERED;
            else
                next[nnext++] = p;
        }
        int *t = cur;
        cur = next;
        next = t;
        ncur = nnext;
        if (ncur > peak) {
            peak = ncur;
            peak_day = day;
        }
    }
    res->final_size = ever;
    res->peak_day = peak_day;
    res->peak_infected = peak;
    res->duration = day;
}

static void usage(void)
{
    fprintf(stderr, "usage: epidemic_sir <network.txt> <runs> <beta> <gamma>\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 5) usage();
    char *end;
    long runs = strtol(argv[2], &end, 10);
    if (*end || runs < 1 || runs > 1000000) usage();
    double beta = strtod(argv[3], &end);
    if (*end || !(beta > 0.0 && beta <= 1.0)) usage();
    double gamma = strtod(argv[4], &end);
    if (*end || !(gamma > 0.0 && gamma <= 1.0)) usage();

    Graph g;
    if (load_graph(argv[1], &g) != 0) return 1;

    /* network summary */
    long max_deg = 0, hubs = 0, isolated = 0;
    #pragma omp parallel for reduction(max:max_deg) reduction(+:hubs,isolated)
    for (int i = 0; i < g.n; i++) {
        long d = g.start[i + 1] - g.start[i];
        if (d > max_deg) max_deg = d;
        if (d >= 50) hubs++;
        if (d == 0) isolated++;
    }
    printf("network: %d people, %ld contacts, mean degree %.2f, max degree %ld, "
           "%ld people with >= 50 contacts, %ld isolated\n",
           g.n, g.m, 2.0 * (double)g.m / g.n, max_deg, hubs, isolated);
    printf("parameters: %ld runs, beta %.4f, gamma %.4f (mean infectious period %.1f days)\n",
           runs, beta, gamma, 1.0 / gamma);

    RunResult *res = malloc(sizeof(RunResult) * (size_t)runs);
    uint64_t beta_thr = prob_threshold(beta), gamma_thr = prob_threshold(gamma);

    #pragma omp parallel
    {
        unsigned char *state = malloc((size_t)g.n);
        int *cur = malloc(sizeof(int) * (size_t)g.n);
        int *next = malloc(sizeof(int) * (size_t)g.n);
        if (!state || !cur || !next) {
            fprintf(stderr, "epidemic_sir: out of memory\n");
            exit(1);
        }
        #pragma omp for
        for (long r = 0; r < runs; r++)
            simulate(&g, (int)r, beta_thr, gamma_thr, state, cur, next, &res[r]);
        free(state);
        free(cur);
        free(next);
    }

    /* summaries, combined in run order */
    int early_limit = g.n / 100;   /* fewer than 1% ever infected: died out early */
    long early = 0;
    long hist[10] = {0};
    long long sum_size = 0, sum_day = 0, sum_peak = 0, sum_dur = 0;
    int min_size = g.n + 1, max_size = -1, min_day = 1 << 30, max_day = -1;
    int min_peak = g.n + 1, max_peak = -1;
    long outbreaks = 0;
    for (long r = 0; r < runs; r++) {
        const RunResult *x = &res[r];
        int bin = (int)((long long)x->final_size * 10 / g.n);
        if (bin > 9) bin = 9;
        hist[bin]++;
        if (x->final_size < early_limit) {
            early++;
            continue;
        }
        outbreaks++;
        sum_size += x->final_size;
        sum_day += x->peak_day;
        sum_peak += x->peak_infected;
        sum_dur += x->duration;
        if (x->final_size < min_size) min_size = x->final_size;
        if (x->final_size > max_size) max_size = x->final_size;
        if (x->peak_day < min_day) min_day = x->peak_day;
        if (x->peak_day > max_day) max_day = x->peak_day;
        if (x->peak_infected < min_peak) min_peak = x->peak_infected;
        if (x->peak_infected > max_peak) max_peak = x->peak_infected;
    }

    printf("died out early (< %d infected): %ld of %ld runs (%.1f%%)\n",
           early_limit, early, runs, 100.0 * (double)early / (double)runs);
    printf("final epidemic size (share of population ever infected):\n");
    for (int b = 0; b < 10; b++)
        printf("  %3d%% - %3d%%: %6ld runs\n", b * 10, b * 10 + 10, hist[b]);
    if (outbreaks > 0) {
        printf("major outbreaks: %ld\n", outbreaks);
        printf("  final size     mean %9.1f  min %6d  max %6d\n",
               (double)sum_size / outbreaks, min_size, max_size);
        printf("  peak day       mean %9.1f  min %6d  max %6d\n",
               (double)sum_day / outbreaks, min_day, max_day);
        printf("  peak infected  mean %9.1f  min %6d  max %6d\n",
               (double)sum_peak / outbreaks, min_peak, max_peak);
        printf("  duration       mean %9.1f days\n", (double)sum_dur / outbreaks);
    } else {
        printf("major outbreaks: none\n");
    }

    free(res);
    free(g.start);
    free(g.adj);
    return 0;
}
