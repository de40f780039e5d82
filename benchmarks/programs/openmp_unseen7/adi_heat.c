/*
 * adi_heat.c - transient 2-D heat diffusion on a rectangular plate.
 *
 * The plate is described by a small text file (grid size, spacing,
 * diffusivity, time step, edge temperatures, fixed-temperature cells,
 * heat sources and probe points).  The heat equation
 *
 *     dT/dt = alpha * (d2T/dx2 + d2T/dy2) + q(x,y)
 *
 * is advanced with the Peaceman-Rachford alternating-direction implicit
 * scheme: every time step is split into a half step implicit along the
 * rows and a half step implicit along the columns.  Each half step is a
 * set of independent tridiagonal systems, solved with the Thomas
 * algorithm, one system per row (column), in parallel.
 *
 * usage: adi_heat PLATE_FILE STEPS
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAX_PROBES 32
#define MAX_GRID 2048

typedef struct {
    char name[32];
    int i, j;
} probe_t;

typedef struct {
    int nx, ny;
    double h, alpha, dt;
    double t_init, threshold;
    double edge_n, edge_s, edge_w, edge_e;
    int have_size, have_h, have_alpha, have_dt;
    int nprobes;
    probe_t probes[MAX_PROBES];
    /* grid fields, row-major [j][i] */
    unsigned char *fixed;
    double *fixval;
    double *src;
    int nfixed_cells, nsources;
} plate_t;

static void die_file(const char *path, int line, const char *what)
{
    if (line > 0)
        fprintf(stderr, "adi_heat: %s:%d: %s\n", path, line, what);
    else
        fprintf(stderr, "adi_heat: %s: %s\n", path, what);
    exit(1);
}

static int blank_or_comment(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#';
}

/* Reads the plate description.  Cells are addressed as (i, j) with i the
 * column (0 = west) and j the row (0 = north). */
static void read_plate(const char *path, plate_t *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "adi_heat: cannot open %s\n", path);
        exit(1);
    }
    memset(p, 0, sizeof *p);
    p->t_init = 20.0;
    p->threshold = 50.0;
    p->edge_n = p->edge_s = p->edge_w = p->edge_e = 20.0;

    /* First pass: scalar settings (the grid size is needed before cells). */
    char line[512];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (blank_or_comment(line))
            continue;
        char key[32], arg[32];
        double v;
        int a, b;
        if (sscanf(line, "%31s", key) != 1)
            die_file(path, lineno, "malformed line");
        if (strcmp(key, "size") == 0) {
            if (sscanf(line, "%*s %d %d", &a, &b) != 2 || a < 3 || b < 3 ||
                a > MAX_GRID || b > MAX_GRID)
                die_file(path, lineno, "bad grid size");
            p->nx = a;
            p->ny = b;
            p->have_size = 1;
        } else if (strcmp(key, "spacing") == 0) {
            if (sscanf(line, "%*s %lf", &v) != 1 || !(v > 0))
                die_file(path, lineno, "bad spacing");
            p->h = v;
            p->have_h = 1;
        } else if (strcmp(key, "diffusivity") == 0) {
            if (sscanf(line, "%*s %lf", &v) != 1 || !(v > 0))
                die_file(path, lineno, "bad diffusivity");
            p->alpha = v;
            p->have_alpha = 1;
        } else if (strcmp(key, "dt") == 0) {
            if (sscanf(line, "%*s %lf", &v) != 1 || !(v > 0))
                die_file(path, lineno, "bad time step");
            p->dt = v;
            p->have_dt = 1;
        } else if (strcmp(key, "initial") == 0) {
            if (sscanf(line, "%*s %lf", &v) != 1)
                die_file(path, lineno, "bad initial temperature");
            p->t_init = v;
        } else if (strcmp(key, "threshold") == 0) {
            if (sscanf(line, "%*s %lf", &v) != 1)
                die_file(path, lineno, "bad threshold");
            p->threshold = v;
        } else if (strcmp(key, "edge") == 0) {
            if (sscanf(line, "%*s %31s %lf", arg, &v) != 2)
                die_file(path, lineno, "bad edge line");
            if (strcmp(arg, "north") == 0) p->edge_n = v;
            else if (strcmp(arg, "south") == 0) p->edge_s = v;
            else if (strcmp(arg, "west") == 0) p->edge_w = v;
            else if (strcmp(arg, "east") == 0) p->edge_e = v;
            else die_file(path, lineno, "unknown edge name");
        } else if (strcmp(key, "fixed") == 0 || strcmp(key, "source") == 0 ||
                   strcmp(key, "probe") == 0) {
            /* handled in the second pass */
        } else {
            die_file(path, lineno, "unknown keyword");
        }
    }
    if (!p->have_size || !p->have_h || !p->have_alpha || !p->have_dt)
        die_file(path, 0, "missing size, spacing, diffusivity or dt");

    size_t n = (size_t)p->nx * p->ny;
    p->fixed = calloc(n, 1);
    p->fixval = calloc(n, sizeof(double));
    p->src = calloc(n, sizeof(double));
    if (!p->fixed || !p->fixval || !p->src) {
        fprintf(stderr, "adi_heat: out of memory\n");
        exit(1);
    }
    int nx = p->nx, ny = p->ny;
    /* boundary ring: north and south rows own the corners */
    for (int j = 0; j < ny; j++) {
        for (int i = 0; i < nx; i++) {
            double t;
            if (j == 0) t = p->edge_n;
            else if (j == ny - 1) t = p->edge_s;
            else if (i == 0) t = p->edge_w;
            else if (i == nx - 1) t = p->edge_e;
            else continue;
            p->fixed[(size_t)j * nx + i] = 1;
            p->fixval[(size_t)j * nx + i] = t;
        }
    }

    rewind(f);
    lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (blank_or_comment(line))
            continue;
        char key[32], name[32];
        int i, j;
        double v;
        sscanf(line, "%31s", key);
        if (strcmp(key, "fixed") == 0) {
            if (sscanf(line, "%*s %d %d %lf", &i, &j, &v) != 3 || i <= 0 ||
                j <= 0 || i >= nx - 1 || j >= ny - 1)
                die_file(path, lineno, "bad fixed cell (must be interior)");
            size_t k = (size_t)j * nx + i;
            if (!p->fixed[k])
                p->nfixed_cells++;
            p->fixed[k] = 1;
            p->fixval[k] = v;
        } else if (strcmp(key, "source") == 0) {
            if (sscanf(line, "%*s %d %d %lf", &i, &j, &v) != 3 || i <= 0 ||
                j <= 0 || i >= nx - 1 || j >= ny - 1)
                die_file(path, lineno, "bad source cell (must be interior)");
            p->src[(size_t)j * nx + i] += v;
            p->nsources++;
        } else if (strcmp(key, "probe") == 0) {
            if (sscanf(line, "%*s %31s %d %d", name, &i, &j) != 3 || i < 0 ||
                j < 0 || i >= nx || j >= ny)
                die_file(path, lineno, "bad probe");
            if (p->nprobes == MAX_PROBES)
                die_file(path, lineno, "too many probes");
            probe_t *pr = &p->probes[p->nprobes++];
            strcpy(pr->name, name);
            pr->i = i;
            pr->j = j;
        }
    }
    fclose(f);
}

