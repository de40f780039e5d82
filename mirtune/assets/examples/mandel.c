/* The Mandelbrot set over the upper half of the plane, written the way OpenMP code usually is: one worksharing
 * loop over the rows, no schedule clause. Rows near the real axis cross the set and cost far more than rows near
 * the top, so how the rows are spread over the threads decides the run time.
 * Usage: mandel [width] [height] [max_iterations]   (default 1200 600 2000)
 * Prints the number of points in the set and the total iteration count. Shipped as mirtune's demo program. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int width = argc > 1 ? atoi(argv[1]) : 1200;
    int height = argc > 2 ? atoi(argv[2]) : 600;
    int max_iter = argc > 3 ? atoi(argv[3]) : 2000;
    if (width <= 0 || height <= 0 || max_iter <= 0) {
        fprintf(stderr, "usage: %s [width] [height] [max_iterations] (positive integers)\n", argv[0]);
        return 2;
    }
    long inside = 0, total = 0;
#pragma omp parallel for reduction(+ : inside, total)
    for (int row = 0; row < height; row++) {
        double ci = 1.25 * row / height;  /* 0 (the real axis) .. 1.25 */
        for (int col = 0; col < width; col++) {
            double cr = -2.0 + 2.6 * col / width, zr = 0.0, zi = 0.0;
            int k = 0;
            while (k < max_iter && zr * zr + zi * zi <= 4.0) {
                double t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k++;
            }
            inside += k == max_iter;
            total += k;
        }
    }
    printf("inside: %ld\niterations: %ld\n", inside, total);
    return 0;
}
