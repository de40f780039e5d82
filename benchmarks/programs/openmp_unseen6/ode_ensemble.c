/*
 * ode_ensemble - integrate an ensemble of small ODE systems with the adaptive
 * Dormand-Prince RK5(4) method and summarise the results.
 *
 * usage: ode_ensemble ICFILE T_END RTOL [MAXSTEPS]
 *
 * ICFILE lines:
 *   lorenz   sigma rho beta  x0 y0 z0
 *   vdp      mu  x0 v0                         (Van der Pol oscillator)
 *   pendulum gamma omega0 amp omega_d theta0 v0 (damped, driven pendulum)
 * Every run is integrated from t = 0 to T_END with relative and absolute
 * tolerance RTOL; runs that need more than MAXSTEPS steps are abandoned.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SYS_LORENZ, SYS_VDP, SYS_PENDULUM, NSYS };
static const char *sys_names[NSYS] = { "lorenz", "vdp", "pendulum" };
static const int sys_dim[NSYS] = { 3, 2, 2 };
static const int sys_nparam[NSYS] = { 3, 1, 4 };

typedef struct {
    int sys, line;
    double p[4];
    double y0[3];
} Run;

typedef struct {
    double y[3];
    long accepted, rejected, evals;
    double hmin, hmax;
    int finished;
} Outcome;

static void rhs(const Run *r, double t, const double *y, double *dy)
{
    const double *p = r->p;
    switch (r->sys) {
    case SYS_LORENZ:
        dy[0] = p[0] * (y[1] - y[0]);
        dy[1] = y[0] * (p[1] - y[2]) - y[1];
        dy[2] = y[0] * y[1] - p[2] * y[2];
        break;
    case SYS_VDP:
        dy[0] = y[1];
        dy[1] = p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0];
        break;
    default:
        dy[0] = y[1];
        dy[1] = -p[0] * y[1] - p[1] * p[1] * sin(y[0]) + p[2] * cos(p[3] * t);
        break;
    }
}

/* Dormand-Prince 5(4) coefficients */
static const double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187, a53 = 64448.0 / 6561,
                    a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247,
                    a64 = 49.0 / 176, a65 = -5103.0 / 18656;
static const double b1 = 35.0 / 384, b3 = 500.0 / 1113, b4 = 125.0 / 192, b5 = -2187.0 / 6784,
                    b6 = 11.0 / 84;
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920,
                    e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;

