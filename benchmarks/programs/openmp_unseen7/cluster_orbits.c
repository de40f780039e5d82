/*
 * cluster_orbits.c - direct-summation N-body integration of a small star
 * cluster with a kick-drift-kick leapfrog.
 *
 * Units are N-body units (G = 1).  The cluster file gives the number of
 * bodies, the Plummer softening length and one line per body:
 *
 *     # comment
 *     bodies N
 *     softening EPS
 *     m x y z vx vy vz        (N lines)
 *
 * Reports the relative energy drift (final and worst seen at the periodic
 * checks), the escapers (positive energy and far from the centre) and the
 * Lagrangian radii at the start and at the end.
 *
 * usage: cluster_orbits CLUSTER_FILE STEPS DT
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_BODIES 100000
#define ENERGY_CHECKS 200

typedef struct {
    int n;
    double eps2;
    double *m;
    double *x, *y, *z;
    double *vx, *vy, *vz;
    double *ax, *ay, *az;
} cluster_t;

static _Noreturn void bad_file(const char *path, const char *what)
{
    fprintf(stderr, "cluster_orbits: %s: %s\n", path, what);
    exit(1);
}

/* next non-comment, non-blank line; 0 at end of file */
static int next_line(FILE *f, char *buf, int size)
{
    while (fgets(buf, size, f)) {
        char *s = buf;
        while (isspace((unsigned char)*s))
            s++;
        if (*s != '\0' && *s != '#')
            return 1;
    }
    return 0;
}

static void read_cluster(const char *path, cluster_t *c)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cluster_orbits: cannot open %s\n", path);
        exit(1);
    }
    char line[512];
    int n;
    double eps;
    if (!next_line(f, line, sizeof line) || sscanf(line, " bodies %d", &n) != 1 || n < 2 ||
        n > MAX_BODIES)
        bad_file(path, "expected 'bodies N' (2 <= N)");
    if (!next_line(f, line, sizeof line) || sscanf(line, " softening %lf", &eps) != 1 ||
        eps < 0.0)
        bad_file(path, "expected 'softening EPS' (EPS >= 0)");
    c->n = n;
    c->eps2 = eps * eps;
    double **arrs[10] = {&c->m, &c->x, &c->y, &c->z, &c->vx, &c->vy, &c->vz,
                         &c->ax, &c->ay, &c->az};
    for (int k = 0; k < 10; k++) {
        *arrs[k] = calloc((size_t)n, sizeof(double));
        if (!*arrs[k]) {
            fprintf(stderr, "cluster_orbits: out of memory\n");
            exit(1);
        }
    }
    for (int i = 0; i < n; i++) {
        if (!next_line(f, line, sizeof line))
            bad_file(path, "fewer body lines than announced");
        if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf", &c->m[i], &c->x[i], &c->y[i],
                   &c->z[i], &c->vx[i], &c->vy[i], &c->vz[i]) != 7 ||
            !(c->m[i] > 0.0))
            bad_file(path, "malformed body line (need m>0 x y z vx vy vz)");
    }
    if (next_line(f, line, sizeof line))
        bad_file(path, "more body lines than announced");
    fclose(f);
}

/* potential at body i from all others (sequential, fixed order) */
static double potential_at(const cluster_t *c, int i)
{
    double phi = 0.0;
    for (int j = 0; j < c->n; j++) {
        if (j == i)
            continue;
        double dx = c->x[j] - c->x[i], dy = c->y[j] - c->y[i], dz = c->z[j] - c->z[i];
        phi -= c->m[j] / sqrt(dx * dx + dy * dy + dz * dz + c->eps2);
    }
    return phi;
}

