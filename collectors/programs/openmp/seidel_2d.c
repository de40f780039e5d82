/* seidel_2d: in-place Gauss-Seidel sweeps of the 9-point average on an N x N grid, as a tiled wavefront in
 * (i, 2i + j) that reproduces the sequential sweep bit for bit. Category: stencil.
 * Sizes: MIRTUNE_SIZE=1 -> N=1000, 55 sweeps; MIRTUNE_SIZE=2 -> N=2000, 55 sweeps. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2000
#define TSTEPS 55
#else
#define N 1000
#define TSTEPS 55
#endif
#define TI 32 /* rows per tile */
#define TW 64 /* waves per tile */
#define WMIN 3                       /* w = 2i + j over the interior 1..N-2 */
#define WMAX (3 * (N - 2))
#define NTI ((N - 2 + TI - 1) / TI)
#define NTW ((WMAX - WMIN + 1 + TW - 1) / TW)

/* Point (i, j) reads new values of (i-1, j-1..j+1) and (i, j-1), and old values of (i, j+1) and
 * (i+1, j-1..j+1). In the skewed coordinates (i, w = 2i + j) every value it needs new has a smaller w
 * and an i no larger; every value it needs old has a larger w and an i no smaller. Tiles of TI rows by
 * TW waves, each swept in increasing w, therefore only depend on tiles (I-1, K), (I, K-1), (I-1, K-1):
 * all tiles with the same I + K can run at once, and the result equals the sequential row-major sweep
 * bit for bit. */
int main(void)
{
    double *A = malloc(sizeof(double) * N * N);
    if (!A)
        return 1;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i * N + j] = (double)((i * j) % 29 + (3 * i + j) % 31) / 30.0;

#pragma omp parallel
    {
        for (int t = 0; t < TSTEPS; t++) {
            for (int s = 0; s <= NTI - 1 + NTW - 1; s++) {
                const int first = s - (NTW - 1) > 0 ? s - (NTW - 1) : 0;
                const int last = s < NTI - 1 ? s : NTI - 1;
#pragma omp for
                for (int ti = first; ti <= last; ti++) {
                    const int tw = s - ti;
                    const int i0 = 1 + ti * TI;
                    const int i1 = i0 + TI < N - 1 ? i0 + TI : N - 1;
                    const int w0 = WMIN + tw * TW;
                    const int w1 = w0 + TW < WMAX + 1 ? w0 + TW : WMAX + 1;
                    for (int w = w0; w < w1; w++) {
                        /* rows of this wave inside the tile with 1 <= j = w - 2i <= N-2 */
                        int lo = w - (N - 2) > 0 ? (w - (N - 2) + 1) / 2 : 0;
                        int hi = (w - 1) / 2;
                        if (lo < i0)
                            lo = i0;
                        if (hi > i1 - 1)
                            hi = i1 - 1;
                        for (int i = lo; i <= hi; i++) {
                            double *c = &A[i * N + (w - 2 * i)];
                            c[0] = (c[-N - 1] + c[-N] + c[-N + 1]
                                    + c[-1] + c[0] + c[1]
                                    + c[N - 1] + c[N] + c[N + 1]) / 9.0;
                        }
                    }
                }
            }
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)N * N; idx++)
        sum += A[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(A);
    return 0;
}
