/* 2-D heat diffusion (5-point Jacobi stencil) with OpenMP, written the way OpenMP code usually is:
 * worksharing loops without a schedule clause. Size: -DN=<grid side> (default 512), -DSTEPS=<steps>.
 * Prints `checksum: <sum of the final grid>`. Shipped as mirtune's example program. */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
#define N 512
#endif
#ifndef STEPS
#define STEPS 50
#endif

static void init(double *g, int n) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            g[i * n + j] = (i == 0 || j == 0 || i == n - 1 || j == n - 1) ? 100.0 : (double)((i * 7 + j * 13) % 17);
}

static void step(const double *restrict src, double *restrict dst, int n, double alpha) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            dst[i * n + j] = src[i * n + j] + alpha * (src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                                                       src[i * n + j - 1] + src[i * n + j + 1] -
                                                       4.0 * src[i * n + j]);
}

int main(void) {
    double *a = malloc(sizeof(double) * N * N), *b = malloc(sizeof(double) * N * N);
    if (!a || !b) return 1;
    init(a, N);
    init(b, N);
    for (int t = 0; t < STEPS; t++) {
        step(a, b, N, 0.1);
        double *tmp = a; a = b; b = tmp;
    }
    double sum = 0.0;
    for (int i = 0; i < N * N; i++) sum += a[i];
    printf("checksum: %.12e\n", sum);
    free(a);
    free(b);
    return 0;
}
