/* image_resize: Lanczos-3 resampling of a greyscale PGM image.
 *
 * usage: image_resize INPUT.pgm OUTPUT.pgm WxH WxH WxH
 *
 * Each size is made with two separable passes, horizontal then vertical,
 * both parallel loops over the rows they produce.  Filter weights are fixed
 * point (14 fractional bits, each set summing exactly to 1), the intermediate
 * image keeps 7 fractional bits, so every output pixel is computed with exact
 * integer arithmetic.  For every size the program prints pixel statistics
 * and the error of scaling the result back to the input size; the largest
 * result is written to OUTPUT.pgm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <math.h>

#define WBITS 14
#define IBITS 7
#define MAX_SIDE 20000

struct image {
    int w, h;
    uint8_t *px;
};

/* weights of one pass: for every output coordinate `taps` source indices
 * (already clamped to the image) and fixed-point weights */
struct filter {
    int out, taps;
    int32_t *idx;
    int32_t *wt;
};

static double lanczos3(double x)
{
    if (x == 0.0)
        return 1.0;
    if (x <= -3.0 || x >= 3.0)
        return 0.0;
    double px = M_PI * x;
    return 3.0 * sin(px) * sin(px / 3.0) / (px * px);
}

static void make_filter(struct filter *F, int in, int out)
{
    double scale = (double)in / out;
    double fs = scale > 1.0 ? scale : 1.0;
    double support = 3.0 * fs;
    int taps = (int)ceil(support) * 2 + 1;
    F->out = out;
    F->taps = taps;
    F->idx = malloc(sizeof(int32_t) * (size_t)out * taps);
    F->wt = malloc(sizeof(int32_t) * (size_t)out * taps);
    double *w = malloc(sizeof(double) * taps);
    for (int o = 0; o < out; o++) {
        double centre = (o + 0.5) * scale - 0.5;
        int first = (int)floor(centre - support) + 1;
        double sum = 0.0;
        for (int t = 0; t < taps; t++) {
            w[t] = lanczos3((first + t - centre) / fs);
            sum += w[t];
        }
        int32_t total = 0;
        int big = 0;
        for (int t = 0; t < taps; t++) {
            int32_t q = (int32_t)lround(w[t] / sum * (1 << WBITS));
            int src = first + t;
            if (src < 0)
                src = 0;
            if (src >= in)
                src = in - 1;
            F->idx[(size_t)o * taps + t] = src;
            F->wt[(size_t)o * taps + t] = q;
            total += q;
            if (w[t] > w[big])
                big = t;
        }
        /* make the weights sum to exactly one */
        F->wt[(size_t)o * taps + big] += (1 << WBITS) - total;
    }
    free(w);
}

static void free_filter(struct filter *F)
{
    free(F->idx);
    free(F->wt);
}

/* resample src to ow x oh */
static void resize(const struct image *src, struct image *dst, int ow, int oh)
{
    struct filter fx, fy;
    make_filter(&fx, src->w, ow);
    make_filter(&fy, src->h, oh);
    int32_t *mid = malloc(sizeof(int32_t) * (size_t)ow * src->h);

    /* horizontal pass: one row of the intermediate image per iteration */
    #pragma omp parallel for
    for (int y = 0; y < src->h; y++) {
        const uint8_t *in = src->px + (size_t)y * src->w;
        int32_t *row = mid + (size_t)y * ow;
        for (int x = 0; x < ow; x++) {
            const int32_t *ix = fx.idx + (size_t)x * fx.taps;
            const int32_t *wx = fx.wt + (size_t)x * fx.taps;
            int32_t acc = 0;
            for (int t = 0; t < fx.taps; t++)
                acc += wx[t] * in[ix[t]];
            row[x] = (acc + (1 << (WBITS - IBITS - 1))) >> (WBITS - IBITS);
        }
    }

    dst->w = ow;
    dst->h = oh;
    dst->px = malloc((size_t)ow * oh);
    /* vertical pass: one output row per iteration */
    #pragma omp parallel for
    for (int y = 0; y < oh; y++) {
        const int32_t *iy = fy.idx + (size_t)y * fy.taps;
        const int32_t *wy = fy.wt + (size_t)y * fy.taps;
        uint8_t *out = dst->px + (size_t)y * ow;
        for (int x = 0; x < ow; x++) {
            int64_t acc = 0;
            for (int t = 0; t < fy.taps; t++)
                acc += (int64_t)wy[t] * mid[(size_t)iy[t] * ow + x];
            int64_t v = (acc + (1LL << (WBITS + IBITS - 1))) >> (WBITS + IBITS);
            out[x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    free(mid);
    free_filter(&fx);
    free_filter(&fy);
}

static int read_pgm_token(FILE *f, int *v)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
    }
    if (c < '0' || c > '9')
        return -1;
    long n = 0;
    while (c >= '0' && c <= '9') {
        n = n * 10 + (c - '0');
        if (n > 1000000)
            return -1;
        c = fgetc(f);
    }
    *v = (int)n;
    return 0; /* the single whitespace after the token has been consumed */
}

static int read_pgm(const char *path, struct image *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "image_resize: cannot open %s\n", path);
        return -1;
    }
    int maxval;
    if (fgetc(f) != 'P' || fgetc(f) != '5' || read_pgm_token(f, &img->w) ||
        read_pgm_token(f, &img->h) || read_pgm_token(f, &maxval) || img->w < 1 ||
        img->h < 1 || img->w > MAX_SIDE || img->h > MAX_SIDE || maxval != 255) {
        fprintf(stderr, "image_resize: %s is not an 8-bit binary PGM\n", path);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)img->w * img->h;
    img->px = malloc(n);
    if (fread(img->px, 1, n, f) != n) {
        fprintf(stderr, "image_resize: %s is truncated\n", path);
        free(img->px);
        fclose(f);
        return -1;
    }
    fclose(f);
    return 0;
}

