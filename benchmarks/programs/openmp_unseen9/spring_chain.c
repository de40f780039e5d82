/*
 * spring_chain.c - 1-D chain of masses joined by nonlinear (cubic) springs,
 * fixed walls at both ends, integrated with velocity Verlet.
 *
 * All state is kept in signed 64-bit fixed point (24 fractional bits), so the
 * results are bit-for-bit reproducible whatever the number of threads.
 *
 * usage: spring_chain PARAMS_FILE STEPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>
#include <omp.h>

typedef long long fx;              /* Q24 fixed point */
#define QBITS 24
#define ONE ((fx)1 << QBITS)

static inline fx mulq(fx a, fx b) { return (fx)(((__int128)a * b) >> QBITS); }

static fx to_fx(double v) { return (fx)llround(v * (double)ONE); }

/* print a non-negative or negative Q24 number with 6 decimals */
static void fmt_fx(char *buf, size_t len, fx v)
{
    const char *sign = "";
    if (v < 0) { sign = "-"; v = -v; }
    long long whole = v >> QBITS;
    long long frac = (long long)(((__int128)(v & (ONE - 1)) * 1000000) >> QBITS);
    snprintf(buf, len, "%s%lld.%06lld", sign, whole, frac);
}

struct params {
    int n;
    double mass_even, mass_odd, k_lin, k_cub, rest, dt, amp;
    unsigned long long seed;
    int checkpoints;
};

static int read_params(const char *path, struct params *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "spring_chain: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    int have[10] = {0};
    const char *keys[10] = {"n_masses", "mass_even", "mass_odd", "k_linear", "k_cubic",
                            "rest_length", "dt", "amplitude", "seed", "checkpoints"};
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h) *h = '\0';
        char key[64], val[128], extra[8];
        int got = sscanf(line, "%63s %127s %7s", key, val, extra);
        if (got <= 0) continue;
        if (got != 2) {
            fprintf(stderr, "spring_chain: %s:%d: expected 'key value'\n", path, lineno);
            fclose(f);
            return -1;
        }
        int k;
        for (k = 0; k < 10; k++)
            if (strcmp(key, keys[k]) == 0) break;
        if (k == 10) {
            fprintf(stderr, "spring_chain: %s:%d: unknown key '%s'\n", path, lineno, key);
            fclose(f);
            return -1;
        }
        char *end;
        errno = 0;
        double d = strtod(val, &end);
        if (*end != '\0' || errno != 0) {
            fprintf(stderr, "spring_chain: %s:%d: bad number '%s'\n", path, lineno, val);
            fclose(f);
            return -1;
        }
        have[k] = 1;
        switch (k) {
        case 0: p->n = (int)d; break;
        case 1: p->mass_even = d; break;
        case 2: p->mass_odd = d; break;
        case 3: p->k_lin = d; break;
        case 4: p->k_cub = d; break;
        case 5: p->rest = d; break;
        case 6: p->dt = d; break;
        case 7: p->amp = d; break;
        case 8: p->seed = strtoull(val, NULL, 10); break;
        case 9: p->checkpoints = (int)d; break;
        }
    }
    fclose(f);
    for (int k = 0; k < 10; k++)
        if (!have[k]) {
            fprintf(stderr, "spring_chain: %s: missing key '%s'\n", path, keys[k]);
            return -1;
        }
    if (p->n < 2 || p->n > 1000000 || p->mass_even <= 0 || p->mass_odd <= 0 ||
        p->rest <= 0 || p->dt <= 0 || p->dt > 1 || p->amp < 0 || p->amp >= p->rest ||
        p->checkpoints < 1 || p->k_lin < 0 || p->k_cub < 0) {
        fprintf(stderr, "spring_chain: %s: parameter out of range\n", path);
        return -1;
    }
    return 0;
}

static unsigned long long rng_state;
static unsigned long long xorshift64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* spring tension for extension d: k*d + k3*d^3 */
static inline fx tension(fx d, fx k, fx k3)
{
    fx d3 = mulq(mulq(d, d), d);
    return mulq(k, d) + mulq(k3, d3);
}

