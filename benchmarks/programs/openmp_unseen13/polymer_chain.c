/*
 * polymer_chain: microcanonical molecular dynamics of one bead-spring polymer.
 *
 * Kremer-Grest style model in Lennard-Jones units (mass 1, sigma 1, eps 1):
 *   - FENE bonds between neighbouring beads: U = -0.5 k R0^2 ln(1 - (r/R0)^2),
 *     k = 30, R0 = 1.5
 *   - Lennard-Jones between all pairs of beads, cut at r = 2.5
 * No thermostat, no solvent: plain velocity-Verlet integration.  Every
 * REPORT steps the radius of gyration, end-to-end distance, temperature and
 * total energy are printed.
 *
 * usage: polymer_chain CHAIN_FILE STEPS REPORT DT
 *   CHAIN_FILE  "beads N" then N lines "x y z vx vy vz"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <math.h>

#define FENE_K  30.0
#define FENE_R0 1.5
#define LJ_RC   2.5

typedef struct { double x, y, z; } Vec;

static int n;
static Vec *pos, *vel, *force;
static double *epot_bead;    /* potential energy attributed to each bead */

static void usage(void)
{
    fprintf(stderr, "usage: polymer_chain CHAIN_FILE STEPS REPORT DT   (STEPS, REPORT > 0 integers; 0 < DT <= 0.02)\n");
    exit(2);
}

/* Forces on every bead; each bead sums the contributions of all others. */
static void compute_forces(void)
{
    const double rc2 = LJ_RC * LJ_RC;
    const double r02 = FENE_R0 * FENE_R0;
    const double irc6 = 1.0 / (rc2 * rc2 * rc2);
    const double ecut = 4.0 * (irc6 * irc6 - irc6);

    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double dx = pos[i].x - pos[j].x;
            double dy = pos[i].y - pos[j].y;
            double dz = pos[i].z - pos[j].z;
            double r2 = dx * dx + dy * dy + dz * dz;
            double f = 0.0;            /* force divided by r */
            if (r2 < rc2) {
                double ir2 = 1.0 / r2;
                double ir6 = ir2 * ir2 * ir2;
                f += 24.0 * ir2 * ir6 * (2.0 * ir6 - 1.0);
                e += 0.5 * (4.0 * (ir6 * ir6 - ir6) - ecut);
            }
            if (j == i - 1 || j == i + 1) {
                double q = 1.0 - r2 / r02;
                if (q < 0.01)
                    q = 0.01;          /* keep an overstretched bond finite */
                f -= FENE_K / q;
                e += 0.5 * (-0.5 * FENE_K * r02 * log(q));
            }
            fx += f * dx;
            fy += f * dy;
            fz += f * dz;
        }
        force[i].x = fx;
        force[i].y = fy;
        force[i].z = fz;
        epot_bead[i] = e;
    }
}

static void report(long step)
{
    Vec c = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        c.x += pos[i].x;
        c.y += pos[i].y;
        c.z += pos[i].z;
    }
    c.x /= n; c.y /= n; c.z /= n;
    double rg2 = 0.0, ekin = 0.0, epot = 0.0;
    for (int i = 0; i < n; i++) {
        double dx = pos[i].x - c.x, dy = pos[i].y - c.y, dz = pos[i].z - c.z;
        rg2 += dx * dx + dy * dy + dz * dz;
        ekin += 0.5 * (vel[i].x * vel[i].x + vel[i].y * vel[i].y + vel[i].z * vel[i].z);
        epot += epot_bead[i];
    }
    double ex = pos[n - 1].x - pos[0].x, ey = pos[n - 1].y - pos[0].y, ez = pos[n - 1].z - pos[0].z;
    double temp = 2.0 * ekin / (3.0 * (n - 1));
    printf("%8ld  %8.3f  %8.3f  %8.3f  %10.2f\n", step, sqrt(rg2 / n),
           sqrt(ex * ex + ey * ey + ez * ez), temp, ekin + epot);
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage();
    char *end;
    errno = 0;
    long steps = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || steps <= 0)
        usage();
    long every = strtol(argv[3], &end, 10);
    if (errno || *end || end == argv[3] || every <= 0)
        usage();
    double dt = strtod(argv[4], &end);
    if (errno || *end || end == argv[4] || !(dt > 0.0 && dt <= 0.02))
        usage();

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "polymer_chain: cannot open %s\n", argv[1]);
        return 1;
    }
    if (fscanf(f, " beads %d", &n) != 1 || n < 2 || n > 100000) {
        fprintf(stderr, "polymer_chain: %s: bad header (expected 'beads N')\n", argv[1]);
        fclose(f);
        return 1;
    }
    pos = malloc(sizeof(Vec) * n);
    vel = malloc(sizeof(Vec) * n);
    force = malloc(sizeof(Vec) * n);
    epot_bead = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        if (fscanf(f, "%lf %lf %lf %lf %lf %lf", &pos[i].x, &pos[i].y, &pos[i].z,
                   &vel[i].x, &vel[i].y, &vel[i].z) != 6) {
            fprintf(stderr, "polymer_chain: %s: bad or missing record for bead %d\n", argv[1], i);
            fclose(f);
            return 1;
        }
    }
    fclose(f);
    for (int i = 0; i + 1 < n; i++) {
        double dx = pos[i + 1].x - pos[i].x, dy = pos[i + 1].y - pos[i].y, dz = pos[i + 1].z - pos[i].z;
        if (dx * dx + dy * dy + dz * dz >= FENE_R0 * FENE_R0) {
            fprintf(stderr, "polymer_chain: %s: bond %d-%d longer than the FENE limit\n", argv[1], i, i + 1);
            return 1;
        }
    }

    printf("polymer of %d beads, %ld steps of dt = %g\n", n, steps, dt);
    printf("    step        Rg       Ree      temp      energy\n");
    compute_forces();
    report(0);
    for (long s = 1; s <= steps; s++) {
        for (int i = 0; i < n; i++) {
            vel[i].x += 0.5 * dt * force[i].x;
            vel[i].y += 0.5 * dt * force[i].y;
            vel[i].z += 0.5 * dt * force[i].z;
            pos[i].x += dt * vel[i].x;
            pos[i].y += dt * vel[i].y;
            pos[i].z += dt * vel[i].z;
        }
        compute_forces();
        for (int i = 0; i < n; i++) {
            vel[i].x += 0.5 * dt * force[i].x;
            vel[i].y += 0.5 * dt * force[i].y;
            vel[i].z += 0.5 * dt * force[i].z;
        }
        if (s % every == 0)
            report(s);
    }

    free(pos);
    free(vel);
    free(force);
    free(epot_bead);
    return 0;
}
