/* Applies a chain of small dense matrices to a vector: v <- A_k v for k = 1..count, each A_k of size dim x dim
 * generated from k. Each product's rows are computed in parallel. Usage: tiny_mv dim count.
 * Prints the final vector's norm-like sum. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s dim count\n", argv[0]);
        return 2;
    }
    int d = atoi(argv[1]), count = atoi(argv[2]);
    double *v = malloc(sizeof(double) * d), *w = malloc(sizeof(double) * d);
    if (!v || !w) return 1;
    for (int i = 0; i < d; i++) v[i] = 1.0 / (i + 1);
    for (int k = 1; k <= count; k++) {
#pragma omp parallel for
        for (int i = 0; i < d; i++) {
            double s = 0.0;
            for (int j = 0; j < d; j++) s += v[j] * (((i * 31 + j * 17 + k) % 13) - 6) / (6.0 * d);
            w[i] = s + v[i];
        }
        double norm = 0.0;
        for (int i = 0; i < d; i++) norm += w[i] * w[i];
        norm = sqrt(norm);
        for (int i = 0; i < d; i++) v[i] = w[i] / norm;
    }
    double sum = 0.0;
    for (int i = 0; i < d; i++) sum += v[i];
    printf("sum of the final unit vector: %.9f\n", sum);
    free(v);
    free(w);
    return 0;
}
