/*
 * queue_sim: discrete-event simulation of bank branches (M/M/c with balking).
 *
 * Usage: queue_sim <scenario file> <seed>
 *
 * Each scenario line is "group arrival_rate service_rate tellers customers"
 * (rates per minute; '#' starts a comment line).  Customers arrive in a Poisson
 * stream and are served first come first served by c tellers with exponential
 * service times; a customer who finds q people waiting balks (leaves without
 * service) with probability q / (q + 3c).  Every scenario runs with its own
 * random stream derived from the seed and the scenario number, so the results
 * do not depend on how scenarios are spread over threads.  Results are printed
 * per group of scenarios.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAXSCEN 10000
#define MAXGROUPS 64
#define NAMELEN 32

typedef struct {
    char group[NAMELEN];
    double lambda, mu;
    int tellers;
    long customers;
    /* results */
    long served, balked;
    double mean_wait, p95_wait, max_wait, utilisation, frac_waited;
} scenario_t;

/* ---- xoshiro256** seeded by splitmix64 ---- */
typedef struct {
    uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(rng_t *r)
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

static inline double rng_uniform(rng_t *r) { return (rng_next(r) >> 11) * 0x1.0p-53; }

static inline double rng_exp(rng_t *r, double rate) { return -log1p(-rng_uniform(r)) / rate; }

/* ---- small min-heap of departure times ---- */
static inline void heap_push(double *h, int *n, double v)
{
    int i = (*n)++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (h[p] <= v)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = v;
}

static inline double heap_pop(double *h, int *n)
{
    double top = h[0], v = h[--(*n)];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = v;
    return top;
}

/* k-th smallest of a[0..n-1] (a is reordered) */
static double select_kth(double *a, long n, long k)
{
    long lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = a[lo + (hi - lo) / 2];
        long i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot)
                i++;
            while (a[j] > pivot)
                j--;
            if (i <= j) {
                double t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return a[k];
    }
    return a[k];
}

static void simulate(scenario_t *sc, uint64_t seed, int index)
{
    rng_t r;
    rng_seed(&r, seed, (uint64_t)index + 1);
    int c = sc->tellers;
    double *dep = malloc((size_t)c * sizeof *dep);
    double *wait = malloc((size_t)sc->customers * sizeof *wait);
    size_t qcap = 1024, qhead = 0, qlen = 0;
    double *queue = malloc(qcap * sizeof *queue);
    if (!dep || !wait || !queue) {
        fprintf(stderr, "queue_sim: out of memory\n");
        exit(1);
    }
    int busy = 0;
    long left = sc->customers, served = 0, balked = 0, waited = 0;
    double t_arr = rng_exp(&r, sc->lambda), t_end = 0.0, busy_time = 0.0;
    double sum_wait = 0.0, max_wait = 0.0;

    while (left > 0 || busy > 0) {
        if (left > 0 && (busy == 0 || t_arr < dep[0])) {
            /* arrival */
            if (busy < c) {
                double s = rng_exp(&r, sc->mu);
                busy_time += s;
                heap_push(dep, &busy, t_arr + s);
                wait[served++] = 0.0;
            } else {
                double q = (double)qlen;
                if (rng_uniform(&r) * (q + 3.0 * c) < q) {
                    balked++;
                } else {
                    if (qlen == qcap) {
                        double *nq = malloc(2 * qcap * sizeof *nq);
                        if (!nq) {
                            fprintf(stderr, "queue_sim: out of memory\n");
                            exit(1);
                        }
                        for (size_t i = 0; i < qlen; i++)
                            nq[i] = queue[(qhead + i) % qcap];
                        free(queue);
                        queue = nq;
                        qhead = 0;
                        qcap *= 2;
                    }
                    queue[(qhead + qlen) % qcap] = t_arr;
                    qlen++;
                }
            }
            t_arr += rng_exp(&r, sc->lambda);
            left--;
        } else {
            /* departure: the teller takes the next waiting customer, if any */
            double t = heap_pop(dep, &busy);
            t_end = t;
            if (qlen > 0) {
                double a = queue[qhead];
                qhead = (qhead + 1) % qcap;
                qlen--;
                double w = t - a;
                double s = rng_exp(&r, sc->mu);
                busy_time += s;
                heap_push(dep, &busy, t + s);
                wait[served++] = w;
                sum_wait += w;
                waited++;
                if (w > max_wait)
                    max_wait = w;
            }
        }
    }

    sc->served = served;
    sc->balked = balked;
    sc->mean_wait = served ? sum_wait / served : 0.0;
    sc->max_wait = max_wait;
    sc->frac_waited = served ? (double)waited / served : 0.0;
    sc->utilisation = t_end > 0.0 ? busy_time / (c * t_end) : 0.0;
    sc->p95_wait = served ? select_kth(wait, served, (long)(0.95 * (served - 1))) : 0.0;
    free(queue);
    free(wait);
    free(dep);
}