/* Thomas algorithm for a[k] x[k-1] + b[k] x[k] + c[k] x[k+1] = d[k].
 * cp and dp are scratch; the solution is written into x. */
static void thomas(int n, const double *a, const double *b, const double *c,
                   const double *d, double *cp, double *dp, double *x)
{
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for (int k = 1; k < n; k++) {
        double m = b[k] - a[k] * cp[k - 1];
        cp[k] = c[k] / m;
        dp[k] = (d[k] - a[k] * dp[k - 1]) / m;
    }
    x[n - 1] = dp[n - 1];
    for (int k = n - 2; k >= 0; k--)
        x[k] = dp[k] - cp[k] * x[k + 1];
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PLATE_FILE STEPS\n", argv[0]);
        return 2;
    }
    char *end;
    long steps = strtol(argv[2], &end, 10);
    if (*end != '\0' || steps < 1 || steps > 100000000L) {
        fprintf(stderr, "usage: %s PLATE_FILE STEPS  (STEPS a positive integer)\n",
                argv[0]);
        return 2;
    }

    plate_t p;
    read_plate(argv[1], &p);
    const int nx = p.nx, ny = p.ny;
    const double r = p.alpha * p.dt / (2.0 * p.h * p.h);
    const double half_dt = 0.5 * p.dt;
    const int nmax = nx > ny ? nx : ny;
    const size_t ncell = (size_t)nx * ny;

    double *u = malloc(ncell * sizeof(double));   /* T at full steps */
    double *w = malloc(ncell * sizeof(double));   /* T at half steps */
    /* per-line scratch: each row/column owns its own slice, so the
     * parallel solves never share storage */
    size_t nscr = (size_t)nmax * nmax;
    double *A = malloc(nscr * sizeof(double)), *B = malloc(nscr * sizeof(double));
    double *C = malloc(nscr * sizeof(double)), *D = malloc(nscr * sizeof(double));
    double *CP = malloc(nscr * sizeof(double)), *DP = malloc(nscr * sizeof(double));
    double *X = malloc(nscr * sizeof(double));
    if (!u || !w || !A || !B || !C || !D || !CP || !DP || !X) {
        fprintf(stderr, "adi_heat: out of memory\n");
        return 1;
    }
    for (size_t k = 0; k < ncell; k++) {
        u[k] = p.fixed[k] ? p.fixval[k] : p.t_init;
        w[k] = u[k];
    }

    const int ci = nx / 2, cj = ny / 2;
    long reach_step = -1;
    if (u[(size_t)cj * nx + ci] >= p.threshold)
        reach_step = 0;

    for (long step = 1; step <= steps; step++) {
        /* half step 1: implicit in x, one tridiagonal system per row */
#pragma omp parallel for
        for (int j = 1; j < ny - 1; j++) {
            double *a = A + (size_t)j * nmax, *b = B + (size_t)j * nmax;
            double *c = C + (size_t)j * nmax, *d = D + (size_t)j * nmax;
            double *x = X + (size_t)j * nmax;
            const double *up = u + (size_t)(j - 1) * nx;
            const double *uc = u + (size_t)j * nx;
            const double *un = u + (size_t)(j + 1) * nx;
            for (int i = 0; i < nx; i++) {
                size_t k = (size_t)j * nx + i;
                if (p.fixed[k]) {
                    a[i] = 0.0; b[i] = 1.0; c[i] = 0.0; d[i] = p.fixval[k];
                } else {
                    a[i] = -r; b[i] = 1.0 + 2.0 * r; c[i] = -r;
                    d[i] = r * up[i] + (1.0 - 2.0 * r) * uc[i] + r * un[i] +
                           half_dt * p.src[k];
                }
            }
            thomas(nx, a, b, c, d, CP + (size_t)j * nmax, DP + (size_t)j * nmax, x);
            memcpy(w + (size_t)j * nx, x, (size_t)nx * sizeof(double));
        }

        /* half step 2: implicit in y, one tridiagonal system per column */
#pragma omp parallel for
        for (int i = 1; i < nx - 1; i++) {
            double *a = A + (size_t)i * nmax, *b = B + (size_t)i * nmax;
            double *c = C + (size_t)i * nmax, *d = D + (size_t)i * nmax;
            double *x = X + (size_t)i * nmax;
            for (int j = 0; j < ny; j++) {
                size_t k = (size_t)j * nx + i;
                if (p.fixed[k]) {
                    a[j] = 0.0; b[j] = 1.0; c[j] = 0.0; d[j] = p.fixval[k];
                } else {
                    a[j] = -r; b[j] = 1.0 + 2.0 * r; c[j] = -r;
                    d[j] = r * w[k - 1] + (1.0 - 2.0 * r) * w[k] + r * w[k + 1] +
                           half_dt * p.src[k];
                }
            }
            thomas(ny, a, b, c, d, CP + (size_t)i * nmax, DP + (size_t)i * nmax, x);
            for (int j = 0; j < ny; j++)
                u[(size_t)j * nx + i] = x[j];
        }

        if (reach_step < 0 && u[(size_t)cj * nx + ci] >= p.threshold)
            reach_step = step;
    }

    /* summary (sequential, fixed order) */
    double sum = 0.0, tmax = -HUGE_VAL, tmin = HUGE_VAL;
    int imax = 0, jmax = 0, imin = 0, jmin = 0;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double t = u[(size_t)j * nx + i];
            sum += t;
            if (t > tmax) { tmax = t; imax = i; jmax = j; }
            if (t < tmin) { tmin = t; imin = i; jmin = j; }
        }

    printf("plate %d x %d cells, h = %g m, alpha = %g m^2/s, dt = %g s\n",
           nx, ny, p.h, p.alpha, p.dt);
    printf("ADI steps: %ld (%.1f s simulated), r = %.4f, fixed interior cells: %d, sources: %d\n",
           steps, steps * p.dt, r, p.nfixed_cells, p.nsources);
    for (int q = 0; q < p.nprobes; q++) {
        const probe_t *pr = &p.probes[q];
        printf("probe %-12s (%3d,%3d): %9.4f C\n", pr->name, pr->i, pr->j,
               u[(size_t)pr->j * nx + pr->i]);
    }
    printf("mean plate temperature: %.4f C\n", sum / (double)ncell);
    printf("hottest cell (%d,%d): %.4f C, coldest cell (%d,%d): %.4f C\n",
           imax, jmax, tmax, imin, jmin, tmin);
    if (reach_step >= 0)
        printf("centre (%d,%d) reached %.1f C at t = %.1f s (step %ld)\n", ci, cj,
               p.threshold, reach_step * p.dt, reach_step);
    else
        printf("centre (%d,%d) did not reach %.1f C (final %.4f C)\n", ci, cj,
               p.threshold, u[(size_t)cj * nx + ci]);

    free(u); free(w); free(A); free(B); free(C); free(D);
    free(CP); free(DP); free(X);
    free(p.fixed); free(p.fixval); free(p.src);
    return 0;
}
