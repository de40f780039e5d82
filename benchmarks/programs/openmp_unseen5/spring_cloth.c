/*
 * spring_cloth: mass-spring cloth falling onto a sphere.
 *
 *   usage: spring_cloth PARAMS.txt N STEPS
 *
 * The cloth is an N x N grid of particles, initially flat and horizontal,
 * connected by structural (4 neighbours), shear (4 diagonals) and bend
 * (2 cells away) springs.  A few particles are pinned in place.  Each time
 * step computes spring, damping and gravity forces per particle, advances
 * it with semi-implicit (symplectic) Euler, and pushes it out of the
 * sphere.  Positions and velocities are double buffered, so every particle
 * update reads only the previous state.
 *
 * PARAMS.txt holds "key value..." lines (see gen_spring_cloth.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double size, mass, height;
    double k[3];                 /* structural, shear, bend */
    double spring_damping, air_damping, dt;
    double g[3];
    double sc[3], sr;            /* sphere centre and radius */
    double friction;
    int npins;
    double pin[16][2];
} Params;

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "spring_cloth: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) die("out of memory", NULL);
    return p;
}

static void read_params(const char *path, Params *P)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open", path);
    char line[512];
    int lineno = 0;
    unsigned seen = 0;
    memset(P, 0, sizeof *P);
    const char *keys[] = {"size", "mass", "height", "k_struct", "k_shear", "k_bend",
                          "spring_damping", "air_damping", "dt", "gravity", "sphere", "friction"};
    const int nkeys = 12;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char key[64];
        double v[4];
        int n = sscanf(line, "%63s %lf %lf %lf %lf", key, &v[0], &v[1], &v[2], &v[3]);
        if (n <= 0) continue;
        int want = -1, id = -1;
        for (int i = 0; i < nkeys; i++)
            if (strcmp(key, keys[i]) == 0) id = i;
        if (strcmp(key, "pin") == 0) want = 2;
        else if (id == 9) want = 3;
        else if (id == 10) want = 4;
        else if (id >= 0) want = 1;
        if (want < 0 || n - 1 != want) {
            fprintf(stderr, "spring_cloth: %s:%d: malformed line\n", path, lineno);
            exit(1);
        }
        if (strcmp(key, "pin") == 0) {
            if (P->npins == 16) { fprintf(stderr, "spring_cloth: %s: too many pins\n", path); exit(1); }
            if (v[0] < 0 || v[0] > 1 || v[1] < 0 || v[1] > 1) {
                fprintf(stderr, "spring_cloth: %s:%d: pin coordinates must be in [0,1]\n", path, lineno);
                exit(1);
            }
            P->pin[P->npins][0] = v[0];
            P->pin[P->npins][1] = v[1];
            P->npins++;
            continue;
        }
        seen |= 1u << id;
        switch (id) {
        case 0: P->size = v[0]; break;
        case 1: P->mass = v[0]; break;
        case 2: P->height = v[0]; break;
        case 3: P->k[0] = v[0]; break;
        case 4: P->k[1] = v[0]; break;
        case 5: P->k[2] = v[0]; break;
        case 6: P->spring_damping = v[0]; break;
        case 7: P->air_damping = v[0]; break;
        case 8: P->dt = v[0]; break;
        case 9: memcpy(P->g, v, 3 * sizeof(double)); break;
        case 10: memcpy(P->sc, v, 3 * sizeof(double)); P->sr = v[3]; break;
        case 11: P->friction = v[0]; break;
        }
    }
    fclose(f);
    for (int i = 0; i < nkeys; i++)
        if (!(seen & (1u << i))) {
            fprintf(stderr, "spring_cloth: %s: missing key '%s'\n", path, keys[i]);
            exit(1);
        }
    if (P->size <= 0 || P->mass <= 0 || P->dt <= 0 || P->sr <= 0 ||
        P->friction < 0 || P->friction > 1)
        die("parameter out of range", path);
}

