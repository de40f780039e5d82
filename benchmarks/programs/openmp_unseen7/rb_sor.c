/*
 * rb_sor - Poisson's equation on the unit square by red-black SOR.
 *
 * Solves -laplace(u) = f with fixed values on the four edges, on an n x n
 * interior grid.  Sources (point charges, uniformly charged rectangles),
 * edge values and probe points come from a small text file.  Sweeps go on
 * until the largest change of any cell in a sweep drops below the
 * tolerance.
 *
 * usage: rb_sor <source-file> <n> <omega> [tolerance] [max-sweeps]
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBES 64

static const char *prog = "rb_sor";

static void usage(void)
{
    fprintf(stderr, "usage: %s <source-file> <n> <omega> [tolerance] [max-sweeps]\n", prog);
    exit(2);
}

struct problem {
    int n;           /* interior points per side */
    double h;        /* grid spacing */
    double *f;       /* (n+2)^2 right-hand side */
    double edge[4];  /* left right bottom top */
    int nprobe;
    double probe[MAX_PROBES][2];
};

static int to_index(double x, int n)
{
    /* interior point i (1..n) sits at x = i*h, h = 1/(n+1) */
    int i = (int)lround(x * (n + 1));
    if (i < 1)
        i = 1;
    if (i > n)
        i = n;
    return i;
}

static void bad_line(const char *path, long lineno, const char *what)
{
    fprintf(stderr, "%s: %s:%ld: %s\n", prog, path, lineno, what);
    exit(1);
}

static void read_sources(const char *path, struct problem *pb)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        exit(1);
    }
    int n = pb->n, stride = n + 2;
    double h = pb->h;
    char line[256], kw[32], side[32], extra;
    long lineno = 0;
    int nsrc = 0;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        if (sscanf(p, "%31s", kw) != 1)
            bad_line(path, lineno, "cannot parse");
        if (strcmp(kw, "point") == 0) {
            double x, y, q;
            if (sscanf(p, "%*s %lf %lf %lf %c", &x, &y, &q, &extra) != 3 || x <= 0 || x >= 1 ||
                y <= 0 || y >= 1)
                bad_line(path, lineno, "expected: point x y q with 0<x,y<1");
            /* a point charge spread over one cell */
            pb->f[(size_t)to_index(y, n) * stride + to_index(x, n)] += q / (h * h);
            nsrc++;
        } else if (strcmp(kw, "rect") == 0) {
            double x0, y0, x1, y1, rho;
            if (sscanf(p, "%*s %lf %lf %lf %lf %lf %c", &x0, &y0, &x1, &y1, &rho, &extra) != 5 ||
                x0 >= x1 || y0 >= y1 || x0 < 0 || y0 < 0 || x1 > 1 || y1 > 1)
                bad_line(path, lineno, "expected: rect x0 y0 x1 y1 density inside [0,1]");
            for (int i = to_index(y0, n); i <= to_index(y1, n); i++)
                for (int j = to_index(x0, n); j <= to_index(x1, n); j++)
                    pb->f[(size_t)i * stride + j] += rho;
            nsrc++;
        } else if (strcmp(kw, "edge") == 0) {
            double v;
            if (sscanf(p, "%*s %31s %lf %c", side, &v, &extra) != 2)
                bad_line(path, lineno, "expected: edge left|right|bottom|top value");
            if (strcmp(side, "left") == 0)
                pb->edge[0] = v;
            else if (strcmp(side, "right") == 0)
                pb->edge[1] = v;
            else if (strcmp(side, "bottom") == 0)
                pb->edge[2] = v;
            else if (strcmp(side, "top") == 0)
                pb->edge[3] = v;
            else
                bad_line(path, lineno, "unknown edge name");
        } else if (strcmp(kw, "probe") == 0) {
            double x, y;
            if (sscanf(p, "%*s %lf %lf %c", &x, &y, &extra) != 2 || x <= 0 || x >= 1 || y <= 0 ||
                y >= 1)
                bad_line(path, lineno, "expected: probe x y with 0<x,y<1");
            if (pb->nprobe == MAX_PROBES)
                bad_line(path, lineno, "too many probes");
            pb->probe[pb->nprobe][0] = x;
            pb->probe[pb->nprobe][1] = y;
            pb->nprobe++;
        } else {
            bad_line(path, lineno, "unknown keyword");
        }
    }
    fclose(fp);
    if (nsrc == 0 && pb->nprobe == 0) {
        fprintf(stderr, "%s: %s: no sources or probes found\n", prog, path);
        exit(1);
    }
}

