/*
 * fft_rows: ideal low-pass filtering of an image with a 2-D FFT.
 *
 * usage: fft_rows IMAGE CUTOFF [CUTOFF ...]
 *
 * IMAGE is "IMGF", uint32 width, uint32 height (little endian, both powers
 * of two), then width*height float32 values row by row.  For each cutoff
 * (a fraction of the Nyquist radius, 0 < c <= 1.5) the image is
 * transformed (radix-2 FFT of every row, then of every column), all
 * frequencies with a larger radius are zeroed, and the spectrum is
 * transformed back (columns, then rows).  Prints per cutoff the share of
 * the image energy that is kept (also without the mean), and the mean
 * and largest absolute change of the pixel values.
 */
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CUTOFFS 64

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef double complex cplx;

static uint32_t rd_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static int is_pow2(uint32_t v)
{
    return v && !(v & (v - 1));
}

static float *load_image(const char *path, int *w_out, int *h_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fft_rows: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "IMGF", 4) != 0) {
        fprintf(stderr, "fft_rows: %s: not an IMGF image\n", path);
        fclose(f);
        return NULL;
    }
    uint32_t w = rd_u32(hdr + 4), h = rd_u32(hdr + 8);
    if (!is_pow2(w) || !is_pow2(h) || w < 2 || h < 2 || w > 8192 || h > 8192) {
        fprintf(stderr, "fft_rows: %s: size %ux%u is not a power of two up to 8192\n", path, w,
                h);
        fclose(f);
        return NULL;
    }
    size_t n = (size_t)w * h;
    float *img = malloc(n * sizeof(float));
    unsigned char *raw = malloc(n * 4);
    if (!img || !raw) {
        fprintf(stderr, "fft_rows: out of memory\n");
        fclose(f);
        free(img);
        free(raw);
        return NULL;
    }
    size_t got = fread(raw, 4, n, f);
    int extra = fgetc(f);
    fclose(f);
    if (got != n || extra != EOF) {
        fprintf(stderr, "fft_rows: %s: pixel data has wrong size\n", path);
        free(img);
        free(raw);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t u = rd_u32(raw + 4 * i);
        memcpy(&img[i], &u, sizeof(float));
        if (!isfinite(img[i])) {
            fprintf(stderr, "fft_rows: %s: pixel %zu is not a finite number\n", path, i);
            free(img);
            free(raw);
            return NULL;
        }
    }
    free(raw);
    *w_out = (int)w;
    *h_out = (int)h;
    return img;
}

/* twiddle table for length n: tw[k] = exp(-2 pi i k / n), k < n/2 */
static cplx *make_twiddles(int n)
{
    cplx *tw = malloc((size_t)(n / 2 > 0 ? n / 2 : 1) * sizeof(cplx));
    if (!tw)
        return NULL;
    for (int k = 0; k < n / 2; k++) {
        double a = -2.0 * M_PI * k / n;
        tw[k] = cos(a) + I * sin(a);
    }
    return tw;
}

/* in-place iterative radix-2 FFT; inverse uses conjugate twiddles, no scaling */
static void fft(cplx *a, int n, const cplx *tw, int inverse)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len >> 1, step = n / len;
        for (int i = 0; i < n; i += len) {
            for (int k = 0; k < half; k++) {
                cplx w = inverse ? conj(tw[k * step]) : tw[k * step];
                cplx u = a[i + k];
                cplx v = a[i + k + half] * w;
                a[i + k] = u + v;
                a[i + k + half] = u - v;
            }
        }
    }
}

static void fft_rows_pass(cplx *d, int w, int h, const cplx *tw, int inverse)
{
#pragma omp parallel for
    for (int y = 0; y < h; y++)
        fft(d + (size_t)y * w, w, tw, inverse);
}

static int fft_cols_pass(cplx *d, int w, int h, const cplx *tw, int inverse)
{
    int failed = 0;
#pragma omp parallel for reduction(| : failed)
    for (int x = 0; x < w; x++) {
        cplx *col = malloc((size_t)h * sizeof(cplx));
        if (!col) {
            failed = 1;
            continue;
        }
        for (int y = 0; y < h; y++)
            col[y] = d[(size_t)y * w + x];
        fft(col, h, tw, inverse);
        for (int y = 0; y < h; y++)
            d[(size_t)y * w + x] = col[y];
        free(col);
    }
    return failed ? -1 : 0;
}

/*
 * Ideal low-pass: forward 2-D FFT of img into out, zero every frequency
 * outside the ellipse of radius rc * Nyquist, inverse 2-D FFT (scaled).
 */
