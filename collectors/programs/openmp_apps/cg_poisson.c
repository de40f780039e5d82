/* cg_poisson: conjugate gradient solves of the 2-D 5-point Poisson problem -lap(u) = f on an N x N grid (zero Dirichlet boundary), one solve per step of a moving source.
 * Category: iterative solver (six small uniform parallel loops per CG iteration, over the N grid rows: thousands of short regions, overhead-bound).
 * Sizes: MIRTUNE_SIZE=1 -> N=100, 16 solves (~306 CG iterations each); MIRTUNE_SIZE=2 -> N=180, 12 solves (~554 CG iterations each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 180
#define NSTEPS 12
#else
#define N 100
#define NSTEPS 16
#endif
#define TOL 1e-8      /* relative residual at which a solve stops */
#define MAXIT 5000
#define W (N + 2)     /* row stride: one halo cell on each side */

int main(void)
{
    const size_t cells = (size_t)W * W;
    double *x = calloc(cells, sizeof(double));
    double *r = calloc(cells, sizeof(double));
    double *p = calloc(cells, sizeof(double));
    double *q = calloc(cells, sizeof(double));
    double *b = calloc(cells, sizeof(double));
    double *part = malloc(sizeof(double) * (N + 2));
    if (!x || !r || !p || !q || !b || !part)
        return 1;

    const double h = 1.0 / (N + 1);
    double checksum = 0.0;
    long total_iters = 0;

    for (int step = 0; step < NSTEPS; step++) {
        /* right-hand side: a Gaussian source moving on a circle, plus a weak uniform load (scaled by h^2) */
        const double cx = 0.5 + 0.3 * cos(0.37 * step), cy = 0.5 + 0.3 * sin(0.37 * step);
#pragma omp parallel for
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++) {
                double xx = j * h - cx, yy = i * h - cy;
                b[i * W + j] = h * h * (0.1 + 50.0 * exp(-(xx * xx + yy * yy) / 0.01));
            }

        /* x = 0, r = p = b, rr = (r, r) */
#pragma omp parallel for
        for (int i = 1; i <= N; i++) {
            double s = 0.0;
            for (int j = 1; j <= N; j++) {
                const int k = i * W + j;
                x[k] = 0.0;
                r[k] = b[k];
                p[k] = b[k];
                s += b[k] * b[k];
            }
            part[i] = s;
        }
        double rr = 0.0;
        for (int i = 1; i <= N; i++)
            rr += part[i];
        const double stop = TOL * TOL * rr;

        int it = 0;
        while (rr > stop && it < MAXIT) {
            /* q = A p (5-point stencil; halo cells stay zero) */
#pragma omp parallel for
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++) {
                    const int k = i * W + j;
                    q[k] = 4.0 * p[k] - p[k - 1] - p[k + 1] - p[k - W] - p[k + W];
                }
            /* (p, q) by per-row partial sums */
#pragma omp parallel for
            for (int i = 1; i <= N; i++) {
                double s = 0.0;
                for (int j = 1; j <= N; j++)
                    s += p[i * W + j] * q[i * W + j];
                part[i] = s;
            }
            double pq = 0.0;
            for (int i = 1; i <= N; i++)
                pq += part[i];
            const double alpha = rr / pq;

#pragma omp parallel for
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++)
                    x[i * W + j] += alpha * p[i * W + j];
#pragma omp parallel for
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++)
                    r[i * W + j] -= alpha * q[i * W + j];

            /* (r, r) */
#pragma omp parallel for
            for (int i = 1; i <= N; i++) {
                double s = 0.0;
                for (int j = 1; j <= N; j++)
                    s += r[i * W + j] * r[i * W + j];
                part[i] = s;
            }
            double rr_new = 0.0;
            for (int i = 1; i <= N; i++)
                rr_new += part[i];
            const double beta = rr_new / rr;
            rr = rr_new;

#pragma omp parallel for
            for (int i = 1; i <= N; i++)
                for (int j = 1; j <= N; j++)
                    p[i * W + j] = r[i * W + j] + beta * p[i * W + j];
            it++;
        }
        total_iters += it;

        /* fold the solution into the checksum (sequential, fixed order) */
        double s = 0.0;
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                s += x[i * W + j] * (1.0 + 0.001 * ((i + 3 * j) % 17));
        checksum += s * (1.0 + 0.01 * step) + sqrt(rr);
    }

    checksum += 1e-3 * (double)total_iters;
    printf("checksum: %.12e\n", checksum);
    free(x); free(r); free(p); free(q); free(b); free(part);
    return 0;
}
