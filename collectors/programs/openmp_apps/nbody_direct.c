/* nbody_direct: direct-summation gravitational N-body (G = 1, Plummer softening) on a Plummer sphere, kick-drift-kick leapfrog with energy bookkeeping.
 * Category: particle method (uniform, compute-bound O(n^2) force loop with sqrt and division, plus two cheap O(n) kick/drift loops per step).
 * Sizes: MIRTUNE_SIZE=1 -> n=2000 bodies, 10 steps; MIRTUNE_SIZE=2 -> n=4000 bodies, 10 steps. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NB 4000
#define STEPS 10
#else
#define NB 2000
#define STEPS 10
#endif
#define EPS2 (0.02 * 0.02)
#define DT 0.002

static unsigned long long lcg_state = 0x2545F4914F6CDD1DULL;

static double uniform01(void) /* 53-bit uniform in [0, 1) from a 64-bit LCG */
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

static void random_direction(double r, double *x, double *y, double *z)
{
    const double pi = 3.14159265358979323846;
    const double ct = 2.0 * uniform01() - 1.0;
    const double st = sqrt(1.0 - ct * ct);
    const double ph = 2.0 * pi * uniform01();
    *x = r * st * cos(ph);
    *y = r * st * sin(ph);
    *z = r * ct;
}

/* Accelerations and potentials: every body sums over all bodies (the self term adds no force). */
static void compute_forces(const double *px, const double *py, const double *pz, const double *mass,
                           double *ax, double *ay, double *az, double *pot)
{
#pragma omp parallel for
    for (int i = 0; i < NB; i++) {
        const double xi = px[i], yi = py[i], zi = pz[i];
        double sx = 0.0, sy = 0.0, sz = 0.0, sp = 0.0;
        for (int j = 0; j < NB; j++) {
            const double dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;
            const double r2 = dx * dx + dy * dy + dz * dz + EPS2;
            const double rinv = 1.0 / sqrt(r2);
            const double mr3 = mass[j] * rinv * rinv * rinv;
            sx += mr3 * dx;
            sy += mr3 * dy;
            sz += mr3 * dz;
            sp -= mass[j] * rinv;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
        pot[i] = sp + mass[i] / sqrt(EPS2); /* remove the softened self-interaction */
    }
}

/* Sequential energy bookkeeping (kinetic + half the sum of potentials). */
static double total_energy(const double *vx, const double *vy, const double *vz, const double *mass, const double *pot)
{
    double ekin = 0.0, epot = 0.0;
    for (int i = 0; i < NB; i++) {
        ekin += 0.5 * mass[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
        epot += 0.5 * mass[i] * pot[i];
    }
    return ekin + epot;
}

int main(void)
{
    double *px = malloc(sizeof(double) * NB), *py = malloc(sizeof(double) * NB), *pz = malloc(sizeof(double) * NB);
    double *vx = malloc(sizeof(double) * NB), *vy = malloc(sizeof(double) * NB), *vz = malloc(sizeof(double) * NB);
    double *ax = malloc(sizeof(double) * NB), *ay = malloc(sizeof(double) * NB), *az = malloc(sizeof(double) * NB);
    double *mass = malloc(sizeof(double) * NB), *pot = malloc(sizeof(double) * NB);
    if (!px || !py || !pz || !vx || !vy || !vz || !ax || !ay || !az || !mass || !pot)
        return 1;

    /* Plummer sphere (Aarseth, Henon & Wielen 1974), equal masses, total mass 1, radii cut at 10 scale lengths. */
    for (int i = 0; i < NB; i++) {
        mass[i] = 1.0 / NB;
        double r;
        do {
            const double xm = 0.0001 + 0.9998 * uniform01();
            r = 1.0 / sqrt(pow(xm, -2.0 / 3.0) - 1.0);
        } while (r > 10.0);
        random_direction(r, &px[i], &py[i], &pz[i]);
        double q, g;
        do { /* rejection sampling of q = v / v_escape from g(q) = q^2 (1 - q^2)^3.5 */
            q = uniform01();
            g = 0.1 * uniform01();
        } while (g > q * q * pow(1.0 - q * q, 3.5));
        const double vesc = sqrt(2.0) * pow(1.0 + r * r, -0.25);
        random_direction(q * vesc, &vx[i], &vy[i], &vz[i]);
    }

    double energy[STEPS + 1];
    compute_forces(px, py, pz, mass, ax, ay, az, pot);
    energy[0] = total_energy(vx, vy, vz, mass, pot);

    for (int step = 1; step <= STEPS; step++) {
        /* Kick-drift-kick leapfrog: half kick and drift, new forces, second half kick. */
#pragma omp parallel for
        for (int i = 0; i < NB; i++) {
            vx[i] += 0.5 * DT * ax[i];
            vy[i] += 0.5 * DT * ay[i];
            vz[i] += 0.5 * DT * az[i];
            px[i] += DT * vx[i];
            py[i] += DT * vy[i];
            pz[i] += DT * vz[i];
        }

        compute_forces(px, py, pz, mass, ax, ay, az, pot);

#pragma omp parallel for
        for (int i = 0; i < NB; i++) {
            vx[i] += 0.5 * DT * ax[i];
            vy[i] += 0.5 * DT * ay[i];
            vz[i] += 0.5 * DT * az[i];
        }
        energy[step] = total_energy(vx, vy, vz, mass, pot);
    }

    double check = 0.0;
    for (int i = 0; i < NB; i++)
        check += (px[i] + 2.0 * py[i] + 3.0 * pz[i]) * (double)(1 + i % 7) + vx[i] - vy[i] + vz[i];
    for (int s = 0; s <= STEPS; s++)
        check += energy[s];
    printf("checksum: %.12e\n", check);
    free(px); free(py); free(pz); free(vx); free(vy); free(vz);
    free(ax); free(ay); free(az); free(mass); free(pot);
    return 0;
}
