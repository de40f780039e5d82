/* wavelet_denoise: translation-invariant (cycle-spun) denoising of a greyscale
 * PGM image with a 6-level 2-D integer Haar (S-transform) wavelet and soft
 * thresholding of the detail coefficients.  Prints error statistics against a
 * clean reference image and writes the denoised image as PGM.
 *
 * usage: wavelet_denoise noisy.pgm clean.pgm threshold spins out.pgm
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVELS 6
#define STRIP 64

typedef struct {
    int w, h;
    unsigned char *px;
} Image;

static int read_token(FILE *f, char *buf, int cap)
{
    int c, n = 0;
    for (;;) {
        c = fgetc(f);
        if (c == EOF) return 0;
        if (c == '#') {
            while (c != '\n' && c != EOF) c = fgetc(f);
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    }
    while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        if (n + 1 < cap) buf[n++] = (char)c;
        c = fgetc(f);
    }
    buf[n] = 0;
    return 1;
}

static int read_pgm(const char *path, Image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "wavelet_denoise: cannot open %s\n", path);
        return -1;
    }
    char tok[64];
    long w, h, maxv;
    if (!read_token(f, tok, sizeof tok) || strcmp(tok, "P5") != 0 ||
        !read_token(f, tok, sizeof tok) || (w = strtol(tok, NULL, 10)) <= 0 ||
        !read_token(f, tok, sizeof tok) || (h = strtol(tok, NULL, 10)) <= 0 ||
        !read_token(f, tok, sizeof tok) || (maxv = strtol(tok, NULL, 10)) != 255 ||
        w > 65536 || h > 65536) {
        fprintf(stderr, "wavelet_denoise: %s: not an 8-bit binary PGM\n", path);
        fclose(f);
        return -1;
    }
    img->w = (int)w;
    img->h = (int)h;
    img->px = malloc((size_t)w * (size_t)h);
    if (!img->px || fread(img->px, 1, (size_t)w * (size_t)h, f) != (size_t)w * (size_t)h) {
        fprintf(stderr, "wavelet_denoise: %s: truncated pixel data\n", path);
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

/* forward S-transform of n values (n even): lows then highs into out */
static void fwd1(const int *in, int *out, int n, int stride)
{
    int half = n / 2;
    for (int i = 0; i < half; i++) {
        int a = in[(2 * i) * stride], b = in[(2 * i + 1) * stride];
        int d = a - b;
        out[i] = b + (d >> 1);
        out[half + i] = d;
    }
}

static void inv1(const int *in, int *out, int n, int stride)
{
    int half = n / 2;
    for (int i = 0; i < half; i++) {
        int s = in[i * stride], d = in[(half + i) * stride];
        int b = s - (d >> 1);
        out[2 * i] = d + b;
        out[2 * i + 1] = b;
    }
}

/* one level on the top-left w x h region of buf (row length W) */
static void forward_level(int *buf, int W, int w, int h)
{
    #pragma omp parallel
    {
        int *tmp = malloc(sizeof(int) * (size_t)(w > h * STRIP ? w : h * STRIP));
        #pragma omp for
        for (int y = 0; y < h; y++) {
            int *row = buf + (size_t)y * W;
            fwd1(row, tmp, w, 1);
            memcpy(row, tmp, sizeof(int) * (size_t)w);
        }
        int nstrips = (w + STRIP - 1) / STRIP;
        #pragma omp for
        for (int s = 0; s < nstrips; s++) {
            int x0 = s * STRIP, x1 = x0 + STRIP < w ? x0 + STRIP : w;
            int half = h / 2;
            for (int i = 0; i < half; i++) {
                const int *ra = buf + (size_t)(2 * i) * W, *rb = ra + W;
                int *lo = tmp + (size_t)i * STRIP, *hi = tmp + (size_t)(half + i) * STRIP;
                for (int x = x0; x < x1; x++) {
                    int d = ra[x] - rb[x];
                    lo[x - x0] = rb[x] + (d >> 1);
                    hi[x - x0] = d;
                }
            }
            for (int y = 0; y < h; y++)
                memcpy(buf + (size_t)y * W + x0, tmp + (size_t)y * STRIP, sizeof(int) * (size_t)(x1 - x0));
        }
        free(tmp);
    }
}

