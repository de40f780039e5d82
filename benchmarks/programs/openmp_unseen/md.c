/*
 * md.c - Lennard-Jones molecular dynamics (velocity Verlet, cell lists, cutoff) of a dense
 * liquid droplet surrounded by a dilute gas in a periodic box.
 *
 * usage: md <n-droplet> <n-gas> <steps> [cutoff]
 *
 * Reduced LJ units (sigma = epsilon = mass = 1). Particles inside the droplet have many
 * neighbours within the cutoff, gas particles almost none, so the force loop is unbalanced.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static double urand(void) /* xorshift64*, uniform in [0,1) */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double box;   /* box edge */
static int ncell;    /* cells per dimension */
static double rc2;

static int cell_of(double x)
{
    int c = (int)(x / box * ncell);
    if (c < 0)
        c = 0;
    if (c >= ncell)
        c = ncell - 1;
    return c;
}

static double wrap(double x)
{
    if (x >= box)
        x -= box;
    else if (x < 0.0)
        x += box;
    return x;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: %s <n-droplet> <n-gas> <steps> [cutoff]\n", argv[0]);
        fprintf(stderr, "  e.g. %s 12000 6000 30 2.5\n", argv[0]);
        return 2;
    }
    int ndrop = atoi(argv[1]);
    int ngas = atoi(argv[2]);
    int steps = atoi(argv[3]);
    double rc = argc == 5 ? atof(argv[4]) : 2.5;
    if (ndrop < 1 || ngas < 0 || steps < 1 || !(rc >= 1.0 && rc <= 5.0)) {
        fprintf(stderr, "%s: bad arguments (need n-droplet >= 1, n-gas >= 0, steps >= 1, 1 <= cutoff <= 5)\n",
                argv[0]);
        return 2;
    }
    int n = ndrop + ngas;
    const double dt = 0.002;
    rc2 = rc * rc;

    /* droplet: simple cubic lattice with spacing 1.1 cut to a sphere; box 3x the droplet diameter */
    double a = 1.1;
    int side = (int)ceil(cbrt(ndrop * 6.0 / M_PI)) + 1;
    double radius = cbrt(ndrop * 3.0 / (4.0 * M_PI)) * a;
    box = 6.0 * radius + 4.0 * rc;
    ncell = (int)(box / rc);
    if (ncell < 3) {
        fprintf(stderr, "box too small for the cutoff\n");
        return 2;
    }

    double *x = malloc(3 * sizeof(double) * n), *v = malloc(3 * sizeof(double) * n);
    double *f = malloc(3 * sizeof(double) * n), *epot = malloc(sizeof(double) * n);
    int *head = malloc(sizeof(int) * ncell * ncell * ncell), *next = malloc(sizeof(int) * n);
    int *cellidx = malloc(sizeof(int) * n);
    int *nbrs = malloc(sizeof(int) * n);
    if (!x || !v || !f || !epot || !head || !next || !cellidx || !nbrs) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    int k = 0;
    double c0 = box / 2.0;
    for (int i = -side; i <= side && k < ndrop; i++)
        for (int j = -side; j <= side && k < ndrop; j++)
            for (int l = -side; l <= side && k < ndrop; l++) {
                double px = i * a, py = j * a, pz = l * a;
                if (px * px + py * py + pz * pz > radius * radius)
                    continue;
                x[3 * k] = c0 + px;
                x[3 * k + 1] = c0 + py;
                x[3 * k + 2] = c0 + pz;
                k++;
            }
    ndrop = k; /* the sphere may hold slightly fewer lattice points than asked for */
    /* gas: random positions outside the droplet, at least 1.2 apart from the droplet surface */
    int tries = 0;
    while (k < ndrop + ngas) {
        double px = urand() * box, py = urand() * box, pz = urand() * box;
        double dx = px - c0, dy = py - c0, dz = pz - c0;
        if (++tries > 100 * n) {
            fprintf(stderr, "could not place the gas particles\n");
            return 1;
        }
        if (sqrt(dx * dx + dy * dy + dz * dz) < radius + 1.5)
            continue;
        int ok = 1;
        for (int q = ndrop; q < k && ok; q++) { /* keep gas particles apart (cheap for a dilute gas) */
            double ex = px - x[3 * q], ey = py - x[3 * q + 1], ez = pz - x[3 * q + 2];
            if (ex * ex + ey * ey + ez * ez < 1.0)
                ok = 0;
        }
        if (!ok)
            continue;
        x[3 * k] = px;
        x[3 * k + 1] = py;
        x[3 * k + 2] = pz;
        k++;
    }
    n = k;
    for (int i = 0; i < 3 * n; i++)
        v[i] = (urand() - 0.5) * (i / 3 < ndrop ? 0.8 : 3.0);
    /* remove centre-of-mass motion */
    for (int d = 0; d < 3; d++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += v[3 * i + d];
        for (int i = 0; i < n; i++)
            v[3 * i + d] -= s / n;
    }

    printf("particles: %d (droplet %d, gas %d), box %.3f, %d^3 cells, cutoff %.2f\n", n, ndrop, n - ndrop, box,
           ncell, rc);
    printf("%6s %14s %14s %14s %10s\n", "step", "kinetic", "potential", "total", "pairs");

    double ecut = 4.0 * (pow(rc, -12.0) - pow(rc, -6.0)); /* shift so the potential is zero at the cutoff */

    for (int step = 0; step <= steps; step++) {
        if (step > 0) {
            /* first half kick + drift */
#pragma omp parallel for schedule(static)
            for (int i = 0; i < n; i++)
                for (int d = 0; d < 3; d++) {
                    v[3 * i + d] += 0.5 * dt * f[3 * i + d];
                    x[3 * i + d] = wrap(x[3 * i + d] + dt * v[3 * i + d]);
                }
        }

        /* rebuild the cell lists (sequential, O(n)); particles are kept in index order per cell */
        int nc3 = ncell * ncell * ncell;
        for (int c = 0; c < nc3; c++)
            head[c] = -1;
        for (int i = n - 1; i >= 0; i--) {
            int c = (cell_of(x[3 * i]) * ncell + cell_of(x[3 * i + 1])) * ncell + cell_of(x[3 * i + 2]);
            cellidx[i] = c;
            next[i] = head[c];
            head[c] = i;
        }

        /* forces: each particle sums over the 27 surrounding cells (no Newton's third law, so
           every iteration writes only its own particle) */
        long pairs = 0;
#pragma omp parallel for reduction(+:pairs)
        for (int i = 0; i < n; i++) {
            double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
            double fx = 0.0, fy = 0.0, fz = 0.0, e = 0.0;
            int ci = cellidx[i];
            int cx = ci / (ncell * ncell), cy = (ci / ncell) % ncell, cz = ci % ncell;
            int cnt = 0;
            for (int ox = -1; ox <= 1; ox++)
                for (int oy = -1; oy <= 1; oy++)
                    for (int oz = -1; oz <= 1; oz++) {
                        int nx = (cx + ox + ncell) % ncell, ny = (cy + oy + ncell) % ncell,
                            nz = (cz + oz + ncell) % ncell;
                        for (int j = head[(nx * ncell + ny) * ncell + nz]; j >= 0; j = next[j]) {
                            if (j == i)
                                continue;
                            double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
                            dx -= box * nearbyint(dx / box);
                            dy -= box * nearbyint(dy / box);
                            dz -= box * nearbyint(dz / box);
                            double r2 = dx * dx + dy * dy + dz * dz;
                            if (r2 >= rc2)
                                continue;
                            double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
                            double fr = 24.0 * ir6 * (2.0 * ir6 - 1.0) * ir2;
                            fx += fr * dx;
                            fy += fr * dy;
                            fz += fr * dz;
                            e += 0.5 * (4.0 * ir6 * (ir6 - 1.0) - ecut);
                            cnt++;
                        }
                    }
            f[3 * i] = fx;
            f[3 * i + 1] = fy;
            f[3 * i + 2] = fz;
            epot[i] = e;
            nbrs[i] = cnt;
            pairs += cnt;
        }

        if (step > 0) {
            /* second half kick */
#pragma omp parallel for
            for (int i = 0; i < 3 * n; i++)
                v[i] += 0.5 * dt * f[i];
        }

        if (step % 5 == 0 || step == steps) {
            double ek = 0.0, ep = 0.0;
            for (int i = 0; i < n; i++) {
                ek += 0.5 * (v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
                ep += epot[i];
            }
            printf("%6d %14.6e %14.6e %14.6e %10ld\n", step, ek, ep, ek + ep, pairs / 2);
        }
    }

    int maxn = 0, lonely = 0;
    for (int i = 0; i < n; i++) {
        if (nbrs[i] > maxn)
            maxn = nbrs[i];
        lonely += nbrs[i] == 0;
    }
    printf("max neighbours %d, particles without neighbours %d\n", maxn, lonely);

    free(x);
    free(v);
    free(f);
    free(epot);
    free(head);
    free(next);
    free(cellidx);
    free(nbrs);
    return 0;
}
