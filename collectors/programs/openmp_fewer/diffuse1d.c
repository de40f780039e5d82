/* Explicit 1-D heat diffusion on a short rod, many time steps: the time loop is sequential and each step's
 * update loop is parallel. Usage: diffuse1d points steps. Prints the rod's mean and its middle temperature. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 3 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s points steps\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), steps = atoi(argv[2]);
    double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
    if (!u || !v) return 1;
    for (int i = 0; i < n; i++) u[i] = (i < n / 4) ? 100.0 : 0.0;
    for (int t = 0; t < steps; t++) {
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++) v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        v[0] = u[0];
        v[n - 1] = u[n - 1];
        double *w = u; u = v; v = w;
    }
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += u[i];
    printf("mean temperature: %.9f\nmiddle: %.9f\n", sum / n, u[n / 2]);
    free(u);
    free(v);
    return 0;
}
