/* jacobi_1d: TSTEPS sweeps of B[i] = (A[i-1] + A[i] + A[i+1]) / 3, then A from B, in blocks of 512 points.
 * Category: stencil (1-D, 3 points).
 * Sizes: MIRTUNE_SIZE=1 -> N=400000, 280 steps; MIRTUNE_SIZE=2 -> N=1000000, 600 steps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 1000000
#define TSTEPS 600
#else
#define N 400000
#define TSTEPS 280
#endif
#define BLK 512
#define NBLK ((N + BLK - 1) / BLK)

int main(void)
{
    double *A = malloc(sizeof(double) * N);
    double *B = malloc(sizeof(double) * N);
    if (!A || !B)
        return 1;
    for (int i = 0; i < N; i++) {
        A[i] = (double)((i * 37) % 101) / 101.0;
        B[i] = (double)((i * 53 + 7) % 103) / 103.0;
    }

    /* Every thread walks the time loop; the barrier at the end of each
     * work-shared loop orders the two half steps. */
#pragma omp parallel default(none) \
    shared(A, B)
    {
        for (int t = 0; t < TSTEPS; t++) {
            /* blocks of BLK points, interior points 1 .. N-2 */
#pragma omp for
            for (int b = 0; b < NBLK; b++) {
                const int lo = b * BLK > 1 ? b * BLK : 1;
                const int hi = (b + 1) * BLK < N - 1 ? (b + 1) * BLK : N - 1;
                for (int i = lo; i < hi; i++)
                    B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
            }
#pragma omp for
            for (int b = 0; b < NBLK; b++) {
                const int lo = b * BLK > 1 ? b * BLK : 1;
                const int hi = (b + 1) * BLK < N - 1 ? (b + 1) * BLK : N - 1;
                for (int i = lo; i < hi; i++)
                    A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
            }
        }
    }

    double sum = 0.0;
    for (int i = 0; i < N; i++)
        sum += A[i] * (double)(1 + i % 3);
    printf("checksum: %.12e\n", sum);
    free(A); free(B);
    return 0;
}
