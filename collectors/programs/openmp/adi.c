/* adi: Peaceman-Rachford ADI steps of the 2-D heat equation: a tridiagonal (Thomas) solve per row, then per column.
 * Category: stencil (implicit line sweeps).
 * Sizes: MIRTUNE_SIZE=1 -> N=500, 24 steps; MIRTUNE_SIZE=2 -> N=1000, 20 steps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1000
#define TSTEPS 20
#else
#define N 500
#define TSTEPS 24
#endif

/* Solve a x[k-1] + b x[k] + a x[k+1] = d[k] for k = 1..n-2 with x[0], x[n-1] given.
 * x and d are accessed with a stride; cp and dp are scratch of length n. */
static void thomas(double a, double b, const double *d, double *x, long stride, int n,
                   double *cp, double *dp)
{
    cp[1] = a / b;
    dp[1] = (d[1 * stride] - a * x[0]) / b;
    for (int k = 2; k < n - 1; k++) {
        double rhs = d[k * stride];
        if (k == n - 2)
            rhs -= a * x[(long)(n - 1) * stride];
        const double m = b - a * cp[k - 1];
        cp[k] = a / m;
        dp[k] = (rhs - a * dp[k - 1]) / m;
    }
    x[(long)(n - 2) * stride] = dp[n - 2];
    for (int k = n - 3; k >= 1; k--)
        x[k * stride] = dp[k] - cp[k] * x[(k + 1) * stride];
}

int main(void)
{
    const double r = 0.8;          /* dt / dx^2 */
    const double a = -0.5 * r, b = 1.0 + r;
    double *u = malloc(sizeof(double) * N * N);
    double *v = malloc(sizeof(double) * N * N);
    double *rhs = malloc(sizeof(double) * N * N);
    if (!u || !v || !rhs)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double val = (double)((i * 7 + j * 13) % 50) / 50.0;
            if (i == 0 || j == 0)
                val = 1.0;                /* hot edges */
            if (i == N - 1 || j == N - 1)
                val = 0.0;                /* cold edges */
            u[i * N + j] = v[i * N + j] = val;
        }

    for (int t = 0; t < TSTEPS; t++) {
#pragma omp parallel
        {
            double *cp = malloc(sizeof(double) * N);
            double *dp = malloc(sizeof(double) * N);
            /* half step 1: implicit along j (rows), explicit along i */
#pragma omp for
            for (int i = 1; i < N - 1; i++) {
                for (int j = 1; j < N - 1; j++)
                    rhs[i * N + j] = 0.5 * r * u[(i - 1) * N + j] + (1.0 - r) * u[i * N + j]
                                     + 0.5 * r * u[(i + 1) * N + j];
                thomas(a, b, &rhs[i * N], &v[i * N], 1, N, cp, dp);
            }
            /* half step 2: implicit along i (columns), explicit along j */
#pragma omp for
            for (int j = 1; j < N - 1; j++) {
                for (int i = 1; i < N - 1; i++)
                    rhs[i * N + j] = 0.5 * r * v[i * N + j - 1] + (1.0 - r) * v[i * N + j]
                                     + 0.5 * r * v[i * N + j + 1];
                thomas(a, b, &rhs[j], &u[j], N, N, cp, dp);
            }
            free(cp);
            free(dp);
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)N * N; idx++)
        sum += u[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(u); free(v); free(rhs);
    return 0;
}