static int parse_size(const char *s, int *w, int *h)
{
    char x, extra;
    if (sscanf(s, "%d%c%d%c", w, &x, h, &extra) != 3 || (x != 'x' && x != 'X'))
        return -1;
    return (*w >= 8 && *h >= 8 && *w <= MAX_SIDE && *h <= MAX_SIDE) ? 0 : -1;
}

static void stats(const struct image *img, const struct image *orig)
{
    const int w = img->w, h = img->h;
    int64_t sum = 0, sumsq = 0, grad = 0;
    int lo = 255, hi = 0;
    #pragma omp parallel for reduction(+ : sum, sumsq, grad) reduction(min : lo) reduction(max : hi)
    for (int y = 0; y < h; y++) {
        const uint8_t *r = img->px + (size_t)y * w;
        for (int x = 0; x < w; x++) {
            int v = r[x];
            sum += v;
            sumsq += v * v;
            if (v < lo)
                lo = v;
            if (v > hi)
                hi = v;
            if (x + 1 < w)
                grad += abs(r[x + 1] - v);
        }
    }
    int64_t n = (int64_t)w * h;
    /* mean and standard deviation from exact integer sums, in thousandths */
    int64_t mean_m = (sum * 1000 + n / 2) / n;
    double var = ((double)sumsq - (double)sum * sum / n) / n;
    printf("%5dx%-5d mean %lld.%03lld  stddev %.2f  min %3d  max %3d  edge energy %.3f\n", w, h,
           (long long)(mean_m / 1000), (long long)(mean_m % 1000), sqrt(var), lo, hi,
           (double)grad / ((double)(w - 1) * h));

    /* scale back to the original size and compare */
    struct image back;
    resize(img, &back, orig->w, orig->h);
    int64_t sse = 0, sae = 0;
    int worst = 0;
    #pragma omp parallel for reduction(+ : sse, sae) reduction(max : worst)
    for (int y = 0; y < orig->h; y++) {
        const uint8_t *a = orig->px + (size_t)y * orig->w, *b = back.px + (size_t)y * orig->w;
        for (int x = 0; x < orig->w; x++) {
            int d = abs((int)a[x] - (int)b[x]);
            sse += d * d;
            sae += d;
            if (d > worst)
                worst = d;
        }
    }
    int64_t m = (int64_t)orig->w * orig->h;
    if (sse == 0)
        printf("            round trip exact\n");
    else
        printf("            round trip: mean abs error %.4f  PSNR %.3f dB  worst %d\n",
               (double)sae / m, 10.0 * log10(255.0 * 255.0 * m / (double)sse), worst);
    free(back.px);
}

int main(int argc, char **argv)
{
    int ws[3], hs[3];
    if (argc != 6 || parse_size(argv[3], &ws[0], &hs[0]) || parse_size(argv[4], &ws[1], &hs[1]) ||
        parse_size(argv[5], &ws[2], &hs[2])) {
        fprintf(stderr, "usage: %s INPUT.pgm OUTPUT.pgm WxH WxH WxH\n", argv[0]);
        return 2;
    }
    struct image src;
    if (read_pgm(argv[1], &src) != 0)
        return 1;
    printf("input %dx%d\n", src.w, src.h);

    int largest = 0;
    for (int i = 1; i < 3; i++)
        if ((int64_t)ws[i] * hs[i] > (int64_t)ws[largest] * hs[largest])
            largest = i;
    struct image keep = {0, 0, NULL};
    for (int i = 0; i < 3; i++) {
        struct image out;
        resize(&src, &out, ws[i], hs[i]);
        stats(&out, &src);
        if (i == largest)
            keep = out;
        else
            free(out.px);
    }

    FILE *f = fopen(argv[2], "wb");
    if (!f) {
        fprintf(stderr, "image_resize: cannot write %s\n", argv[2]);
        return 1;
    }
    fprintf(f, "P5\n%d %d\n255\n", keep.w, keep.h);
    if (fwrite(keep.px, 1, (size_t)keep.w * keep.h, f) != (size_t)keep.w * keep.h || fclose(f)) {
        fprintf(stderr, "image_resize: error writing %s\n", argv[2]);
        return 1;
    }
    printf("wrote %dx%d image to %s\n", keep.w, keep.h, argv[2]);
    free(keep.px);
    free(src.px);
    return 0;
}