/* one half sweep over cells with (i + j) % 2 == color; returns max change */
static double half_sweep(double *u, const double *f, int n, double h2, double omega, int color)
{
    int stride = n + 2;
    double maxd = 0.0;
#pragma omp parallel for reduction(max : maxd)
    for (int i = 1; i <= n; i++) {
        double *row = u + (size_t)i * stride;
        const double *up = row - stride, *dn = row + stride;
        const double *fr = f + (size_t)i * stride;
        for (int j = 1 + ((i + 1 + color) & 1); j <= n; j += 2) {
            double gs = 0.25 * (row[j - 1] + row[j + 1] + up[j] + dn[j] + h2 * fr[j]);
            double d = omega * (gs - row[j]);
            row[j] += d;
            d = fabs(d);
            if (d > maxd)
                maxd = d;
        }
    }
    return maxd;
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6)
        usage();
    char *end;
    errno = 0;
    long n = strtol(argv[2], &end, 10);
    if (errno || *end || n < 4 || n > 4000)
        usage();
    double omega = strtod(argv[3], &end);
    if (*end || !(omega > 0.0 && omega < 2.0))
        usage();
    double tol = 1e-8;
    if (argc >= 5) {
        tol = strtod(argv[4], &end);
        if (*end || !(tol > 0.0))
            usage();
    }
    long max_sweeps = 1000000;
    if (argc == 6) {
        errno = 0;
        max_sweeps = strtol(argv[5], &end, 10);
        if (errno || *end || max_sweeps < 1)
            usage();
    }

    struct problem pb;
    memset(&pb, 0, sizeof pb);
    pb.n = (int)n;
    pb.h = 1.0 / (double)(n + 1);
    size_t cells = (size_t)(n + 2) * (size_t)(n + 2);
    pb.f = calloc(cells, sizeof *pb.f);
    double *u = calloc(cells, sizeof *u);
    if (!pb.f || !u) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    read_sources(argv[1], &pb);

    int stride = (int)n + 2;
    for (int k = 0; k < stride; k++) {
        u[(size_t)k * stride + 0] = pb.edge[0];
        u[(size_t)k * stride + n + 1] = pb.edge[1];
    }
    for (int k = 1; k <= n; k++) {
        u[k] = pb.edge[2];
        u[(size_t)(n + 1) * stride + k] = pb.edge[3];
    }
    /* start from the mean of the edge values */
    double start = 0.25 * (pb.edge[0] + pb.edge[1] + pb.edge[2] + pb.edge[3]);
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            u[(size_t)i * stride + j] = start;

    double h2 = pb.h * pb.h;
    long sweep = 0;
    double change = INFINITY;
    while (sweep < max_sweeps) {
        double dr = half_sweep(u, pb.f, (int)n, h2, omega, 0);
        double db = half_sweep(u, pb.f, (int)n, h2, omega, 1);
        change = dr > db ? dr : db;
        sweep++;
        if (change < tol)
            break;
    }

    /* residual of the discrete equation, max norm */
    double resid = 0.0;
#pragma omp parallel for reduction(max : resid)
    for (int i = 1; i <= n; i++) {
        const double *row = u + (size_t)i * stride;
        for (int j = 1; j <= n; j++) {
            double lap = (row[j - 1] + row[j + 1] + row[j - stride] + row[j + stride] -
                          4.0 * row[j]) / h2;
            double r = fabs(pb.f[(size_t)i * stride + j] + lap);
            if (r > resid)
                resid = r;
        }
    }

    double umin = INFINITY, umax = -INFINITY, usum = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double v = u[(size_t)i * stride + j];
            usum += v;
            if (v < umin)
                umin = v;
            if (v > umax)
                umax = v;
        }

    printf("grid %ldx%ld, omega %.4f, tolerance %.1e\n", n, n, omega, tol);
    if (change < tol)
        printf("converged after %ld sweeps (last change %.2e)\n", sweep, change);
    else
        printf("not converged after %ld sweeps (last change %.2e)\n", sweep, change);
    printf("max residual %.3e\n", resid);
    printf("solution range [%.5f, %.5f], mean %.5f\n", umin, umax, usum / (double)(n * n));
    for (int k = 0; k < pb.nprobe; k++) {
        int i = to_index(pb.probe[k][1], (int)n), j = to_index(pb.probe[k][0], (int)n);
        printf("u(%.3f, %.3f) = %9.5f\n", pb.probe[k][0], pb.probe[k][1],
               u[(size_t)i * stride + j]);
    }
    free(u);
    free(pb.f);
    return 0;
}
