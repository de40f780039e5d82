/* fdtd_2d: 2-D FDTD: Ey -= 0.5 dHz/dx, Ex -= 0.5 dHz/dy, Hz -= 0.7 (dEx/dy + dEy/dx), source on row 0.
 * Category: stencil (three coupled fields).
 * Sizes: MIRTUNE_SIZE=1 -> NX x NY = 600 x 700, 150 steps; MIRTUNE_SIZE=2 -> 1000 x 1200, 270 steps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NX 1000
#define NY 1200
#define TMAX 270
#else
#define NX 600
#define NY 700
#define TMAX 150
#endif

int main(void)
{
    double *ex = malloc(sizeof(double) * NX * NY);
    double *ey = malloc(sizeof(double) * NX * NY);
    double *hz = malloc(sizeof(double) * NX * NY);
    double *fict = malloc(sizeof(double) * TMAX);
    if (!ex || !ey || !hz || !fict)
        return 1;
    for (int t = 0; t < TMAX; t++)
        fict[t] = (double)t;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++) {
            ex[i * NY + j] = ((double)i * (j + 1)) / NX;
            ey[i * NY + j] = ((double)i * (j + 2)) / NY;
            hz[i * NY + j] = ((double)i * (j + 3)) / NX;
        }

    for (int t = 0; t < TMAX; t++) {
#pragma omp parallel
        {
#pragma omp for nowait
            for (int j = 0; j < NY; j++)
                ey[j] = fict[t];
#pragma omp for nowait
            for (int i = 1; i < NX; i++)
                for (int j = 0; j < NY; j++)
                    ey[i * NY + j] -= 0.5 * (hz[i * NY + j] - hz[(i - 1) * NY + j]);
#pragma omp for
            for (int i = 0; i < NX; i++)
                for (int j = 1; j < NY; j++)
                    ex[i * NY + j] -= 0.5 * (hz[i * NY + j] - hz[i * NY + j - 1]);
            /* Hz needs the finished Ex and Ey: the loop above ends with a barrier,
             * and the two nowait loops before it finish before that barrier too. */
#pragma omp for
            for (int i = 0; i < NX - 1; i++)
                for (int j = 0; j < NY - 1; j++)
                    hz[i * NY + j] -= 0.7 * (ex[i * NY + j + 1] - ex[i * NY + j]
                                             + ey[(i + 1) * NY + j] - ey[i * NY + j]);
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)NX * NY; idx++)
        sum += hz[idx] * (double)(1 + idx % 3) + ex[idx] + ey[idx];
    printf("checksum: %.12e\n", sum);
    free(ex); free(ey); free(hz); free(fict);
    return 0;
}
