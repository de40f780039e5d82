/*
 * dct_compress: JPEG-style compression study of a grayscale image.
 *
 * The image is split into 8x8 blocks and transformed with the 2-D DCT once.
 * For each requested quality level the coefficients are quantised with the
 * standard JPEG luminance table (scaled the IJG way), the block is rebuilt
 * with the inverse DCT, and the program reports the PSNR of the rebuilt
 * image, the number of non-zero quantised coefficients and an estimate of the
 * entropy-coded size (DC differences per block row plus zig-zag run/size
 * symbols, with approximate Huffman code lengths).
 *
 * usage: dct_compress IMAGE.pgm QUALITY[,QUALITY...]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_Q 64

static const int base_table[64] = {
    16, 11, 10, 16, 24, 40, 51, 61,
    12, 12, 14, 19, 26, 58, 60, 55,
    14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62,
    18, 22, 37, 56, 68, 109, 103, 77,
    24, 35, 55, 64, 81, 104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101,
    72, 92, 95, 98, 112, 100, 103, 99};

/* JPEG luminance DC code lengths by category */
static const int dc_len[12] = {2, 3, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9};

static double cosine[8][8]; /* cosine[u][x] = c(u) cos((2x+1)u pi / 16) */
static int zigzag[64];

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s IMAGE.pgm QUALITY[,QUALITY...]   (qualities 1..100)\n", prog);
}

static void init_tables(void)
{
    for (int u = 0; u < 8; u++) {
        double cu = u == 0 ? sqrt(0.125) : 0.5;
        for (int x = 0; x < 8; x++)
            cosine[u][x] = cu * cos((2 * x + 1) * u * M_PI / 16.0);
    }
    /* walk the anti-diagonals alternately */
    int k = 0;
    for (int s = 0; s < 15; s++) {
        if (s % 2 == 0) {
            for (int r = s < 8 ? s : 7; r >= 0 && s - r < 8; r--)
                zigzag[k++] = r * 8 + (s - r);
        } else {
            for (int c = s < 8 ? s : 7; c >= 0 && s - c < 8; c--)
                zigzag[k++] = (s - c) * 8 + c;
        }
    }
}

static int skip_space_and_comments(FILE *f)
{
    int c = fgetc(f);
    for (;;) {
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            c = fgetc(f);
        } else {
            break;
        }
    }
    if (c == EOF)
        return 0;
    ungetc(c, f);
    return 1;
}

static unsigned char *read_pgm(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open image '%s'\n", path);
        return NULL;
    }
    char magic[3] = {0};
    int maxval;
    if (fread(magic, 1, 2, f) != 2 || strcmp(magic, "P5") != 0 ||
        !skip_space_and_comments(f) || fscanf(f, "%d", w) != 1 ||
        !skip_space_and_comments(f) || fscanf(f, "%d", h) != 1 ||
        !skip_space_and_comments(f) || fscanf(f, "%d", &maxval) != 1 ||
        *w < 8 || *h < 8 || *w > 32768 || *h > 32768 || maxval != 255) {
        fprintf(stderr, "error: '%s' is not an 8-bit binary PGM (P5) image\n", path);
        fclose(f);
        return NULL;
    }
    fgetc(f); /* single whitespace after maxval */
    size_t n = (size_t)*w * (size_t)*h;
    unsigned char *px = malloc(n);
    if (!px) {
        fprintf(stderr, "error: out of memory\n");
        fclose(f);
        return NULL;
    }
    if (fread(px, 1, n, f) != n) {
        fprintf(stderr, "error: '%s': pixel data is truncated\n", path);
        free(px);
        fclose(f);
        return NULL;
    }
    fclose(f);
    return px;
}

/* 8x8 forward DCT of a level-shifted block (separable: rows then columns) */
static void fdct8x8(const double in[64], double out[64])
{
    double t[64];
    for (int y = 0; y < 8; y++)
        for (int u = 0; u < 8; u++) {
            double s = 0.0;
            for (int x = 0; x < 8; x++)
                s += cosine[u][x] * in[y * 8 + x];
            t[y * 8 + u] = s;
        }
    for (int v = 0; v < 8; v++)
        for (int u = 0; u < 8; u++) {
            double s = 0.0;
            for (int y = 0; y < 8; y++)
                s += cosine[v][y] * t[y * 8 + u];
            out[v * 8 + u] = s;
        }
}

static void idct8x8(const double in[64], double out[64])
{
    double t[64];
    for (int v = 0; v < 8; v++)
        for (int x = 0; x < 8; x++) {
            double s = 0.0;
            for (int u = 0; u < 8; u++)
                s += cosine[u][x] * in[v * 8 + u];
            t[v * 8 + x] = s;
        }
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
            double s = 0.0;
            for (int v = 0; v < 8; v++)
                s += cosine[v][y] * t[v * 8 + x];
            out[y * 8 + x] = s;
        }
}

static int category(int v)
{
    if (v < 0)
        v = -v;
    int s = 0;
    while (v) {
        s++;
        v >>= 1;
    }
    return s;
}

/* rough Huffman code length of an AC (run, size) symbol */
static int ac_len(int run, int size)
{
    int len = 2 + size + (run + 1) / 2;
    return len > 16 ? 16 : len;
}

