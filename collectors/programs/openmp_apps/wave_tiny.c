/* wave_tiny: 1-D acoustic wave equation (leapfrog, heterogeneous speed, sponge layers) driven by a repeated Ricker source, with a peak-amplitude envelope.
 * Category: tiny stencil (two short parallel loops per time step over a few thousand points in blocks of 256; fork/join overhead dominates).
 * Sizes: MIRTUNE_SIZE=1 -> N=3000 points, 50000 steps; MIRTUNE_SIZE=2 -> N=6000 points, 110000 steps. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 6000
#define STEPS 110000
#else
#define N 3000
#define STEPS 50000
#endif
#define SPONGE 250   /* width of the absorbing layer at each end */
#define PERIOD 1500  /* a new wavelet is fired every PERIOD steps */
#define BLOCK 256    /* points per loop iteration */
#define NBLK (N / BLOCK) /* the last block also takes the remainder */

int main(void)
{
    const double pi = 3.14159265358979323846;
    double *uold = malloc(sizeof(double) * N);
    double *u = malloc(sizeof(double) * N);
    double *unew = malloc(sizeof(double) * N);
    double *r2 = malloc(sizeof(double) * N);   /* (c dt / dx)^2 per point */
    double *damp = malloc(sizeof(double) * N); /* sponge coefficient per point */
    double *amax = malloc(sizeof(double) * N); /* running peak |u| per point */
    if (!uold || !u || !unew || !r2 || !damp || !amax)
        return 1;

    /* Layered medium: the Courant number varies between about 0.5 and 0.9. */
    for (int i = 0; i < N; i++) {
        const double x = (double)i / (double)(N - 1);
        const double c = 0.7 + 0.15 * sin(7.0 * pi * x) + 0.05 * (double)((i / 97) % 3 - 1);
        r2[i] = c * c;
        double g = 0.0;
        if (i < SPONGE)
            g = (double)(SPONGE - i) / SPONGE;
        else if (i >= N - SPONGE)
            g = (double)(i - (N - SPONGE - 1)) / SPONGE;
        damp[i] = 0.08 * g * g;
        const double d = (x - 0.3) / 0.02;
        u[i] = 0.5 * exp(-d * d);
        uold[i] = u[i];
        unew[i] = 0.0;
        amax[i] = fabs(u[i]);
    }

    const int src = (2 * N) / 3;
    const double f0 = 0.01; /* dominant frequency in cycles per step */
    for (int n = 0; n < STEPS; n++) {
#pragma omp parallel for
        for (int b = 0; b < NBLK; b++) {
            const int lo = (b == 0) ? 1 : b * BLOCK;
            const int hi = (b == NBLK - 1) ? N - 1 : (b + 1) * BLOCK;
            for (int i = lo; i < hi; i++) {
                const double lap = u[i + 1] - 2.0 * u[i] + u[i - 1];
                unew[i] = (2.0 * u[i] - (1.0 - damp[i]) * uold[i] + r2[i] * lap) / (1.0 + damp[i]);
            }
        }
        unew[0] = 0.0;
        unew[N - 1] = 0.0;

        /* Ricker wavelet, refired every PERIOD steps (computed once per step, sequentially). */
        const double tau = (double)(n % PERIOD - 150) * pi * f0;
        unew[src] += 0.02 * (1.0 - 2.0 * tau * tau) * exp(-tau * tau);

#pragma omp parallel for
        for (int b = 0; b < NBLK; b++) {
            const int hi = (b == NBLK - 1) ? N : (b + 1) * BLOCK;
            for (int i = b * BLOCK; i < hi; i++) {
                const double a = fabs(unew[i]);
                if (a > amax[i])
                    amax[i] = a;
            }
        }

        double *tmp = uold;
        uold = u;
        u = unew;
        unew = tmp;
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += u[i] * (double)(1 + i % 11) + 0.1 * amax[i];
    printf("checksum: %.12e\n", sum);
    free(uold); free(u); free(unew); free(r2); free(damp); free(amax);
    return 0;
}
