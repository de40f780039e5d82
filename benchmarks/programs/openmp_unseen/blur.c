/*
 * blur.c - unsharp masking of a synthetic RGB image: repeated separable Gaussian blur,
 * then sharpened = original + amount * (original - blurred), clamped to [0,1].
 *
 * usage: blur <width> <height> <radius> <passes> [amount]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static float noise(uint32_t x, uint32_t y, uint32_t c)
{
    uint32_t h = x * 374761393u + y * 668265263u + c * 2147483647u;
    h = (h ^ (h >> 13)) * 1274126177u;
    h ^= h >> 16;
    return (float)(h & 0xffff) / 65535.0f;
}

static void make_image(float *img, int w, int h)
{
    for (int c = 0; c < 3; c++)
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                float fx = (float)x / w, fy = (float)y / h;
                float v = 0.35f * fx + 0.25f * fy * (float)(c + 1) / 3.0f;
                /* a few discs and stripes */
                for (int k = 0; k < 5; k++) {
                    float cx = 0.15f + 0.17f * k, cy = 0.3f + 0.1f * (k % 3), r = 0.05f + 0.02f * k;
                    float dx = fx - cx, dy = fy - cy;
                    if (dx * dx + dy * dy < r * r)
                        v += 0.3f - 0.1f * c + 0.05f * k;
                }
                if (((x / 24) + (y / 40)) % 7 == c)
                    v += 0.15f;
                v += 0.12f * (noise((uint32_t)x, (uint32_t)y, (uint32_t)c) - 0.5f);
                img[((size_t)c * h + y) * w + x] = v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
            }
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6) {
        fprintf(stderr, "usage: %s <width> <height> <radius> <passes> [amount]\n", argv[0]);
        fprintf(stderr, "  e.g. %s 2048 2048 4 6 1.5\n", argv[0]);
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), r = atoi(argv[3]), passes = atoi(argv[4]);
    float amount = argc == 6 ? (float)atof(argv[5]) : 1.5f;
    if (w < 16 || h < 16 || w > 20000 || h > 20000 || r < 1 || r > 64 || passes < 1 || !(amount >= 0.0f)) {
        fprintf(stderr, "%s: bad arguments\n", argv[0]);
        return 2;
    }
    size_t npix = (size_t)w * h;
    float *orig = malloc(3 * npix * sizeof(float));
    float *a = malloc(3 * npix * sizeof(float));
    float *tmp = malloc(3 * npix * sizeof(float));
    float *kern = malloc((2 * r + 1) * sizeof(float));
    if (!orig || !a || !tmp || !kern) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    make_image(orig, w, h);

    /* normalised Gaussian, sigma = radius / 2 */
    float sigma = r / 2.0f, ksum = 0.0f;
    for (int i = -r; i <= r; i++) {
        kern[i + r] = expf(-(float)(i * i) / (2.0f * sigma * sigma));
        ksum += kern[i + r];
    }
    for (int i = 0; i <= 2 * r; i++)
        kern[i] /= ksum;

#pragma omp parallel
    {
        const float *src = orig;
        for (int p = 0; p < passes; p++) {
            /* horizontal pass: src -> tmp */
#pragma omp for collapse(2)
            for (int c = 0; c < 3; c++)
                for (int y = 0; y < h; y++) {
                    const float *in = &src[((size_t)c * h + y) * w];
                    float *out = &tmp[((size_t)c * h + y) * w];
                    for (int x = 0; x < w; x++) {
                        float s = 0.0f;
                        if (x >= r && x < w - r) {
                            for (int k = -r; k <= r; k++)
                                s += kern[k + r] * in[x + k];
                        } else {
                            for (int k = -r; k <= r; k++) {
                                int xx = x + k;
                                xx = xx < 0 ? 0 : (xx >= w ? w - 1 : xx);
                                s += kern[k + r] * in[xx];
                            }
                        }
                        out[x] = s;
                    }
                }

            /* vertical pass: tmp -> a */
#pragma omp for collapse(2)
            for (int c = 0; c < 3; c++)
                for (int y = 0; y < h; y++) {
                    float *out = &a[((size_t)c * h + y) * w];
                    for (int x = 0; x < w; x++)
                        out[x] = 0.0f;
                    for (int k = -r; k <= r; k++) {
                        int yy = y + k;
                        yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
                        const float *in = &tmp[((size_t)c * h + yy) * w];
                        float wk = kern[k + r];
                        for (int x = 0; x < w; x++)
                            out[x] += wk * in[x];
                    }
                }
            src = a;
        }
    } /* end parallel */

    /* unsharp mask, written into tmp */
    long clipped = 0;
#pragma omp parallel for reduction(+:clipped)
    for (size_t i = 0; i < 3 * npix; i++) {
        float v = orig[i] + amount * (orig[i] - a[i]);
        if (v < 0.0f) {
            v = 0.0f;
            clipped++;
        } else if (v > 1.0f) {
            v = 1.0f;
            clipped++;
        }
        tmp[i] = v;
    }

    printf("image %d x %d x 3, gaussian radius %d, %d pass(es), amount %.2f\n", w, h, r, passes, amount);
    const char *names[3] = {"red", "green", "blue"};
    for (int c = 0; c < 3; c++) {
        double sb = 0.0, ss = 0.0, diff = 0.0;
        for (size_t i = (size_t)c * npix; i < (size_t)(c + 1) * npix; i++) {
            sb += a[i];
            ss += tmp[i];
            diff += fabs((double)tmp[i] - orig[i]);
        }
        printf("%-6s mean blurred %.6f  mean sharpened %.6f  mean |change| %.6f\n", names[c], sb / npix, ss / npix,
               diff / npix);
    }
    printf("clipped samples: %ld (%.3f%%)\n", clipped, 100.0 * clipped / (3.0 * npix));

    /* luminance histogram of the sharpened image */
    long hist[10] = {0};
    for (size_t i = 0; i < npix; i++) {
        float lum = 0.299f * tmp[i] + 0.587f * tmp[npix + i] + 0.114f * tmp[2 * npix + i];
        int b = (int)(lum * 10.0f);
        hist[b > 9 ? 9 : (b < 0 ? 0 : b)]++;
    }
    printf("luminance histogram:\n");
    for (int b = 0; b < 10; b++) {
        int bar = (int)(60.0 * hist[b] / npix + 0.5);
        printf("  [%.1f,%.1f) %9ld ", b / 10.0, (b + 1) / 10.0, hist[b]);
        for (int k = 0; k < bar; k++)
            putchar('#');
        putchar('\n');
    }
    free(orig);
    free(a);
    free(tmp);
    free(kern);
    return 0;
}
