/* Jacobi iterations for the Laplace equation on a small square grid (hot top edge) until the largest change
 * falls below a tolerance or the iteration limit is reached. Usage: jacobi_small side tolerance max_iterations.
 * Prints the iterations done and the centre value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4 || atoi(argv[1]) < 3 || atof(argv[2]) <= 0 || atoi(argv[3]) < 1) {
        fprintf(stderr, "usage: %s side tolerance max_iterations\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), limit = atoi(argv[3]);
    double tol = atof(argv[2]);
    double *a = calloc((size_t)n * n, sizeof(double)), *b = calloc((size_t)n * n, sizeof(double));
    if (!a || !b) return 1;
    for (int j = 0; j < n; j++) a[j] = b[j] = 100.0;
    int it = 0;
    double change = tol + 1.0;
    while (change > tol && it < limit) {
        change = 0.0;
#pragma omp parallel for reduction(max : change)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                double x = 0.25 * (a[(i - 1) * n + j] + a[(i + 1) * n + j] + a[i * n + j - 1] + a[i * n + j + 1]);
                double c = fabs(x - a[i * n + j]);
                if (c > change) change = c;
                b[i * n + j] = x;
            }
        double *t = a; a = b; b = t;
        it++;
    }
    printf("iterations: %d\ncentre: %.9f\n", it, a[(n / 2) * n + n / 2]);
    free(a);
    free(b);
    return 0;
}
