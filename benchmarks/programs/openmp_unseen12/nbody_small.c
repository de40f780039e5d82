/*
 * nbody_small: direct-summation N-body integration of a small cluster with
 * Plummer-softened gravity (G = 1) and a kick-drift-kick leapfrog.
 *
 * usage: nbody_small CLUSTER.txt STEPS DT
 *
 * Prints the energy drift, the centre of mass and the positions of a few
 * tracked bodies at ten checkpoints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOFT 0.05
#define SOFT2 (SOFT * SOFT)

typedef struct {
    int n;
    double *m, *x, *y, *z, *vx, *vy, *vz, *ax, *ay, *az;
} System;

_Noreturn static void fail(const char *path, const char *msg)
{
    fprintf(stderr, "nbody_small: %s: %s\n", path, msg);
    exit(1);
}

/* next non-comment line into buf; returns 0 at end of file */
static int next_line(FILE *f, char *buf, size_t len)
{
    while (fgets(buf, (int)len, f)) {
        char *p = buf;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        return 1;
    }
    return 0;
}

static void load(const char *path, System *s)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail(path, "cannot open file");
    char line[512];
    if (!next_line(f, line, sizeof line) || sscanf(line, "%d", &s->n) != 1 || s->n < 2 || s->n > 100000)
        fail(path, "missing or bad body count");
    int n = s->n;
    double **arrs[] = {&s->m, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz, &s->ax, &s->ay, &s->az};
    for (int k = 0; k < 10; k++) {
        *arrs[k] = calloc((size_t)n, sizeof(double));
        if (!*arrs[k])
            fail(path, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if (!next_line(f, line, sizeof line))
            fail(path, "fewer bodies than announced");
        if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf", &s->m[i], &s->x[i], &s->y[i], &s->z[i], &s->vx[i],
                   &s->vy[i], &s->vz[i]) != 7)
            fail(path, "malformed body line");
        if (!(s->m[i] > 0.0) || !isfinite(s->x[i] + s->y[i] + s->z[i] + s->vx[i] + s->vy[i] + s->vz[i]))
            fail(path, "body with non-positive mass or non-finite value");
    }
    if (next_line(f, line, sizeof line))
        fail(path, "more bodies than announced");
    fclose(f);
}

/* Acceleration of every body from all others, summed in index order. */
static void accelerations(System *s)
{
    const int n = s->n;
    const double *m = s->m, *x = s->x, *y = s->y, *z = s->z;
    double *ax = s->ax, *ay = s->ay, *az = s->az;
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double sx = 0.0, sy = 0.0, sz = 0.0;
        const double xi = x[i], yi = y[i], zi = z[i];
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            double r2 = dx * dx + dy * dy + dz * dz + SOFT2;
            double inv = 1.0 / sqrt(r2);
            double f = m[j] * inv * inv * inv;
            sx += f * dx;
            sy += f * dy;
            sz += f * dz;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}

static double energy(const System *s)
{
    double kin = 0.0, pot = 0.0;
    for (int i = 0; i < s->n; i++) {
        kin += 0.5 * s->m[i] * (s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i]);
        for (int j = i + 1; j < s->n; j++) {
            double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
            pot -= s->m[i] * s->m[j] / sqrt(dx * dx + dy * dy + dz * dz + SOFT2);
        }
    }
    return kin + pot;
}

static void centre_of_mass(const System *s, double c[3])
{
    double mt = 0.0;
    c[0] = c[1] = c[2] = 0.0;
    for (int i = 0; i < s->n; i++) {
        mt += s->m[i];
        c[0] += s->m[i] * s->x[i];
        c[1] += s->m[i] * s->y[i];
        c[2] += s->m[i] * s->z[i];
    }
    c[0] /= mt;
    c[1] /= mt;
    c[2] /= mt;
}

int main(int argc, char **argv)
{
    char *e1 = NULL, *e2 = NULL;
    long steps = argc == 4 ? strtol(argv[2], &e1, 10) : 0;
    double dt = argc == 4 ? strtod(argv[3], &e2) : 0.0;
    if (argc != 4 || *e1 != '\0' || *e2 != '\0' || steps < 10 || steps > 100000000L || !(dt > 0.0) || dt > 1.0) {
        fprintf(stderr, "usage: %s CLUSTER.txt STEPS DT   (STEPS >= 10, 0 < DT <= 1)\n", argv[0]);
        return 2;
    }
    System s;
    load(argv[1], &s);
    const int n = s.n;
    const int tracked[4] = {0, 1, n / 2, n - 1};

    const double e0 = energy(&s);
    double com[3];
    centre_of_mass(&s, com);
    printf("bodies: %d  steps: %ld  dt: %g  softening: %g\n", n, steps, dt, SOFT);
    printf("initial energy: %.9f  centre of mass: (%.6f, %.6f, %.6f)\n", e0, com[0], com[1], com[2]);

    accelerations(&s);
    const long every = steps / 10;
    for (long step = 1; step <= steps; step++) {
        for (int i = 0; i < n; i++) { /* kick + drift */
            s.vx[i] += 0.5 * dt * s.ax[i];
            s.vy[i] += 0.5 * dt * s.ay[i];
            s.vz[i] += 0.5 * dt * s.az[i];
            s.x[i] += dt * s.vx[i];
            s.y[i] += dt * s.vy[i];
            s.z[i] += dt * s.vz[i];
        }
        accelerations(&s);
        for (int i = 0; i < n; i++) { /* kick */
            s.vx[i] += 0.5 * dt * s.ax[i];
            s.vy[i] += 0.5 * dt * s.ay[i];
            s.vz[i] += 0.5 * dt * s.az[i];
        }
        if (step % every == 0 || step == steps) {
            double en = energy(&s);
            centre_of_mass(&s, com);
            printf("step %7ld  t=%9.4f  dE/E=%+.3e  com=(%.6f, %.6f, %.6f)\n", step, step * dt, (en - e0) / fabs(e0),
                   com[0], com[1], com[2]);
            for (int k = 0; k < 4; k++) {
                int i = tracked[k];
                printf("    body %3d at (%10.5f, %10.5f, %10.5f)\n", i, s.x[i], s.y[i], s.z[i]);
            }
        }
    }
    return 0;
}