static void inverse_level(int *buf, int W, int w, int h)
{
    #pragma omp parallel
    {
        int *tmp = malloc(sizeof(int) * (size_t)(w > h * STRIP ? w : h * STRIP));
        int nstrips = (w + STRIP - 1) / STRIP;
        #pragma omp for
        for (int s = 0; s < nstrips; s++) {
            int x0 = s * STRIP, x1 = x0 + STRIP < w ? x0 + STRIP : w;
            int half = h / 2;
            for (int i = 0; i < half; i++) {
                const int *rs = buf + (size_t)i * W, *rd = buf + (size_t)(half + i) * W;
                int *oa = tmp + (size_t)(2 * i) * STRIP, *ob = oa + STRIP;
                for (int x = x0; x < x1; x++) {
                    int b = rs[x] - (rd[x] >> 1);
                    oa[x - x0] = rd[x] + b;
                    ob[x - x0] = b;
                }
            }
            for (int y = 0; y < h; y++)
                memcpy(buf + (size_t)y * W + x0, tmp + (size_t)y * STRIP, sizeof(int) * (size_t)(x1 - x0));
        }
        #pragma omp for
        for (int y = 0; y < h; y++) {
            int *row = buf + (size_t)y * W;
            inv1(row, tmp, w, 1);
            memcpy(row, tmp, sizeof(int) * (size_t)w);
        }
        free(tmp);
    }
}

static inline int soft(int v, int t)
{
    if (v > t) return v - t;
    if (v < -t) return v + t;
    return 0;
}

/* soft-threshold every detail band; threshold halves with each coarser level */
static long long threshold_details(int *buf, int W, int H, int T)
{
    long long zeroed = 0;
    int llw = W >> LEVELS, llh = H >> LEVELS;
    #pragma omp parallel for reduction(+:zeroed)
    for (int y = 0; y < H; y++) {
        int *row = buf + (size_t)y * W;
        /* level of a coefficient: the finest level whose detail band holds it */
        int ly = 1;
        while (ly <= LEVELS && y < (H >> ly)) ly++;
        for (int x = 0; x < W; x++) {
            if (y < llh && x < llw) continue;
            int lx = 1;
            while (lx <= LEVELS && x < (W >> lx)) lx++;
            int lev = lx < ly ? lx : ly;       /* 1 = finest */
            int t = T >> (lev - 1);
            if (t < 1) t = 1;
            int v = soft(row[x], t);
            if (v == 0) zeroed++;
            row[x] = v;
        }
    }
    return zeroed;
}

static void error_stats(const unsigned char *a, const unsigned char *ref, size_t n,
                        long long *sse, int *maxerr, long long *big)
{
    long long s = 0, b = 0;
    int m = 0;
    long nblk = (long)((n + 4095) / 4096);
    #pragma omp parallel for reduction(+:s,b) reduction(max:m)
    for (long k = 0; k < nblk; k++)
        for (size_t i = (size_t)k * 4096; i < n && i < (size_t)(k + 1) * 4096; i++) {
            int e = (int)a[i] - (int)ref[i];
            int ae = e < 0 ? -e : e;
            s += (long long)e * e;
            if (ae > m) m = ae;
            if (ae > 20) b++;
        }
    *sse = s;
    *maxerr = m;
    *big = b;
}

