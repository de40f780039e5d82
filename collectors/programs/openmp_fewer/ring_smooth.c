/* Repeatedly smooths the values on a ring (each becomes the mean of itself and its two neighbours) and reports
 * how far they are from their mean. Usage: ring_smooth size rounds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 3 || atoi(argv[1]) < 3 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: %s size rounds\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), rounds = atoi(argv[2]);
    float *a = malloc(sizeof(float) * n), *b = malloc(sizeof(float) * n);
    if (!a || !b) return 1;
    for (int i = 0; i < n; i++) a[i] = (float)((i * 37) % 101);
    for (int r = 0; r < rounds; r++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++) b[i] = (a[(i + n - 1) % n] + a[i] + a[(i + 1) % n]) / 3.0f;
        float *t = a; a = b; b = t;
    }
    double mean = 0.0, spread = 0.0;
    for (int i = 0; i < n; i++) mean += a[i];
    mean /= n;
    for (int i = 0; i < n; i++) spread = fmax(spread, fabs(a[i] - mean));
    printf("mean: %.6f\nlargest distance from the mean: %.6f\n", mean, spread);
    free(a);
    free(b);
    return 0;
}
