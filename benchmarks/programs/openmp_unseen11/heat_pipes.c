/* heat_pipes: implicit (backward Euler) 1-D heat conduction in a chain of
 * pipes whose ends exchange heat with their neighbours.
 *
 * usage: heat_pipes PARAM_FILE
 *
 * Every time step each pipe solves its own tridiagonal system with the Thomas
 * algorithm (one parallel loop over the pipes); then a sequential coupling
 * step moves heat between the right end of pipe p and the left end of pipe
 * p+1.  Pipe 0 is held at left_temp on its left end, the last pipe at
 * right_temp on its right end; every pipe loses heat to the ambient.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PIPES 4096
#define MAX_CELLS 100000

struct params {
    int pipes, cells, steps, checkpoint;
    double dt, dx, coupling, left_temp, right_temp, ambient;
    double *diff, *loss, *init;
};

static int fail_param(const char *path, const char *what)
{
    fprintf(stderr, "heat_pipes: malformed parameter file %s (%s)\n", path, what);
    return -1;
}

static int read_params(const char *path, struct params *P)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "heat_pipes: cannot open %s\n", path);
        return -1;
    }
    memset(P, 0, sizeof *P);
    P->pipes = P->cells = P->steps = P->checkpoint = -1;
    P->dt = P->dx = P->coupling = -1.0;
    int have_left = 0, have_right = 0, have_amb = 0, npipe_lines = 0;
    char line[512], key[64];
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\0')
            continue;
        if (sscanf(p, "%63s", key) != 1) {
            rc = fail_param(path, "bad line");
            break;
        }
        char *rest = p + strlen(key);
        if (strcmp(key, "pipe") == 0) {
            int idx;
            double d, l, t;
            if (P->pipes < 0) {
                rc = fail_param(path, "pipe line before pipe count");
                break;
            }
            if (sscanf(rest, "%d %lf %lf %lf", &idx, &d, &l, &t) != 4 || idx < 0 ||
                idx >= P->pipes || d <= 0.0 || l < 0.0) {
                rc = fail_param(path, "bad pipe line");
                break;
            }
            P->diff[idx] = d;
            P->loss[idx] = l;
            P->init[idx] = t;
            npipe_lines++;
            continue;
        }
        double v;
        if (sscanf(rest, "%lf", &v) != 1) {
            rc = fail_param(path, "missing value");
            break;
        }
        if (strcmp(key, "pipes") == 0) {
            if (P->pipes >= 0 || v < 2 || v > MAX_PIPES) {
                rc = fail_param(path, "bad pipe count");
                break;
            }
            P->pipes = (int)v;
            P->diff = calloc(P->pipes, sizeof(double));
            P->loss = calloc(P->pipes, sizeof(double));
            P->init = calloc(P->pipes, sizeof(double));
        } else if (strcmp(key, "cells") == 0)
            P->cells = (v >= 3 && v <= MAX_CELLS) ? (int)v : -2;
        else if (strcmp(key, "steps") == 0)
            P->steps = (v >= 1 && v <= 1e8) ? (int)v : -2;
        else if (strcmp(key, "checkpoint") == 0)
            P->checkpoint = (v >= 1 && v <= 1e8) ? (int)v : -2;
        else if (strcmp(key, "dt") == 0)
            P->dt = v;
        else if (strcmp(key, "dx") == 0)
            P->dx = v;
        else if (strcmp(key, "coupling") == 0)
            P->coupling = v;
        else if (strcmp(key, "left_temp") == 0) {
            P->left_temp = v;
            have_left = 1;
        } else if (strcmp(key, "right_temp") == 0) {
            P->right_temp = v;
            have_right = 1;
        } else if (strcmp(key, "ambient") == 0) {
            P->ambient = v;
            have_amb = 1;
        } else {
            rc = fail_param(path, "unknown key");
            break;
        }
    }
    fclose(f);
    if (rc == 0) {
        if (P->pipes < 0 || P->cells < 0 || P->steps < 0 || P->checkpoint < 0)
            rc = fail_param(path, "missing or bad sizes");
        else if (P->dt <= 0.0 || P->dx <= 0.0 || P->coupling < 0.0 || P->coupling * P->dt >= 0.5)
            rc = fail_param(path, "bad dt, dx or coupling");
        else if (!have_left || !have_right || !have_amb)
            rc = fail_param(path, "missing boundary temperatures");
        else if (npipe_lines != P->pipes)
            rc = fail_param(path, "wrong number of pipe lines");
    }
    if (rc != 0) {
        free(P->diff);
        free(P->loss);
        free(P->init);
    }
    return rc;
}

/* Thomas algorithm, split in two: the forward elimination of the matrix
 * depends only on the pipe's coefficients and is done once (factor_pipe);
 * every time step then runs the right-hand-side sweep and the back
 * substitution (implicit_step). */