/* spring energy for extension d: k*d^2/2 + k3*d^4/4 */
static inline fx spring_energy(fx d, fx k, fx k3)
{
    fx d2 = mulq(d, d);
    return (mulq(k, d2) >> 1) + (mulq(k3, mulq(d2, d2)) >> 2);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PARAMS_FILE STEPS\n", argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    long steps = strtol(argv[2], &end, 10);
    if (*end != '\0' || errno != 0 || steps < 1 || steps > 100000000) {
        fprintf(stderr, "usage: %s PARAMS_FILE STEPS   (STEPS: positive integer)\n", argv[0]);
        return 2;
    }

    struct params p;
    memset(&p, 0, sizeof p);
    if (read_params(argv[1], &p) != 0) return 1;

    const int n = p.n;
    const fx k = to_fx(p.k_lin), k3 = to_fx(p.k_cub), L = to_fx(p.rest);
    const fx dt = to_fx(p.dt), hdt = dt / 2;

    /* positions include the two walls: x[0] and x[n+1] never move */
    fx *x = malloc((size_t)(n + 2) * sizeof *x);
    fx *v = calloc((size_t)(n + 2), sizeof *v);
    fx *a = calloc((size_t)(n + 2), sizeof *a);
    fx *m = malloc((size_t)(n + 2) * sizeof *m);
    fx *inv_m = malloc((size_t)(n + 2) * sizeof *inv_m);
    if (!x || !v || !a || !m || !inv_m) {
        fprintf(stderr, "spring_chain: out of memory\n");
        return 1;
    }

    rng_state = p.seed ? p.seed : 88172645463325252ULL;
    fx A = to_fx(p.amp);
    for (int i = 0; i <= n + 1; i++) {
        double mass = (i % 2 == 0) ? p.mass_even : p.mass_odd;
        m[i] = to_fx(mass);
        inv_m[i] = to_fx(1.0 / mass);
        fx u = 0;
        if (i >= 1 && i <= n) {
            fx r = (fx)(xorshift64() >> 39) - ONE;   /* uniform in [-1, 1) */
            u = mulq(A, r);
        }
        x[i] = (fx)i * L + u;
    }

    printf("chain of %d masses, %ld steps, dt %.6g, k %.6g, k3 %.6g\n",
           n, steps, p.dt, p.k_lin, p.k_cub);

    /* initial accelerations */
    #pragma omp parallel for
    for (int i = 1; i <= n; i++) {
        fx f = tension(x[i + 1] - x[i] - L, k, k3) - tension(x[i] - x[i - 1] - L, k, k3);
        a[i] = mulq(f, inv_m[i]);
    }

    long every = steps / p.checkpoints;
    if (every < 1) every = 1;
    char b1[48], b2[48], b3[48];

    for (long s = 0; s <= steps; s++) {
        if (s % every == 0 || s == steps) {
            fx ke = 0, pe = 0;
            #pragma omp parallel for reduction(+:ke, pe)
            for (int i = 1; i <= n + 1; i++) {
                if (i <= n) ke += mulq(m[i], mulq(v[i], v[i])) >> 1;
                pe += spring_energy(x[i] - x[i - 1] - L, k, k3);
            }
            fmt_fx(b1, sizeof b1, ke);
            fmt_fx(b2, sizeof b2, pe);
            fmt_fx(b3, sizeof b3, ke + pe);
            printf("step %9ld  kinetic %14s  potential %14s  total %14s\n", s, b1, b2, b3);
        }
        if (s == steps) break;

        /* half kick + drift */
        #pragma omp parallel for
        for (int i = 1; i <= n; i++) {
            v[i] += mulq(a[i], hdt);
            x[i] += mulq(v[i], dt);
        }

        /* new forces + second half kick */
        #pragma omp parallel for
        for (int i = 1; i <= n; i++) {
            fx f = tension(x[i + 1] - x[i] - L, k, k3) - tension(x[i] - x[i - 1] - L, k, k3);
            a[i] = mulq(f, inv_m[i]);
            v[i] += mulq(a[i], hdt);
        }
    }

    /* summary of the final configuration (sequential, fixed order) */
    fx sum_u = 0, max_abs_u = -1, min_ext = 0, max_ext = 0;
    int max_i = 0, min_ext_i = 0, max_ext_i = 0;
    for (int i = 1; i <= n + 1; i++) {
        fx ext = x[i] - x[i - 1] - L;
        if (i == 1 || ext < min_ext) { min_ext = ext; min_ext_i = i; }
        if (i == 1 || ext > max_ext) { max_ext = ext; max_ext_i = i; }
        if (i <= n) {
            fx u = x[i] - (fx)i * L;
            sum_u += u;
            fx au = u < 0 ? -u : u;
            if (au > max_abs_u) { max_abs_u = au; max_i = i; }
        }
    }
    fmt_fx(b1, sizeof b1, sum_u / n);
    printf("mean displacement      %s\n", b1);
    fmt_fx(b1, sizeof b1, max_abs_u);
    fmt_fx(b2, sizeof b2, x[max_i] - (fx)max_i * L);
    printf("largest displacement   %s at mass %d (signed %s)\n", b1, max_i, b2);
    fmt_fx(b1, sizeof b1, min_ext);
    fmt_fx(b2, sizeof b2, max_ext);
    printf("spring extension range %s (spring %d) .. %s (spring %d)\n",
           b1, min_ext_i, b2, max_ext_i);
    fmt_fx(b1, sizeof b1, x[1]);
    fmt_fx(b2, sizeof b2, x[n / 2]);
    fmt_fx(b3, sizeof b3, x[n]);
    printf("positions: first %s  middle(%d) %s  last %s\n", b1, n / 2, b2, b3);

    free(x); free(v); free(a); free(m); free(inv_m);
    return 0;
}