static int lowpass(const float *img, cplx *out, int w, int h, const cplx *tw_row,
                   const cplx *tw_col, double rc)
{
#pragma omp parallel for
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            out[(size_t)y * w + x] = img[(size_t)y * w + x];

    fft_rows_pass(out, w, h, tw_row, 0);
    if (fft_cols_pass(out, w, h, tw_col, 0) != 0)
        return -1;

    const double scale = 1.0 / ((double)w * h);
#pragma omp parallel for
    for (int y = 0; y < h; y++) {
        int fy = y <= h / 2 ? y : y - h;
        double ny = (double)fy / (h / 2);
        for (int x = 0; x < w; x++) {
            int fx = x <= w / 2 ? x : x - w;
            double nx = (double)fx / (w / 2);
            size_t i = (size_t)y * w + x;
            if (nx * nx + ny * ny <= rc * rc)
                out[i] *= scale;
            else
                out[i] = 0.0;
        }
    }

    if (fft_cols_pass(out, w, h, tw_col, 1) != 0)
        return -1;
    fft_rows_pass(out, w, h, tw_row, 1);
    return 0;
}

int main(int argc, char **argv)
{
    double cut[MAX_CUTOFFS];
    int ncut = argc - 2;
    int ok = argc >= 3 && ncut <= MAX_CUTOFFS;
    for (int i = 0; ok && i < ncut; i++) {
        char *end;
        errno = 0;
        cut[i] = strtod(argv[i + 2], &end);
        if (errno || end == argv[i + 2] || *end != '\0' || !(cut[i] > 0.0 && cut[i] <= 1.5))
            ok = 0;
    }
    if (!ok) {
        fprintf(stderr, "usage: %s IMAGE CUTOFF [CUTOFF ...]   (0 < CUTOFF <= 1.5, at most %d)\n",
                argv[0], MAX_CUTOFFS);
        return 2;
    }

    int w, h;
    float *img = load_image(argv[1], &w, &h);
    if (!img)
        return 1;
    const size_t npix = (size_t)w * h;

    cplx *work = malloc(npix * sizeof(cplx));
    double *row_e0 = malloc((size_t)h * sizeof(double));
    double *row_e = malloc((size_t)h * sizeof(double));
    double *row_abs = malloc((size_t)h * sizeof(double));
    double *row_max = malloc((size_t)h * sizeof(double));
    cplx *tw_row = make_twiddles(w), *tw_col = make_twiddles(h);
    if (!work || !row_e0 || !row_e || !row_abs || !row_max || !tw_row || !tw_col) {
        fprintf(stderr, "fft_rows: out of memory\n");
        return 1;
    }

    /* energy and mean of the input, per row, summed in row order */
#pragma omp parallel for
    for (int y = 0; y < h; y++) {
        double e = 0.0, s = 0.0;
        for (int x = 0; x < w; x++) {
            double v = img[(size_t)y * w + x];
            e += v * v;
            s += v;
        }
        row_e0[y] = e;
        row_abs[y] = s;
    }
    double e0 = 0.0, mean = 0.0;
    for (int y = 0; y < h; y++) {
        e0 += row_e0[y];
        mean += row_abs[y];
    }
    printf("image %dx%d, mean %.6f, energy %.6e\n", w, h, mean / (double)npix, e0);

    for (int c = 0; c < ncut; c++) {
        if (lowpass(img, work, w, h, tw_row, tw_col, cut[c]) != 0) {
            fprintf(stderr, "fft_rows: out of memory\n");
            return 1;
        }

        /* the low-passed image is in the real part of work */
#pragma omp parallel for
        for (int y = 0; y < h; y++) {
            double e = 0.0, sa = 0.0, mx = 0.0;
            for (int x = 0; x < w; x++) {
                size_t i = (size_t)y * w + x;
                double v = creal(work[i]);
                double d = fabs(v - (double)img[i]);
                e += v * v;
                sa += d;
                if (d > mx)
                    mx = d;
            }
            row_e[y] = e;
            row_abs[y] = sa;
            row_max[y] = mx;
        }
        double e = 0.0, sa = 0.0, mx = 0.0;
        for (int y = 0; y < h; y++) {
            e += row_e[y];
            sa += row_abs[y];
            if (row_max[y] > mx)
                mx = row_max[y];
        }
        double ac0 = e0 - mean * mean / (double)npix, ac = e - mean * mean / (double)npix;
        printf("cutoff %.3f: energy kept %.6f (without the mean %.5f), mean |change| %.6f, "
               "max |change| %.5f\n",
               cut[c], e0 > 0 ? e / e0 : 1.0, ac0 > 0 ? ac / ac0 : 1.0, sa / (double)npix, mx);
    }

    free(tw_row);
    free(tw_col);
    free(row_e0);
    free(row_e);
    free(row_abs);
    free(row_max);
    free(work);
    free(img);
    return 0;
}
