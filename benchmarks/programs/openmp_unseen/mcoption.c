/*
 * mcoption.c - Monte Carlo pricing of an arithmetic-average Asian call and a European call
 * under geometric Brownian motion. Random numbers come from a counter-based generator keyed
 * on (seed, path, step), so every path is reproducible on its own.
 *
 * usage: mcoption <paths> <steps> <seed> [S0 K r sigma T]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* splitmix64 finaliser used as a counter-based generator */
static inline uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline double u01(uint64_t key) /* (0,1) */
{
    return ((double)(mix64(key) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double norm_cdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 9) {
        fprintf(stderr, "usage: %s <paths> <steps> <seed> [S0 K r sigma T]\n", argv[0]);
        fprintf(stderr, "  e.g. %s 300000 64 42 100 105 0.03 0.25 1.0\n", argv[0]);
        return 2;
    }
    long npaths = atol(argv[1]);
    int nsteps = atoi(argv[2]);
    uint64_t seed = strtoull(argv[3], NULL, 10);
    double S0 = 100.0, K = 105.0, r = 0.03, sigma = 0.25, T = 1.0;
    if (argc == 9) {
        S0 = atof(argv[4]);
        K = atof(argv[5]);
        r = atof(argv[6]);
        sigma = atof(argv[7]);
        T = atof(argv[8]);
    }
    if (npaths < 2 || nsteps < 2 || nsteps % 2 || !(S0 > 0) || !(K > 0) || !(sigma > 0) || !(T > 0)) {
        fprintf(stderr, "%s: bad arguments (paths >= 2, steps even and >= 2, S0, K, sigma, T > 0)\n", argv[0]);
        return 2;
    }

    double *asian = malloc(npaths * sizeof(double));
    double *euro = malloc(npaths * sizeof(double));
    if (!asian || !euro) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    const double dt = T / nsteps;
    const double drift = (r - 0.5 * sigma * sigma) * dt;
    const double vol = sigma * sqrt(dt);
    const double disc = exp(-r * T);
    long above = 0; /* paths that end in the money */

#pragma omp parallel for reduction(+:above)
    for (long p = 0; p < npaths; p++) {
        uint64_t base = mix64(seed ^ mix64((uint64_t)p)) ;
        double logs = log(S0), sum = 0.0;
        for (int t = 0; t < nsteps; t += 2) {
            /* Box-Muller: two normals per pair of uniforms */
            double u1 = u01(base + (uint64_t)t), u2 = u01(base + (uint64_t)t + 1);
            double rad = sqrt(-2.0 * log(u1));
            double z1 = rad * cos(2.0 * M_PI * u2), z2 = rad * sin(2.0 * M_PI * u2);
            logs += drift + vol * z1;
            sum += exp(logs);
            logs += drift + vol * z2;
            sum += exp(logs);
        }
        double ST = exp(logs);
        double avg = sum / nsteps;
        asian[p] = disc * (avg > K ? avg - K : 0.0);
        euro[p] = disc * (ST > K ? ST - K : 0.0);
        if (ST > K)
            above++;
    }

    /* statistics, summed in path order */
    double sa = 0.0, sa2 = 0.0, se = 0.0, se2 = 0.0, amax = 0.0;
    for (long p = 0; p < npaths; p++) {
        sa += asian[p];
        sa2 += asian[p] * asian[p];
        se += euro[p];
        se2 += euro[p] * euro[p];
        if (asian[p] > amax)
            amax = asian[p];
    }
    double ma = sa / npaths, me = se / npaths;
    double sda = sqrt((sa2 / npaths - ma * ma) / (npaths - 1));
    double sde = sqrt((se2 / npaths - me * me) / (npaths - 1));

    double d1 = (log(S0 / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrt(T)), d2 = d1 - sigma * sqrt(T);
    double bs = S0 * norm_cdf(d1) - K * exp(-r * T) * norm_cdf(d2);

    printf("paths: %ld, steps: %d, seed: %llu\n", npaths, nsteps, (unsigned long long)seed);
    printf("S0 = %.2f  K = %.2f  r = %.4f  sigma = %.4f  T = %.2f\n", S0, K, r, sigma, T);
    printf("asian call (arithmetic avg)  = %.6f  +/- %.6f\n", ma, sda);
    printf("european call, monte carlo   = %.6f  +/- %.6f\n", me, sde);
    printf("european call, black-scholes = %.6f  (mc error %.2f std errs)\n", bs, (me - bs) / sde);
    printf("in the money at expiry: %ld of %ld (%.2f%%), largest asian payoff %.4f\n", above, npaths,
           100.0 * above / npaths, amax);
    free(asian);
    free(euro);
    return 0;
}