static int read_scenarios(const char *path, scenario_t *sc)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "queue_sim: cannot open %s\n", path);
        exit(1);
    }
    char line[256];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (n == MAXSCEN) {
            fprintf(stderr, "queue_sim: %s: more than %d scenarios\n", path, MAXSCEN);
            exit(1);
        }
        scenario_t *s = &sc[n];
        char extra[2];
        memset(s, 0, sizeof *s);
        if (sscanf(p, "%31s %lf %lf %d %ld %1s", s->group, &s->lambda, &s->mu, &s->tellers,
                   &s->customers, extra) != 5 ||
            !(s->lambda > 0.0) || !(s->mu > 0.0) || s->tellers < 1 || s->tellers > 1000 ||
            s->customers < 1 || s->customers > 100000000) {
            fprintf(stderr, "queue_sim: %s: line %d: malformed scenario\n", path, lineno);
            exit(1);
        }
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "queue_sim: %s: no scenarios\n", path);
        exit(1);
    }
    return n;
}

int main(int argc, char **argv)
{
    char *end;
    if (argc != 3) {
        fprintf(stderr, "usage: %s <scenario file> <seed>\n", argv[0]);
        return 2;
    }
    unsigned long long seed = strtoull(argv[2], &end, 10);
    if (*argv[2] == '\0' || *end != '\0') {
        fprintf(stderr, "usage: %s <scenario file> <seed>\n", argv[0]);
        return 2;
    }
    scenario_t *sc = calloc(MAXSCEN, sizeof *sc);
    if (!sc) {
        fprintf(stderr, "queue_sim: out of memory\n");
        return 1;
    }
    int n = read_scenarios(argv[1], sc);

#pragma omp parallel for
    for (int i = 0; i < n; i++)
        simulate(&sc[i], (uint64_t)seed, i);

    /* groups in order of first appearance */
    char names[MAXGROUPS][NAMELEN];
    int ng = 0;
    int *gid = malloc((size_t)n * sizeof *gid);
    for (int i = 0; i < n; i++) {
        int g = 0;
        while (g < ng && strcmp(names[g], sc[i].group) != 0)
            g++;
        if (g == ng) {
            if (ng == MAXGROUPS) {
                fprintf(stderr, "queue_sim: more than %d groups\n", MAXGROUPS);
                return 1;
            }
            strcpy(names[ng++], sc[i].group);
        }
        gid[i] = g;
    }

    printf("%d scenarios in %d groups, seed %llu\n", n, ng, seed);
    printf("%-10s %5s %10s %7s %10s %10s %10s %10s %6s\n", "group", "scen", "customers",
           "balked%", "waited%", "mean wait", "p95 wait", "max wait", "util%");
    long all_cust = 0, all_served = 0, all_balked = 0;
    for (int g = 0; g < ng; g++) {
        long cust = 0, served = 0, balked = 0;
        int cnt = 0;
        double wsum = 0.0, p95sum = 0.0, util = 0.0, waited = 0.0, maxw = 0.0;
        for (int i = 0; i < n; i++) {
            if (gid[i] != g)
                continue;
            cnt++;
            cust += sc[i].customers;
            served += sc[i].served;
            balked += sc[i].balked;
            wsum += sc[i].mean_wait * sc[i].served;
            waited += sc[i].frac_waited * sc[i].served;
            p95sum += sc[i].p95_wait;
            util += sc[i].utilisation;
            if (sc[i].max_wait > maxw)
                maxw = sc[i].max_wait;
        }
        printf("%-10s %5d %10ld %7.2f %10.2f %10.3f %10.3f %10.2f %6.1f\n", names[g], cnt, cust,
               100.0 * balked / cust, served ? 100.0 * waited / served : 0.0,
               served ? wsum / served : 0.0, p95sum / cnt, maxw, 100.0 * util / cnt);
        all_cust += cust;
        all_served += served;
        all_balked += balked;
    }
    printf("total: %ld customers, %ld served, %ld balked (%.2f%%)\n", all_cust, all_served,
           all_balked, 100.0 * all_balked / all_cust);
    printf("waits in minutes; p95 wait is the mean over a group's scenarios of each scenario's\n"
           "95th percentile wait\n");
    free(gid);
    free(sc);
    return 0;
}
