/* ising_mc: 2-D Ising model (J = 1, periodic L x L lattice), checkerboard Metropolis sweeps over a ladder of temperatures.
 * Category: Monte Carlo (uniform, compute-light; three short parallel loops per sweep, thousands of regions in all).
 * Sizes: MIRTUNE_SIZE=1 -> L=192, 10 temperatures x 80 sweeps; MIRTUNE_SIZE=2 -> L=320, 12 temperatures x 90 sweeps. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <math.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define L 320
#define NTEMP 12
#define SWEEPS 90
#else
#define L 192
#define NTEMP 10
#define SWEEPS 80
#endif
#define THERM (SWEEPS / 4) /* sweeps discarded before measuring at each temperature */

/* Counter-based random numbers: a stateless 64-bit mix of (site, sweep, colour, temperature). */
static inline uint32_t site_random(uint64_t site, uint64_t sweep, uint64_t colour, uint64_t tidx)
{
    uint64_t z = site + 0x9E3779B97F4A7C15ULL * (1 + ((tidx * SWEEPS + sweep) * 2 + colour));
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (uint32_t)(z >> 32);
}

int main(void)
{
    signed char *s = malloc((size_t)L * L);
    long long *sum_absm = malloc(sizeof(long long) * NTEMP);
    long long *sum_e = malloc(sizeof(long long) * NTEMP);
    long long *sum_m2 = malloc(sizeof(long long) * NTEMP);
    if (!s || !sum_absm || !sum_e || !sum_m2)
        return 1;

    /* Mostly-up start (about 1 spin in 16 down); the temperature ladder then heats the same lattice from cold to hot. */
    uint64_t lcg = 12345;
    for (long i = 0; i < (long)L * L; i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        s[i] = (signed char)(((lcg >> 40) % 16) == 0 ? -1 : 1);
    }

    for (int t = 0; t < NTEMP; t++) {
        const double temp = 1.6 + 1.6 * (double)t / (double)(NTEMP - 1);
        /* Acceptance thresholds for dE = 4 and dE = 8, as 32-bit integers. */
        const uint32_t thr4 = (uint32_t)(exp(-4.0 / temp) * 4294967295.0);
        const uint32_t thr8 = (uint32_t)(exp(-8.0 / temp) * 4294967295.0);
        long long acc_absm = 0, acc_e = 0, acc_m2 = 0;

        for (int sweep = 0; sweep < SWEEPS; sweep++) {
            for (int colour = 0; colour < 2; colour++) {
#pragma omp parallel for
                for (int i = 0; i < L; i++) {
                    const int up = (i == 0) ? L - 1 : i - 1;
                    const int dn = (i == L - 1) ? 0 : i + 1;
                    for (int j = (i + colour) & 1; j < L; j += 2) {
                        const int lf = (j == 0) ? L - 1 : j - 1;
                        const int rt = (j == L - 1) ? 0 : j + 1;
                        const int si = s[i * L + j];
                        const int nb = s[up * L + j] + s[dn * L + j] + s[i * L + lf] + s[i * L + rt];
                        const int de = 2 * si * nb;
                        if (de <= 0) {
                            s[i * L + j] = (signed char)(-si);
                        } else {
                            const uint32_t r = site_random((uint64_t)(i * L + j), (uint64_t)sweep,
                                                           (uint64_t)colour, (uint64_t)t);
                            if (r < (de == 4 ? thr4 : thr8))
                                s[i * L + j] = (signed char)(-si);
                        }
                    }
                }
            }

            long long m = 0, e = 0;
#pragma omp parallel for reduction(+:m, e)
            for (int i = 0; i < L; i++) {
                const int dn = (i == L - 1) ? 0 : i + 1;
                for (int j = 0; j < L; j++) {
                    const int rt = (j == L - 1) ? 0 : j + 1;
                    const int si = s[i * L + j];
                    m += si;
                    e -= si * (s[i * L + rt] + s[dn * L + j]);
                }
            }
            if (sweep >= THERM) {
                acc_absm += (m < 0) ? -m : m;
                acc_e += e;
                acc_m2 += m * m;
            }
        }
        sum_absm[t] = acc_absm;
        sum_e[t] = acc_e;
        sum_m2[t] = acc_m2;
    }

    /* Sequential reduction of the per-temperature averages (<|m|>, <e>, susceptibility-like <m^2>). */
    const double nsite = (double)L * L, nmeas = (double)(SWEEPS - THERM);
    double check = 0.0;
    for (int t = 0; t < NTEMP; t++) {
        const double absm = (double)sum_absm[t] / (nmeas * nsite);
        const double en = (double)sum_e[t] / (nmeas * nsite);
        const double m2 = (double)sum_m2[t] / (nmeas * nsite * nsite);
        check += (double)(t + 1) * absm - en + 10.0 * m2;
    }
    printf("checksum: %.12e\n", check);
    free(s); free(sum_absm); free(sum_e); free(sum_m2);
    return 0;
}