static void report(const char *label, long long sse, int maxerr, long long big, size_t n)
{
    double mse = (double)sse / (double)n;
    double psnr = mse > 0 ? 10.0 * log10(255.0 * 255.0 / mse) : 99.0;
    printf("%-10s mse %10.4f  psnr %7.3f dB  max |err| %3d  pixels |err|>20: %lld (%.3f%%)\n",
           label, mse, psnr, maxerr, big, 100.0 * (double)big / (double)n);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s noisy.pgm clean.pgm threshold spins out.pgm\n", argv[0]);
        return 2;
    }
    char *end;
    long T = strtol(argv[3], &end, 10);
    if (*end || T < 0 || T > 10000) {
        fprintf(stderr, "usage: %s noisy.pgm clean.pgm threshold spins out.pgm (threshold 0..10000)\n", argv[0]);
        return 2;
    }
    long spins = strtol(argv[4], &end, 10);
    if (*end || spins < 1 || spins > 64) {
        fprintf(stderr, "usage: %s noisy.pgm clean.pgm threshold spins out.pgm (spins 1..64)\n", argv[0]);
        return 2;
    }
    Image noisy, clean;
    if (read_pgm(argv[1], &noisy) || read_pgm(argv[2], &clean)) return 1;
    if (noisy.w != clean.w || noisy.h != clean.h) {
        fprintf(stderr, "wavelet_denoise: image sizes differ (%dx%d vs %dx%d)\n",
                noisy.w, noisy.h, clean.w, clean.h);
        return 1;
    }
    int W = noisy.w, H = noisy.h;
    if (W % (1 << LEVELS) || H % (1 << LEVELS)) {
        fprintf(stderr, "wavelet_denoise: image size %dx%d is not a multiple of %d\n", W, H, 1 << LEVELS);
        return 1;
    }
    size_t N = (size_t)W * H;
    int *buf = aligned_alloc(64, sizeof(int) * N);   /* strips of 64 columns never share cache lines */
    int *acc = calloc(N, sizeof(int));
    unsigned char *out = malloc(N);
    if (!buf || !acc || !out) {
        fprintf(stderr, "wavelet_denoise: out of memory\n");
        return 1;
    }

    long long zeroed_total = 0;
    int nshift = (int)(spins * spins);
    for (int k = 0; k < nshift; k++) {
        int dx = (int)((k % spins) * (1 << LEVELS) / spins);
        int dy = (int)((k / spins) * (1 << LEVELS) / spins);
        #pragma omp parallel for
        for (int y = 0; y < H; y++) {
            const unsigned char *src = noisy.px + (size_t)((y + dy) % H) * W;
            int *row = buf + (size_t)y * W;
            for (int x = 0; x < W; x++) row[x] = src[(x + dx) % W];
        }
        for (int l = 0; l < LEVELS; l++) forward_level(buf, W, W >> l, H >> l);
        zeroed_total += threshold_details(buf, W, H, (int)T);
        for (int l = LEVELS - 1; l >= 0; l--) inverse_level(buf, W, W >> l, H >> l);
        #pragma omp parallel for
        for (int y = 0; y < H; y++) {
            int *dst = acc + (size_t)((y + dy) % H) * W;
            const int *row = buf + (size_t)y * W;
            for (int x = 0; x < W; x++) dst[(x + dx) % W] += row[x];
        }
    }
    #pragma omp parallel for
    for (int y = 0; y < H; y++)
        for (size_t i = (size_t)y * W; i < (size_t)(y + 1) * W; i++) {
            int v = acc[i];
            int q = v >= 0 ? (v + nshift / 2) / nshift : -((-v + nshift / 2) / nshift);
            out[i] = (unsigned char)(q < 0 ? 0 : (q > 255 ? 255 : q));
        }

    long long sse;
    int maxerr;
    long long big;
    printf("image %dx%d, %d levels, threshold %ld, %d shifts\n", W, H, LEVELS, T, nshift);
    printf("detail coefficients set to zero: %.4f%%\n",
           100.0 * (double)zeroed_total / ((double)nshift * (double)(N - (N >> (2 * LEVELS)))));
    error_stats(noisy.px, clean.px, N, &sse, &maxerr, &big);
    report("noisy", sse, maxerr, big, N);
    error_stats(out, clean.px, N, &sse, &maxerr, &big);
    report("denoised", sse, maxerr, big, N);

    /* error by 8x8 tile classes: flat tiles vs tiles with edges (by clean range) */
    long long sse_flat = 0, sse_edge = 0, n_flat = 0, n_edge = 0;
    #pragma omp parallel for reduction(+:sse_flat,sse_edge,n_flat,n_edge)
    for (int ty = 0; ty < H / 8; ty++) {
        for (int tx = 0; tx < W / 8; tx++) {
            int lo = 255, hi = 0;
            long long s = 0;
            for (int y = ty * 8; y < ty * 8 + 8; y++)
                for (int x = tx * 8; x < tx * 8 + 8; x++) {
                    int c = clean.px[(size_t)y * W + x];
                    int e = (int)out[(size_t)y * W + x] - c;
                    if (c < lo) lo = c;
                    if (c > hi) hi = c;
                    s += (long long)e * e;
                }
            if (hi - lo > 24) { sse_edge += s; n_edge += 64; }
            else { sse_flat += s; n_flat += 64; }
        }
    }
    printf("denoised mse on flat tiles %.4f (%lld px), on edge tiles %.4f (%lld px)\n",
           n_flat ? (double)sse_flat / n_flat : 0.0, n_flat,
           n_edge ? (double)sse_edge / n_edge : 0.0, n_edge);

    FILE *f = fopen(argv[5], "wb");
    if (!f) {
        fprintf(stderr, "wavelet_denoise: cannot write %s\n", argv[5]);
        return 1;
    }
    fprintf(f, "P5\n%d %d\n255\n", W, H);
    if (fwrite(out, 1, N, f) != N) {
        fprintf(stderr, "wavelet_denoise: write error on %s\n", argv[5]);
        fclose(f);
        return 1;
    }
    fclose(f);
    printf("wrote %s\n", argv[5]);
    free(buf); free(acc); free(out); free(noisy.px); free(clean.px);
    return 0;
}
