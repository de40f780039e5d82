/*
 * median_stack: per-pixel temporal median of a stack of noisy greyscale
 * frames, followed by an unsharp-mask style 3x3 sharpening.
 *
 * usage: median_stack STACK OUT.pgm PASSES
 *
 * The stack file is "STK1", uint32 width, height, frame count (little
 * endian), then the frames one after the other, 8 bits per pixel.
 * Each pass recomputes the median image and sharpens it with its own
 * strength (growing from pass to pass); one summary line per pass.
 * The image of the last pass is written as a binary PGM.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 255
#define MAX_SIDE 16384

typedef struct {
    int w, h, nf;
    unsigned char *data; /* nf * w * h */
} Stack;

static uint32_t rd_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static int load_stack(const char *path, Stack *st)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "median_stack: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char hdr[16];
    if (fread(hdr, 1, 16, f) != 16 || memcmp(hdr, "STK1", 4) != 0) {
        fprintf(stderr, "median_stack: %s: not a frame stack file\n", path);
        fclose(f);
        return -1;
    }
    uint32_t w = rd_u32(hdr + 4), h = rd_u32(hdr + 8), nf = rd_u32(hdr + 12);
    if (w < 3 || h < 3 || w > MAX_SIDE || h > MAX_SIDE || nf < 1 || nf > MAX_FRAMES) {
        fprintf(stderr, "median_stack: %s: bad header (%ux%u, %u frames)\n", path, w, h, nf);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)w * h * nf;
    st->data = malloc(n);
    if (!st->data) {
        fprintf(stderr, "median_stack: out of memory\n");
        fclose(f);
        return -1;
    }
    size_t got = fread(st->data, 1, n, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != n || extra != EOF) {
        fprintf(stderr, "median_stack: %s: pixel data has wrong size\n", path);
        free(st->data);
        return -1;
    }
    st->w = (int)w;
    st->h = (int)h;
    st->nf = (int)nf;
    return 0;
}

/* median of the nf samples of every pixel, row by row */
static void median_image(const Stack *st, unsigned char *med)
{
    const int w = st->w, h = st->h, nf = st->nf;
    const size_t plane = (size_t)w * h;

#pragma omp parallel for
    for (int y = 0; y < h; y++) {
        unsigned char v[MAX_FRAMES];
        for (int x = 0; x < w; x++) {
            size_t idx = (size_t)y * w + x;
            /* insertion sort of the samples of this pixel */
            for (int k = 0; k < nf; k++) {
                unsigned char s = st->data[(size_t)k * plane + idx];
                int j = k - 1;
                while (j >= 0 && v[j] > s) {
                    v[j + 1] = v[j];
                    j--;
                }
                v[j + 1] = s;
            }
            med[idx] = v[(nf - 1) / 2];
        }
    }
}

/* out = in + strength * (in - mean of the 3x3 neighbourhood), clamped */
static void sharpen(const unsigned char *in, unsigned char *out, int w, int h, float strength)
{
#pragma omp parallel for
    for (int y = 0; y < h; y++) {
        int ym = y > 0 ? y - 1 : 0;
        int yp = y < h - 1 ? y + 1 : h - 1;
        const unsigned char *r0 = in + (size_t)ym * w;
        const unsigned char *r1 = in + (size_t)y * w;
        const unsigned char *r2 = in + (size_t)yp * w;
        for (int x = 0; x < w; x++) {
            int xm = x > 0 ? x - 1 : 0;
            int xp = x < w - 1 ? x + 1 : w - 1;
            int sum = r0[xm] + r0[x] + r0[xp] + r1[xm] + r1[x] + r1[xp] +
                      r2[xm] + r2[x] + r2[xp];
            float c = (float)r1[x];
            float v = c + strength * (c - (float)sum / 9.0f);
            int iv = (int)(v + 0.5f);
            if (v < 0.0f)
                iv = 0;
            if (iv > 255)
                iv = 255;
            out[(size_t)y * w + x] = (unsigned char)iv;
        }
    }
}

static int write_pgm(const char *path, const unsigned char *img, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "median_stack: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "P5\n%d %d\n255\n", w, h);
    size_t n = (size_t)w * h;
    int ok = fwrite(img, 1, n, f) == n;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "median_stack: error writing %s\n", path);
        return -1;
    }
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long passes;
    if (argc != 4 || parse_int(argv[3], 1, 100000, &passes) != 0) {
        fprintf(stderr, "usage: %s STACK OUT.pgm PASSES   (PASSES >= 1)\n", argv[0]);
        return 2;
    }

    Stack st;
    if (load_stack(argv[1], &st) != 0)
        return 1;

    const int w = st.w, h = st.h;
    const size_t npix = (size_t)w * h;
    unsigned char *med = malloc(npix);
    unsigned char *out = malloc(npix);
    if (!med || !out) {
        fprintf(stderr, "median_stack: out of memory\n");
        return 1;
    }

    printf("stack: %d frames of %dx%d\n", st.nf, w, h);

    for (long p = 0; p < passes; p++) {
        float strength = 2.0f * (float)(p + 1) / (float)passes;

        median_image(&st, med);
        sharpen(med, out, w, h, strength);

        long long sum = 0;
        long hist[8] = {0};
#pragma omp parallel for reduction(+ : sum, hist[:8])
        for (int y = 0; y < h; y++) {
            const unsigned char *row = out + (size_t)y * w;
            for (int x = 0; x < w; x++) {
                sum += row[x];
                hist[row[x] >> 5]++;
            }
        }

        printf("pass %3ld strength %.3f mean %8.3f hist", p + 1, strength,
               (double)sum / (double)npix);
        for (int b = 0; b < 8; b++)
            printf(" %ld", hist[b]);
        printf("\n");
    }

    /* five brightest pixels of the final image; ties go to the earlier pixel */
    size_t best[5];
    int nbest = 0;
    for (size_t i = 0; i < npix; i++) {
        if (nbest == 5 && out[i] <= out[best[4]])
            continue;
        int j = nbest < 5 ? nbest++ : 4;
        while (j > 0 && out[best[j - 1]] < out[i]) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = i;
    }
    printf("brightest:");
    for (int k = 0; k < nbest; k++)
        printf(" (%zu,%zu)=%d", best[k] % (size_t)w, best[k] / (size_t)w, out[best[k]]);
    printf("\n");

    if (write_pgm(argv[2], out, w, h) != 0)
        return 1;
    printf("wrote %s\n", argv[2]);

    free(med);
    free(out);
    free(st.data);
    return 0;
}