static Outcome integrate(const Run *r, double tend, double tol, long maxsteps)
{
    const int n = sys_dim[r->sys];
    double y[3], yn[3], ytmp[3], k1[3], k2[3], k3[3], k4[3], k5[3], k6[3], k7[3];
    Outcome o;
    memset(&o, 0, sizeof o);
    o.hmin = tend;
    o.hmax = 0.0;
    for (int i = 0; i < n; i++)
        y[i] = r->y0[i];

    double t = 0.0;
    rhs(r, t, y, k1);
    o.evals = 1;

    /* starting step from the size of y and y' */
    double d0 = 0.0, d1 = 0.0;
    for (int i = 0; i < n; i++) {
        double sc = tol + tol * fabs(y[i]);
        d0 += (y[i] / sc) * (y[i] / sc);
        d1 += (k1[i] / sc) * (k1[i] / sc);
    }
    double h = (d0 < 1e-10 || d1 < 1e-10) ? 1e-6 : 0.01 * sqrt(d0 / d1);
    if (h > tend)
        h = tend;

    while (t < tend) {
        if (o.accepted + o.rejected >= maxsteps)
            break;
        if (t + h > tend)
            h = tend - t;

        for (int i = 0; i < n; i++) ytmp[i] = y[i] + h * a21 * k1[i];
        rhs(r, t + c2 * h, ytmp, k2);
        for (int i = 0; i < n; i++) ytmp[i] = y[i] + h * (a31 * k1[i] + a32 * k2[i]);
        rhs(r, t + c3 * h, ytmp, k3);
        for (int i = 0; i < n; i++)
            ytmp[i] = y[i] + h * (a41 * k1[i] + a42 * k2[i] + a43 * k3[i]);
        rhs(r, t + c4 * h, ytmp, k4);
        for (int i = 0; i < n; i++)
            ytmp[i] = y[i] + h * (a51 * k1[i] + a52 * k2[i] + a53 * k3[i] + a54 * k4[i]);
        rhs(r, t + c5 * h, ytmp, k5);
        for (int i = 0; i < n; i++)
            ytmp[i] = y[i] + h * (a61 * k1[i] + a62 * k2[i] + a63 * k3[i] + a64 * k4[i] +
                                  a65 * k5[i]);
        rhs(r, t + h, ytmp, k6);
        for (int i = 0; i < n; i++)
            yn[i] = y[i] + h * (b1 * k1[i] + b3 * k3[i] + b4 * k4[i] + b5 * k5[i] + b6 * k6[i]);
        rhs(r, t + h, yn, k7);
        o.evals += 6;

        double err = 0.0;
        for (int i = 0; i < n; i++) {
            double ei = h * (e1 * k1[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i] + e6 * k6[i] +
                             e7 * k7[i]);
            double sc = tol + tol * fmax(fabs(y[i]), fabs(yn[i]));
            err += (ei / sc) * (ei / sc);
        }
        err = sqrt(err / n);

        double fac = (err > 0.0) ? 0.9 * pow(err, -0.2) : 5.0;
        if (err <= 1.0) {
            t += h;
            for (int i = 0; i < n; i++) {
                y[i] = yn[i];
                k1[i] = k7[i]; /* first same as last */
            }
            o.accepted++;
            if (h < o.hmin && t < tend) o.hmin = h;
            if (h > o.hmax) o.hmax = h;
            h *= fmin(5.0, fmax(0.2, fac));
        } else {
            o.rejected++;
            h *= fmax(0.2, fac);
        }
        if (h < 1e-14 * (1.0 + fabs(t)))
            break;
    }
    o.finished = (t >= tend);
    for (int i = 0; i < n; i++)
        o.y[i] = y[i];
    for (int i = n; i < 3; i++)
        o.y[i] = 0.0;
    return o;
}

static Run *read_runs(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ode_ensemble: cannot open %s\n", path);
        return NULL;
    }
    int cap = 512, n = 0, lineno = 0;
    Run *v = malloc(sizeof *v * cap);
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        char name[32];
        double x[8];
        Run r;
        memset(&r, 0, sizeof r);
        int got = sscanf(s, "%31s %lf %lf %lf %lf %lf %lf %lf", name, &x[0], &x[1], &x[2],
                         &x[3], &x[4], &x[5], &x[6]);
        r.sys = -1;
        for (int k = 0; k < NSYS; k++)
            if (got >= 1 && strcmp(name, sys_names[k]) == 0)
                r.sys = k;
        if (r.sys < 0 || got - 1 != sys_nparam[r.sys] + sys_dim[r.sys]) {
            fprintf(stderr, "ode_ensemble: %s:%d: malformed run\n", path, lineno);
            free(v);
            fclose(f);
            return NULL;
        }
        for (int k = 0; k < sys_nparam[r.sys]; k++)
            r.p[k] = x[k];
        for (int k = 0; k < sys_dim[r.sys]; k++)
            r.y0[k] = x[sys_nparam[r.sys] + k];
        r.line = lineno;
        if (n == cap) {
            cap *= 2;
            v = realloc(v, sizeof *v * cap);
        }
        v[n++] = r;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "ode_ensemble: %s: no runs\n", path);
        free(v);
        return NULL;
    }
    *count = n;
    return v;
}