static void energy(const cluster_t *c, double *ekin, double *epot)
{
    double k = 0.0, w = 0.0;
    for (int i = 0; i < c->n; i++) {
        k += 0.5 * c->m[i] * (c->vx[i] * c->vx[i] + c->vy[i] * c->vy[i] + c->vz[i] * c->vz[i]);
        for (int j = i + 1; j < c->n; j++) {
            double dx = c->x[j] - c->x[i], dy = c->y[j] - c->y[i], dz = c->z[j] - c->z[i];
            w -= c->m[i] * c->m[j] / sqrt(dx * dx + dy * dy + dz * dz + c->eps2);
        }
    }
    *ekin = k;
    *epot = w;
}

static void centre_of_mass(const cluster_t *c, double r[3], double v[3])
{
    double mt = 0.0;
    r[0] = r[1] = r[2] = v[0] = v[1] = v[2] = 0.0;
    for (int i = 0; i < c->n; i++) {
        mt += c->m[i];
        r[0] += c->m[i] * c->x[i]; r[1] += c->m[i] * c->y[i]; r[2] += c->m[i] * c->z[i];
        v[0] += c->m[i] * c->vx[i]; v[1] += c->m[i] * c->vy[i]; v[2] += c->m[i] * c->vz[i];
    }
    for (int k = 0; k < 3; k++) {
        r[k] /= mt;
        v[k] /= mt;
    }
}

typedef struct {
    double r, m;
} rm_t;

static int cmp_rm(const void *a, const void *b)
{
    const rm_t *p = a, *q = b;
    return (p->r > q->r) - (p->r < q->r);
}

/* Lagrangian radii (10%, 50%, 90% of the mass) about the centre of mass */
static void lagrangian_radii(const cluster_t *c, double out[3])
{
    double com[3], vcom[3];
    centre_of_mass(c, com, vcom);
    rm_t *a = malloc((size_t)c->n * sizeof(rm_t));
    double mt = 0.0;
    for (int i = 0; i < c->n; i++) {
        double dx = c->x[i] - com[0], dy = c->y[i] - com[1], dz = c->z[i] - com[2];
        a[i].r = sqrt(dx * dx + dy * dy + dz * dz);
        a[i].m = c->m[i];
        mt += c->m[i];
    }
    qsort(a, (size_t)c->n, sizeof(rm_t), cmp_rm);
    const double frac[3] = {0.1, 0.5, 0.9};
    for (int k = 0; k < 3; k++) {
        double acc = 0.0;
        out[k] = a[c->n - 1].r;
        for (int i = 0; i < c->n; i++) {
            acc += a[i].m;
            if (acc >= frac[k] * mt) {
                out[k] = a[i].r;
                break;
            }
        }
    }
    free(a);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s CLUSTER_FILE STEPS DT\n", argv[0]);
        return 2;
    }
    char *end;
    long steps = strtol(argv[2], &end, 10);
    if (*end != '\0' || steps < 1) {
        fprintf(stderr, "usage: %s CLUSTER_FILE STEPS DT  (STEPS >= 1)\n", argv[0]);
        return 2;
    }
    double dt = strtod(argv[3], &end);
    if (*end != '\0' || !(dt > 0.0) || dt > 1.0) {
        fprintf(stderr, "usage: %s CLUSTER_FILE STEPS DT  (0 < DT <= 1)\n", argv[0]);
        return 2;
    }

    cluster_t c;
    read_cluster(argv[1], &c);
    const int n = c.n;
    const double eps2 = c.eps2, hdt = 0.5 * dt;
    double *m = c.m, *x = c.x, *y = c.y, *z = c.z;
    double *vx = c.vx, *vy = c.vy, *vz = c.vz, *ax = c.ax, *ay = c.ay, *az = c.az;

    double k0, w0;
    energy(&c, &k0, &w0);
    const double e0 = k0 + w0;
    double lr0[3];
    lagrangian_radii(&c, lr0);

    /* initial accelerations */
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double sx = 0.0, sy = 0.0, sz = 0.0;
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double f = m[j] / (r2 * sqrt(r2));
            sx += f * dx; sy += f * dy; sz += f * dz;
        }
        ax[i] = sx; ay[i] = sy; az[i] = sz;
    }

    long check_every = steps / ENERGY_CHECKS;
    if (check_every < 1)
        check_every = 1;
    double worst = 0.0, worst_t = 0.0;

    for (long s = 1; s <= steps; s++) {
        /* half kick + drift */
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            vx[i] += hdt * ax[i]; vy[i] += hdt * ay[i]; vz[i] += hdt * az[i];
            x[i] += dt * vx[i]; y[i] += dt * vy[i]; z[i] += dt * vz[i];
        }
        /* new forces + second half kick */
