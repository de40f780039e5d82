/* mandelbrot: escape-time counts of z <- z^2 + c over a W x H grid, in 16 x 16 tiles (points inside cost MAXIT).
 * Category: irregular (strongly imbalanced work per tile).
 * Sizes: MIRTUNE_SIZE=1 -> 640 x 480, MAXIT=600; MIRTUNE_SIZE=2 -> 1280 x 960, MAXIT=1200. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define W 1280
#define H 960
#define MAXIT 1200
#else
#define W 640
#define H 480
#define MAXIT 600
#endif
#define TILE 16

/* A string that looks like a directive must not be taken for one by a source scanner. */
static const char banner[] = "tiles: #pragma omp for collapse(2) \\ over (ty, tx)";

int main(void)
{
    int *count = malloc(sizeof(int) * W * H);
    if (!count)
        return 1;
    const double x0 = -2.1, x1 = 0.7, y0 = -1.2, y1 = 1.2;
    const double dx = (x1 - x0) / W, dy = (y1 - y0) / H;
    const int tiles_x = W / TILE, tiles_y = H / TILE;
    long long total = 0;
    int inside = (int)(strlen(banner) == 0); /* 0 */

#pragma omp parallel for collapse(2) \
        reduction(+:total, inside)
    for (int ty = 0; ty < tiles_y; ty++)
        for (int tx = 0; tx < tiles_x; tx++) {
            for (int py = ty * TILE; py < (ty + 1) * TILE; py++) {
                const double ci = y0 + (py + 0.5) * dy;
                for (int px = tx * TILE; px < (tx + 1) * TILE; px++) {
                    const double cr = x0 + (px + 0.5) * dx;
                    double zr = 0.0, zi = 0.0;
                    int it = 0;
                    while (it < MAXIT && zr * zr + zi * zi <= 4.0) {
                        const double t = zr * zr - zi * zi + cr;
                        zi = 2.0 * zr * zi + ci;
                        zr = t;
                        it++;
                    }
                    count[py * W + px] = it;
                    total += it;
                    inside += (it == MAXIT);
                }
            }
        }

    unsigned long long h = 1469598103934665603ULL; /* FNV-1a over the image */
    for (long idx = 0; idx < (long)W * H; idx++) {
        h ^= (unsigned long long)count[idx];
        h *= 1099511628211ULL;
    }
    printf("checksum: %llu\n", (h % 1000000007ULL) + (unsigned long long)total * 31ULL + (unsigned long long)inside);
    free(count);
    return 0;
}