static int parse_pos(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0.0) || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    double tend, tol, maxs = 2e6;
    if (argc < 4 || argc > 5 || !parse_pos(argv[2], &tend) || !parse_pos(argv[3], &tol) ||
        tol >= 1.0 || (argc == 5 && (!parse_pos(argv[4], &maxs) || maxs < 10))) {
        fprintf(stderr, "usage: %s ICFILE T_END RTOL [MAXSTEPS]\n", argv[0]);
        return 2;
    }
    long maxsteps = (long)maxs;

    int n;
    Run *runs = read_runs(argv[1], &n);
    if (!runs)
        return 1;
    Outcome *out = malloc(sizeof *out * n);

    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        out[i] = integrate(&runs[i], tend, tol, maxsteps);

    long acc = 0, rej = 0, evals = 0;
    int unfinished = 0;
    for (int i = 0; i < n; i++) {
        acc += out[i].accepted;
        rej += out[i].rejected;
        evals += out[i].evals;
        unfinished += !out[i].finished;
    }
    printf("runs:                %d  (t = 0 .. %g, tol %g)\n", n, tend, tol);
    printf("accepted steps:      %ld\n", acc);
    printf("rejected steps:      %ld  (%.2f%%)\n", rej, 100.0 * rej / (double)(acc + rej));
    printf("rhs evaluations:     %ld\n", evals);
    printf("unfinished runs:     %d\n", unfinished);

    printf("final states by system:\n");
    for (int s = 0; s < NSYS; s++) {
        int cnt = 0;
        long sacc = 0, srej = 0;
        double mean[3] = { 0 }, m2[3] = { 0 }, lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = INFINITY;
            hi[d] = -INFINITY;
        }
        for (int i = 0; i < n; i++) {
            if (runs[i].sys != s || !out[i].finished)
                continue;
            cnt++;
            sacc += out[i].accepted;
            srej += out[i].rejected;
            for (int d = 0; d < sys_dim[s]; d++) {
                double v = out[i].y[d];
                if (s == SYS_PENDULUM && d == 0) /* angle wrapped to (-pi, pi] */
                    v = atan2(sin(v), cos(v));
                double delta = v - mean[d];
                mean[d] += delta / cnt;
                m2[d] += delta * (v - mean[d]);
                lo[d] = fmin(lo[d], v);
                hi[d] = fmax(hi[d], v);
            }
        }
        if (cnt == 0)
            continue;
        printf("  %-8s %5d runs, %9.1f accepted/run, %8.1f rejected/run\n", sys_names[s], cnt,
               (double)sacc / cnt, (double)srej / cnt);
        for (int d = 0; d < sys_dim[s]; d++)
            printf("    y%d: mean %10.4f  sd %9.4f  min %10.4f  max %10.4f\n", d, mean[d],
                   cnt > 1 ? sqrt(m2[d] / (cnt - 1)) : 0.0, lo[d], hi[d]);
    }

    /* stiffest runs: most steps taken (ties: earlier line) */
    int top[5], ntop = 0;
    for (int i = 0; i < n; i++) {
        long w = out[i].accepted + out[i].rejected;
        int pos = ntop;
        while (pos > 0 && w > out[top[pos - 1]].accepted + out[top[pos - 1]].rejected)
            pos--;
        if (pos >= 5)
            continue;
        if (ntop < 5)
            ntop++;
        for (int j = ntop - 1; j > pos; j--)
            top[j] = top[j - 1];
        top[pos] = i;
    }
    printf("stiffest runs (most steps):\n");
    printf("  %5s %-8s %10s %9s %9s %11s %11s\n", "line", "system", "param1", "accepted",
           "rejected", "min step", "max step");
    for (int t = 0; t < ntop; t++) {
        const Outcome *o = &out[top[t]];
        printf("  %5d %-8s %10.4f %9ld %9ld %11.3e %11.3e\n", runs[top[t]].line,
               sys_names[runs[top[t]].sys], runs[top[t]].p[0], o->accepted, o->rejected, o->hmin,
               o->hmax);
    }
    free(out);
    free(runs);
    return 0;
}