#pragma omp parallel for
        for (int i = 0; i < n; i++) {
            double sx = 0.0, sy = 0.0, sz = 0.0;
            const double xi = x[i], yi = y[i], zi = z[i];
            for (int j = 0; j < n; j++) {
                if (j == i)
                    continue;
                double dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
                double r2 = dx * dx + dy * dy + dz * dz + eps2;
                double f = m[j] / (r2 * sqrt(r2));
                sx += f * dx; sy += f * dy; sz += f * dz;
            }
            ax[i] = sx; ay[i] = sy; az[i] = sz;
            vx[i] += hdt * sx; vy[i] += hdt * sy; vz[i] += hdt * sz;
        }

        if (s % check_every == 0) {
            double k, w;
            energy(&c, &k, &w);
            double rel = fabs((k + w - e0) / e0);
            if (rel > worst) {
                worst = rel;
                worst_t = s * dt;
            }
        }
    }

    double k1, w1;
    energy(&c, &k1, &w1);
    const double e1 = k1 + w1;
    double lr1[3];
    lagrangian_radii(&c, lr1);

    /* escapers: positive energy relative to the cluster and beyond 4 initial r_h */
    double com[3], vcom[3];
    centre_of_mass(&c, com, vcom);
    int nesc = 0;
    double mesc = 0.0, mtot = 0.0;
    int esc_ids[10];
    for (int i = 0; i < n; i++) {
        double dx = x[i] - com[0], dy = y[i] - com[1], dz = z[i] - com[2];
        double dvx = vx[i] - vcom[0], dvy = vy[i] - vcom[1], dvz = vz[i] - vcom[2];
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        double e = 0.5 * (dvx * dvx + dvy * dvy + dvz * dvz) + potential_at(&c, i);
        if (e > 0.0 && r > 4.0 * lr0[1]) {
            if (nesc < 10)
                esc_ids[nesc] = i;
            nesc++;
            mesc += m[i];
        }
        mtot += m[i];
    }

    printf("bodies: %d, softening %g, steps: %ld, dt = %g (t_end = %g)\n", n, sqrt(eps2),
           steps, dt, steps * dt);
    printf("energy: initial %.6f (K %.6f, W %.6f), final %.6f, virial ratio %.3f -> %.3f\n",
           e0, k0, w0, e1, 2.0 * k0 / fabs(w0), 2.0 * k1 / fabs(w1));
    printf("relative energy drift: final %.3e, worst %.3e at t = %.2f\n",
           fabs((e1 - e0) / e0), worst, worst_t);
    printf("escapers: %d (mass fraction %.4f)", nesc, mesc / mtot);
    for (int k = 0; k < nesc && k < 10; k++)
        printf("%s%d", k == 0 ? ", ids " : " ", esc_ids[k]);
    printf("%s\n", nesc > 10 ? " ..." : "");
    printf("Lagrangian radii (10%%/50%%/90%%): initial %.4f %.4f %.4f\n", lr0[0], lr0[1],
           lr0[2]);
    printf("                                   final %.4f %.4f %.4f\n", lr1[0], lr1[1],
           lr1[2]);
    printf("half-mass radius changed by a factor %.3f\n", lr1[1] / lr0[1]);

    free(m); free(x); free(y); free(z); free(vx); free(vy); free(vz);
    free(ax); free(ay); free(az);
    return 0;
}