/* neighbour offsets: 4 structural, 4 shear, 4 bend */
static const int NB[12][3] = {
    {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
    {1, 1, 1}, {1, -1, 1}, {-1, 1, 1}, {-1, -1, 1},
    {2, 0, 2}, {-2, 0, 2}, {0, 2, 2}, {0, -2, 2}
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s PARAMS.txt N STEPS\n", argv[0]);
        return 2;
    }
    char *e1, *e2;
    long N = strtol(argv[2], &e1, 10), steps = strtol(argv[3], &e2, 10);
    if (*e1 || *e2 || N < 3 || N > 4000 || steps < 0) {
        fprintf(stderr, "usage: %s PARAMS.txt N STEPS   (3 <= N <= 4000, STEPS >= 0)\n", argv[0]);
        return 2;
    }
    Params P;
    read_params(argv[1], &P);

    const long np = N * N;
    const double h = P.size / (N - 1);
    const double rest[3] = {h, h * sqrt(2.0), 2.0 * h};
    const double m = P.mass / np, inv_m = 1.0 / m, dt = P.dt;
    const double eps = 0.25 * h;           /* contact skin */

    double *x = xmalloc(sizeof(double) * np), *y = xmalloc(sizeof(double) * np), *z = xmalloc(sizeof(double) * np);
    double *vx = xmalloc(sizeof(double) * np), *vy = xmalloc(sizeof(double) * np), *vz = xmalloc(sizeof(double) * np);
    double *nx = xmalloc(sizeof(double) * np), *ny = xmalloc(sizeof(double) * np), *nz = xmalloc(sizeof(double) * np);
    double *nvx = xmalloc(sizeof(double) * np), *nvy = xmalloc(sizeof(double) * np), *nvz = xmalloc(sizeof(double) * np);
    char *pinned = calloc(np, 1);
    if (!pinned) die("out of memory", NULL);

    for (long i = 0; i < N; i++)
        for (long j = 0; j < N; j++) {
            long p = i * N + j;
            x[p] = -0.5 * P.size + j * h;
            z[p] = -0.5 * P.size + i * h;
            y[p] = P.height;
            vx[p] = vy[p] = vz[p] = 0.0;
        }
    for (int k = 0; k < P.npins; k++) {
        long i = lround(P.pin[k][0] * (N - 1)), j = lround(P.pin[k][1] * (N - 1));
        pinned[i * N + j] = 1;
    }

    for (long s = 0; s < steps; s++) {
        #pragma omp parallel for
        for (long i = 0; i < N; i++) {
            for (long j = 0; j < N; j++) {
                long p = i * N + j;
                if (pinned[p]) {
                    nx[p] = x[p]; ny[p] = y[p]; nz[p] = z[p];
                    nvx[p] = nvy[p] = nvz[p] = 0.0;
                    continue;
                }
                double px = x[p], py = y[p], pz = z[p];
                double ux = vx[p], uy = vy[p], uz = vz[p];
                double fx = m * (P.g[0] - P.air_damping * ux);
                double fy = m * (P.g[1] - P.air_damping * uy);
                double fz = m * (P.g[2] - P.air_damping * uz);
                for (int k = 0; k < 12; k++) {
                    long qi = i + NB[k][0], qj = j + NB[k][1];
                    if (qi < 0 || qi >= N || qj < 0 || qj >= N) continue;
                    long q = qi * N + qj;
                    double dx = x[q] - px, dy = y[q] - py, dz = z[q] - pz;
                    double len = sqrt(dx * dx + dy * dy + dz * dz);
                    if (len < 1e-12) continue;
                    double inv = 1.0 / len;
                    dx *= inv; dy *= inv; dz *= inv;
                    double rel = (vx[q] - ux) * dx + (vy[q] - uy) * dy + (vz[q] - uz) * dz;
                    double t = P.k[NB[k][2]] * (len - rest[NB[k][2]]) + P.spring_damping * rel;
                    fx += t * dx; fy += t * dy; fz += t * dz;
                }
                ux += dt * fx * inv_m;
                uy += dt * fy * inv_m;
                uz += dt * fz * inv_m;
                px += dt * ux; py += dt * uy; pz += dt * uz;
                /* sphere collision: project to the surface, kill the inward
                   normal velocity and part of the tangential one */
                double cx = px - P.sc[0], cy = py - P.sc[1], cz = pz - P.sc[2];
                double d = sqrt(cx * cx + cy * cy + cz * cz);
                if (d < P.sr + eps && d > 0.0) {
                    double inv = 1.0 / d;
                    cx *= inv; cy *= inv; cz *= inv;
                    px = P.sc[0] + (P.sr + eps) * cx;
                    py = P.sc[1] + (P.sr + eps) * cy;
                    pz = P.sc[2] + (P.sr + eps) * cz;
                    double vn = ux * cx + uy * cy + uz * cz;
                    if (vn < 0.0) { ux -= vn * cx; uy -= vn * cy; uz -= vn * cz; }
                    vn = ux * cx + uy * cy + uz * cz;
                    double tx = ux - vn * cx, ty = uy - vn * cy, tz = uz - vn * cz;
                    ux -= P.friction * tx; uy -= P.friction * ty; uz -= P.friction * tz;
                }
                nx[p] = px; ny[p] = py; nz[p] = pz;
                nvx[p] = ux; nvy[p] = uy; nvz[p] = uz;
            }
        }
        double *t;
        t = x; x = nx; nx = t;  t = y; y = ny; ny = t;  t = z; z = nz; nz = t;
        t = vx; vx = nvx; nvx = t;  t = vy; vy = nvy; nvy = t;  t = vz; vz = nvz; nvz = t;
    }

    /* per-row spring strain and kinetic energy, combined in row order */
    double *row_strain = xmalloc(sizeof(double) * N), *row_max = xmalloc(sizeof(double) * N);
    double *row_ke = xmalloc(sizeof(double) * N);
    long *row_springs = xmalloc(sizeof(long) * N);
    #pragma omp parallel for
    for (long i = 0; i < N; i++) {
        double sum = 0.0, mx = 0.0, ke = 0.0;
        long cnt = 0;
        for (long j = 0; j < N; j++) {
            long p = i * N + j;
            ke += 0.5 * m * (vx[p] * vx[p] + vy[p] * vy[p] + vz[p] * vz[p]);
            for (int k = 0; k < 12; k++) {
                if (NB[k][0] < 0 || (NB[k][0] == 0 && NB[k][1] < 0)) continue;  /* count each spring once */
                long qi = i + NB[k][0], qj = j + NB[k][1];
                if (qi < 0 || qi >= N || qj < 0 || qj >= N) continue;
                long q = qi * N + qj;
                double dx = x[q] - x[p], dy = y[q] - y[p], dz = z[q] - z[p];
                double st = fabs(sqrt(dx * dx + dy * dy + dz * dz) - rest[NB[k][2]]) / rest[NB[k][2]];
                sum += st;
                if (st > mx) mx = st;
                cnt++;
            }
        }
        row_strain[i] = sum; row_max[i] = mx; row_ke[i] = ke; row_springs[i] = cnt;
    }
    double strain = 0.0, max_strain = 0.0, ke = 0.0;
    long nsprings = 0;
    for (long i = 0; i < N; i++) {
        strain += row_strain[i];
        nsprings += row_springs[i];
        ke += row_ke[i];
        if (row_max[i] > max_strain) max_strain = row_max[i];
    }

    double bmin[3] = {x[0], y[0], z[0]}, bmax[3] = {x[0], y[0], z[0]};
    long lowest = 0, touching = 0, nan_count = 0;
    for (long p = 0; p < np; p++) {
        if (isnan(x[p]) || isnan(y[p]) || isnan(z[p])) { nan_count++; continue; }
        if (x[p] < bmin[0]) bmin[0] = x[p];
        if (y[p] < bmin[1]) bmin[1] = y[p];
        if (z[p] < bmin[2]) bmin[2] = z[p];
        if (x[p] > bmax[0]) bmax[0] = x[p];
        if (y[p] > bmax[1]) bmax[1] = y[p];
        if (z[p] > bmax[2]) bmax[2] = z[p];
        if (y[p] < y[lowest]) lowest = p;
        double cx = x[p] - P.sc[0], cy = y[p] - P.sc[1], cz = z[p] - P.sc[2];
        if (sqrt(cx * cx + cy * cy + cz * cz) < P.sr + 1.5 * eps) touching++;
    }

    printf("cloth %ld x %ld (%ld particles, %ld springs), %d pinned, %ld steps of %g s (t = %.4f s)\n",
           N, N, np, nsprings, P.npins, steps, dt, steps * dt);
    printf("bounding box: x [%.4f, %.4f]  y [%.4f, %.4f]  z [%.4f, %.4f]\n",
           bmin[0], bmax[0], bmin[1], bmax[1], bmin[2], bmax[2]);
    printf("lowest point: particle (%ld, %ld) at (%.4f, %.4f, %.4f)\n",
           lowest / N, lowest % N, x[lowest], y[lowest], z[lowest]);
    printf("mean spring strain: %.4f   max strain: %.4f\n", nsprings ? strain / nsprings : 0.0, max_strain);
    printf("kinetic energy: %.5f J\n", ke);
    printf("particles touching the sphere: %ld (%.2f%%)\n", touching, 100.0 * touching / np);
    if (nan_count) printf("warning: %ld particles have invalid positions (unstable time step?)\n", nan_count);
    return 0;
}
