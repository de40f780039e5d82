/* deriche: Deriche recursive edge filter: causal + anti-causal 2nd-order IIR passes along rows, then columns.
 * Category: medley (image processing, float).
 * Sizes: MIRTUNE_SIZE=1 -> W x H = 1500 x 1000, 2 passes; MIRTUNE_SIZE=2 -> 3000 x 2000, 2 passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define W 3000
#define H 2000
#define PASSES 2
#else
#define W 1500
#define H 1000
#define PASSES 2
#endif

int main(void)
{
    const float alpha = 0.25f;
    float *img = malloc(sizeof(float) * W * H);
    float *y1 = malloc(sizeof(float) * W * H);
    float *y2 = malloc(sizeof(float) * W * H);
    float *tmp = malloc(sizeof(float) * W * H);
    if (!img || !y1 || !y2 || !tmp)
        return 1;
    for (int i = 0; i < W; i++)
        for (int j = 0; j < H; j++)
            img[i * H + j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;

    const float k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha))
                    / (1.0f + 2.0f * alpha * expf(-alpha) - expf(2.0f * alpha));
    const float a1 = k, a5 = k;
    const float a2 = k * expf(-alpha) * (alpha - 1.0f), a6 = a2;
    const float a3 = k * expf(-alpha) * (alpha + 1.0f), a7 = a3;
    const float a4 = -k * expf(-2.0f * alpha), a8 = a4;
    const float b1 = powf(2.0f, -alpha), b2 = -expf(-2.0f * alpha);
    const float c1 = 1.0f, c2 = 1.0f;

    for (int pass = 0; pass < PASSES; pass++) {
        /* horizontal passes: one image row (index i, contiguous in j) per iteration */
#pragma omp parallel for
        for (int i = 0; i < W; i++) {
            float ym1 = 0.0f, ym2 = 0.0f, xm1 = 0.0f;
            for (int j = 0; j < H; j++) {
                const float x = img[i * H + j];
                const float y = a1 * x + a2 * xm1 + b1 * ym1 + b2 * ym2;
                y1[i * H + j] = y;
                xm1 = x;
                ym2 = ym1;
                ym1 = y;
            }
            float yp1 = 0.0f, yp2 = 0.0f, xp1 = 0.0f, xp2 = 0.0f;
            for (int j = H - 1; j >= 0; j--) {
                const float y = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
                y2[i * H + j] = y;
                xp2 = xp1;
                xp1 = img[i * H + j];
                yp2 = yp1;
                yp1 = y;
            }
            for (int j = 0; j < H; j++)
                tmp[i * H + j] = c1 * (y1[i * H + j] + y2[i * H + j]);
        }

        /* vertical passes: one column (index j, strided by H) per iteration */
#pragma omp parallel for
        for (int j = 0; j < H; j++) {
            float tm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
            for (int i = 0; i < W; i++) {
                const float t = tmp[i * H + j];
                const float y = a5 * t + a6 * tm1 + b1 * ym1 + b2 * ym2;
                y1[i * H + j] = y;
                tm1 = t;
                ym2 = ym1;
                ym1 = y;
            }
            float tp1 = 0.0f, tp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
            for (int i = W - 1; i >= 0; i--) {
                const float y = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
                y2[i * H + j] = y;
                tp2 = tp1;
                tp1 = tmp[i * H + j];
                yp2 = yp1;
                yp1 = y;
            }
            for (int i = 0; i < W; i++)
                img[i * H + j] = c2 * (y1[i * H + j] + y2[i * H + j]);
        }
    }

    double sum = 0.0;
    for (long idx = 0; idx < (long)W * H; idx++)
        sum += (double)img[idx] * (double)(1 + idx % 7);
    printf("checksum: %.12e\n", sum);
    free(img); free(y1); free(y2); free(tmp);
    return 0;
}