static int parse_qualities(const char *s, int *q)
{
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 100 || n >= MAX_Q)
            return 0;
        q[n++] = (int)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return 0;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        usage(argv[0]);
        return 2;
    }
    int quality[MAX_Q];
    int nq = parse_qualities(argv[2], quality);
    if (nq == 0) {
        usage(argv[0]);
        return 2;
    }

    int w, h;
    unsigned char *px = read_pgm(argv[1], &w, &h);
    if (!px)
        return 1;
    init_tables();

    /* blocks cover the image; edge blocks repeat the last row/column */
    int bw = (w + 7) / 8, bh = (h + 7) / 8;
    size_t nblocks = (size_t)bw * bh;
    double *coef = malloc(nblocks * 64 * sizeof(double));
    long long *row_sse = malloc((size_t)bh * sizeof(long long));
    long long *row_nz = malloc((size_t)bh * sizeof(long long));
    long long *row_bits = malloc((size_t)bh * sizeof(long long));
    if (!coef || !row_sse || !row_nz || !row_bits) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    /* forward transform, one row of blocks per iteration */
#pragma omp parallel for
    for (int by = 0; by < bh; by++) {
        double blk[64];
        for (int bx = 0; bx < bw; bx++) {
            for (int y = 0; y < 8; y++) {
                int yy = by * 8 + y < h ? by * 8 + y : h - 1;
                for (int x = 0; x < 8; x++) {
                    int xx = bx * 8 + x < w ? bx * 8 + x : w - 1;
                    blk[y * 8 + x] = (double)px[(size_t)yy * w + xx] - 128.0;
                }
            }
            fdct8x8(blk, coef + ((size_t)by * bw + bx) * 64);
        }
    }

    printf("image %d x %d, %zu blocks of 8x8\n", w, h, nblocks);
    printf("%7s %8s %12s %8s %12s %7s %7s\n", "quality", "PSNR dB", "nonzero", "nz %", "est. bits",
           "bpp", "ratio");
    for (int qi = 0; qi < nq; qi++) {
        int q = quality[qi];
        int scale = q < 50 ? 5000 / q : 200 - 2 * q;
        double qt[64];
        for (int k = 0; k < 64; k++) {
            int v = (base_table[k] * scale + 50) / 100;
            qt[k] = v < 1 ? 1 : (v > 255 ? 255 : v);
        }

        /* quantise, estimate the coded size and rebuild each row of blocks */
#pragma omp parallel for
        for (int by = 0; by < bh; by++) {
            long long sse = 0, nz = 0, bits = 0;
            int prev_dc = 0;
            double deq[64], rec[64];
            int qc[64];
            for (int bx = 0; bx < bw; bx++) {
                const double *c = coef + ((size_t)by * bw + bx) * 64;
                for (int k = 0; k < 64; k++) {
                    qc[k] = (int)lround(c[k] / qt[k]);
                    deq[k] = qc[k] * qt[k];
                    if (qc[k] != 0)
                        nz++;
                }
                /* DC: difference to the previous block in this row */
                int s = category(qc[0] - prev_dc);
                bits += dc_len[s < 12 ? s : 11] + s;
                prev_dc = qc[0];
                /* AC: run-length of zeros in zig-zag order */
                int run = 0;
                for (int k = 1; k < 64; k++) {
                    int v = qc[zigzag[k]];
                    if (v == 0) {
                        run++;
                        continue;
                    }
                    while (run > 15) {
                        bits += 11; /* ZRL */
                        run -= 16;
                    }
                    int sz = category(v);
                    bits += ac_len(run, sz) + sz;
                    run = 0;
                }
                if (run > 0)
                    bits += 4; /* EOB */

                idct8x8(deq, rec);
                for (int y = 0; y < 8; y++) {
                    int yy = by * 8 + y;
                    if (yy >= h)
                        break;
                    for (int x = 0; x < 8; x++) {
                        int xx = bx * 8 + x;
                        if (xx >= w)
                            break;
                        int v = (int)lround(rec[y * 8 + x] + 128.0);
                        v = v < 0 ? 0 : (v > 255 ? 255 : v);
                        int d = v - px[(size_t)yy * w + xx];
                        sse += d * d;
                    }
                }
            }
            row_sse[by] = sse;
            row_nz[by] = nz;
            row_bits[by] = bits;
        }

        long long sse = 0, nz = 0, bits = 0;
        for (int by = 0; by < bh; by++) {
            sse += row_sse[by];
            nz += row_nz[by];
            bits += row_bits[by];
        }
        double npix = (double)w * h;
        double mse = (double)sse / npix;
        char psnr[16];
        if (sse == 0)
            snprintf(psnr, sizeof psnr, "inf");
        else
            snprintf(psnr, sizeof psnr, "%.2f", 10.0 * log10(255.0 * 255.0 / mse));
        printf("%7d %8s %12lld %7.2f%% %12lld %7.3f %7.2f\n", q, psnr, nz,
               100.0 * nz / (64.0 * nblocks), bits, bits / npix, 8.0 * npix / bits);
    }

    free(coef);
    free(row_sse);
    free(row_nz);
    free(row_bits);
    free(px);
    return 0;
}