static void factor_pipe(const struct params *P, int p, double *cp, double *im)
{
    const int n = P->cells;
    const double r = P->diff[p] * 1e-4 * P->dt / (P->dx * P->dx);
    const double ldt = P->loss[p] * P->dt;
    const int fixed_left = (p == 0), fixed_right = (p == P->pipes - 1);

    /* row i: -r T[i-1] + b_i T[i] - r T[i+1] = T_old[i] + src (+ boundary) */
    double m = 1.0 + ldt + (fixed_left ? 2.0 * r : r);
    im[0] = 1.0 / m;
    cp[0] = -r / m;
    const double bmid = 1.0 + 2.0 * r + ldt;
    for (int i = 1; i < n - 1; i++) {
        m = bmid + r * cp[i - 1];
        im[i] = 1.0 / m;
        cp[i] = -r / m;
    }
    m = 1.0 + ldt + (fixed_right ? 2.0 * r : r) + r * cp[n - 2];
    im[n - 1] = 1.0 / m;
    cp[n - 1] = 0.0;
}

/* one backward Euler step of pipe p, in place; dp is scratch */
static void implicit_step(const struct params *P, int p, double *T, const double *cp,
                          const double *im, double *dp)
{
    const int n = P->cells;
    const double r = P->diff[p] * 1e-4 * P->dt / (P->dx * P->dx);
    const double src = P->loss[p] * P->dt * P->ambient;

    double rhs = T[0] + src + (p == 0 ? r * P->left_temp : 0.0);
    dp[0] = rhs * im[0];
    for (int i = 1; i < n - 1; i++)
        dp[i] = (T[i] + src + r * dp[i - 1]) * im[i];
    rhs = T[n - 1] + src + (p == P->pipes - 1 ? r * P->right_temp : 0.0);
    T[n - 1] = (rhs + r * dp[n - 2]) * im[n - 1];
    for (int i = n - 2; i >= 0; i--)
        T[i] = dp[i] - cp[i] * T[i + 1];
}

static void report(const struct params *P, const double *T, int step)
{
    const int n = P->cells;
    double total = 0.0, hottest = -1e300;
    int hot_pipe = 0;
    for (int p = 0; p < P->pipes; p++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            s += T[(size_t)p * n + i];
        total += s;
        if (s / n > hottest) {
            hottest = s / n;
            hot_pipe = p;
        }
    }
    printf("step %7d  mean %.3f K  hottest pipe %2d (%.3f K)\n", step,
           total / ((double)P->pipes * n), hot_pipe, hottest);
    int picks[5] = {0, P->pipes / 4, P->pipes / 2, 3 * P->pipes / 4, P->pipes - 1};
    for (int k = 0; k < 5; k++) {
        const double *t = T + (size_t)picks[k] * n;
        printf("  pipe %2d: left %8.3f  quarter %8.3f  middle %8.3f  right %8.3f\n", picks[k],
               t[0], t[n / 4], t[n / 2], t[n - 1]);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PARAM_FILE\n", argv[0]);
        return 2;
    }
    struct params P;
    if (read_params(argv[1], &P) != 0)
        return 1;

    const int n = P.cells, np = P.pipes;
    double *T = malloc(sizeof(double) * (size_t)np * n);
    double *cp = malloc(sizeof(double) * (size_t)np * n);
    double *dp = malloc(sizeof(double) * (size_t)np * n);
    double *im = malloc(sizeof(double) * (size_t)np * n);
    for (int p = 0; p < np; p++)
        for (int i = 0; i < n; i++)
            T[(size_t)p * n + i] = P.init[p];
    for (int p = 0; p < np; p++)
        factor_pipe(&P, p, cp + (size_t)p * n, im + (size_t)p * n);

    printf("%d pipes x %d cells, %d steps of %.3f s\n", np, n, P.steps, P.dt);
    report(&P, T, 0);
    double exchanged = 0.0;
    for (int step = 1; step <= P.steps; step++) {
        #pragma omp parallel for
        for (int p = 0; p < np; p++)
            implicit_step(&P, p, T + (size_t)p * n, cp + (size_t)p * n, im + (size_t)p * n,
                          dp + (size_t)p * n);

        /* sequential coupling between neighbouring pipe ends */
        const double k = P.coupling * P.dt;
        for (int p = 0; p + 1 < np; p++) {
            double *a = &T[(size_t)p * n + n - 1];
            double *b = &T[(size_t)(p + 1) * n];
            double q = k * (*a - *b);
            *a -= q;
            *b += q;
            exchanged += q;
        }
        if (step % P.checkpoint == 0 || step == P.steps)
            report(&P, T, step);
    }
    printf("net heat moved rightwards through the joints: %.3f K*cell\n", exchanged);

    free(T);
    free(cp);
    free(dp);
    free(im);
    free(P.diff);
    free(P.loss);
    free(P.init);
    return 0;
}
