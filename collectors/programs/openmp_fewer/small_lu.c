/* LU-factorises a sequence of small dense matrices without pivoting (diagonally dominant, generated from their
 * index); each elimination step updates the trailing rows in parallel. Usage: small_lu size count.
 * Prints the sum of the log-determinants. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 2 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s size count\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), count = atoi(argv[2]);
    double *a = malloc(sizeof(double) * n * n);
    if (!a) return 1;
    double logdet = 0.0;
    for (int m = 0; m < count; m++) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) a[i * n + j] = (i == j) ? 2.0 * n : (double)(((i + 3 * j + m) % 7) - 3) / 7.0;
        for (int k = 0; k < n - 1; k++) {
#pragma omp parallel for
            for (int i = k + 1; i < n; i++) {
                double f = a[i * n + k] / a[k * n + k];
                for (int j = k; j < n; j++) a[i * n + j] -= f * a[k * n + j];
            }
        }
        for (int i = 0; i < n; i++) logdet += log(fabs(a[i * n + i]));
    }
    printf("matrices: %d\nsum of log-determinants: %.9f\n", count, logdet);
    free(a);
    return 0;
}
