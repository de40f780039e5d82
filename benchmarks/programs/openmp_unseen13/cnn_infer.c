/*
 * cnn_infer: run a small convolutional network over a batch of grey images.
 *
 * Network (weights read from a text file):
 *   28x28x1  -> conv 3x3 (8 ch), ReLU
 *            -> conv 3x3 (16 ch), ReLU
 *            -> conv 3x3 (16 ch), ReLU -> max-pool 2x2   (14x14x16)
 *            -> dense 3136 -> 10 class scores
 * Convolutions use zero padding ("same" size).  Images are processed one
 * after another; the work inside each layer is split over output channels
 * (convolutions, pooling) or output classes (dense layer).
 *
 * usage: cnn_infer WEIGHTS_FILE IMAGES_FILE MAX_IMAGES SHOW
 *   MAX_IMAGES  classify at most this many images (0 = all)
 *   SHOW        print the predictions of the first SHOW images
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#define IMG 28
#define NCLASS 10

typedef struct {
    int cout, cin;
    float *w;      /* [cout][cin][3][3] */
    float *b;      /* [cout] */
} Conv;

typedef struct {
    int nout, nin;
    float *w;      /* [nout][nin] */
    float *b;      /* [nout] */
} Dense;

static const char *g_file;

static void die_input(const char *what)
{
    fprintf(stderr, "cnn_infer: %s: %s\n", g_file, what);
    exit(1);
}

static void read_floats(FILE *f, float *dst, int n)
{
    for (int i = 0; i < n; i++)
        if (fscanf(f, "%f", &dst[i]) != 1)
            die_input("truncated or malformed weight values");
}

static void read_conv(FILE *f, Conv *c, int cout, int cin)
{
    int a, b, k;
    if (fscanf(f, " conv %d %d %d", &a, &b, &k) != 3 || a != cout || b != cin || k != 3)
        die_input("unexpected convolution layer header");
    c->cout = cout;
    c->cin = cin;
    c->w = malloc(sizeof(float) * cout * cin * 9);
    c->b = malloc(sizeof(float) * cout);
    read_floats(f, c->w, cout * cin * 9);
    read_floats(f, c->b, cout);
}

/* 3x3 convolution with zero padding followed by ReLU; in/out are [c][h][w] */
static void conv3x3_relu(const Conv *c, const float *in, float *out, int h, int w)
{
    #pragma omp parallel for
    for (int oc = 0; oc < c->cout; oc++) {
        float *o = out + (size_t)oc * h * w;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                float sum = c->b[oc];
                for (int ic = 0; ic < c->cin; ic++) {
                    const float *src = in + (size_t)ic * h * w;
                    const float *k = c->w + ((size_t)oc * c->cin + ic) * 9;
                    for (int ky = 0; ky < 3; ky++) {
                        int iy = y + ky - 1;
                        if (iy < 0 || iy >= h)
                            continue;
                        for (int kx = 0; kx < 3; kx++) {
                            int ix = x + kx - 1;
                            if (ix < 0 || ix >= w)
                                continue;
                            sum += k[ky * 3 + kx] * src[iy * w + ix];
                        }
                    }
                }
                o[y * w + x] = sum > 0.0f ? sum : 0.0f;
            }
        }
    }
}

static void maxpool2(const float *in, float *out, int ch, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    #pragma omp parallel for
    for (int c = 0; c < ch; c++) {
        const float *p = in + (size_t)c * h * w;
        float *q = out + (size_t)c * oh * ow;
        for (int y = 0; y < oh; y++) {
            for (int x = 0; x < ow; x++) {
                const float *s = p + 2 * y * w + 2 * x;
                float m = s[0];
                if (s[1] > m) m = s[1];
                if (s[w] > m) m = s[w];
                if (s[w + 1] > m) m = s[w + 1];
                q[y * ow + x] = m;
            }
        }
    }
}

static void dense(const Dense *d, const float *in, float *out)
{
    #pragma omp parallel for
    for (int j = 0; j < d->nout; j++) {
        const float *wr = d->w + (size_t)j * d->nin;
        float sum = d->b[j];
        for (int i = 0; i < d->nin; i++)
            sum += wr[i] * in[i];
        out[j] = sum;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: cnn_infer WEIGHTS_FILE IMAGES_FILE MAX_IMAGES SHOW   (integers >= 0, MAX_IMAGES 0 = all)\n");
    exit(2);
}

static long parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0 || v > 100000000L)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        usage();
    long max_images = parse_count(argv[3]);
    long show = parse_count(argv[4]);

    /* ---- weights ---- */
    g_file = argv[1];
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "cnn_infer: cannot open %s\n", argv[1]);
        return 1;
    }
    Conv c1, c2, c3;
    Dense fc;
    read_conv(f, &c1, 8, 1);
    read_conv(f, &c2, 16, 8);
    read_conv(f, &c3, 16, 16);
    int nfeat = 16 * (IMG / 2) * (IMG / 2);
    int a, b;
    if (fscanf(f, " dense %d %d", &a, &b) != 2 || a != NCLASS || b != nfeat)
        die_input("unexpected dense layer header");
    fc.nout = NCLASS;
    fc.nin = nfeat;
    fc.w = malloc(sizeof(float) * NCLASS * nfeat);
    fc.b = malloc(sizeof(float) * NCLASS);
    read_floats(f, fc.w, NCLASS * nfeat);
    read_floats(f, fc.b, NCLASS);
    fclose(f);

    /* ---- images ---- */
    g_file = argv[2];
    f = fopen(argv[2], "r");
    if (!f) {
        fprintf(stderr, "cnn_infer: cannot open %s\n", argv[2]);
        return 1;
    }
    int nimg, ih, iw;
    if (fscanf(f, " images %d %d %d", &nimg, &ih, &iw) != 3 || nimg <= 0 || ih != IMG || iw != IMG)
        die_input("bad header (expected 'images N 28 28')");
    if (max_images && max_images < nimg)
        nimg = (int)max_images;
    int *label = malloc(sizeof(int) * nimg);
    float *pixels = malloc(sizeof(float) * (size_t)nimg * IMG * IMG);
    for (int n = 0; n < nimg; n++) {
        if (fscanf(f, "%d", &label[n]) != 1 || label[n] < 0 || label[n] >= NCLASS)
            die_input("bad or missing image label");
        for (int i = 0; i < IMG * IMG; i++) {
            int v;
            if (fscanf(f, "%d", &v) != 1 || v < 0 || v > 255)
                die_input("bad or missing pixel value");
            pixels[(size_t)n * IMG * IMG + i] = (float)v / 255.0f;
        }
    }
    fclose(f);

    /* ---- inference, one image after another ---- */
    float *a1 = malloc(sizeof(float) * 8 * IMG * IMG);
    float *a2 = malloc(sizeof(float) * 16 * IMG * IMG);
    float *a3 = malloc(sizeof(float) * 16 * IMG * IMG);
    float *p3 = malloc(sizeof(float) * nfeat);
    float scores[NCLASS];
    int *pred = malloc(sizeof(int) * nimg);
    long hist[NCLASS] = {0};
    long correct = 0;
    long confusion[NCLASS][NCLASS] = {{0}};

    for (int n = 0; n < nimg; n++) {
        const float *img = pixels + (size_t)n * IMG * IMG;
        conv3x3_relu(&c1, img, a1, IMG, IMG);
        conv3x3_relu(&c2, a1, a2, IMG, IMG);
        conv3x3_relu(&c3, a2, a3, IMG, IMG);
        maxpool2(a3, p3, 16, IMG, IMG);
        dense(&fc, p3, scores);
        int best = 0;
        for (int j = 1; j < NCLASS; j++)
            if (scores[j] > scores[best])
                best = j;
        pred[n] = best;
        hist[best]++;
        confusion[label[n]][best]++;
        if (best == label[n])
            correct++;
    }

    printf("images classified: %d\n", nimg);
    printf("%-24s", "class histogram:");
    for (int j = 0; j < NCLASS; j++)
        printf(" %d:%ld", j, hist[j]);
    printf("\n");
    printf("agreement with labels: %ld/%d (%.1f%%)\n", correct, nimg, 100.0 * correct / nimg);
    printf("%-24s", "per-class recall:");
    for (int j = 0; j < NCLASS; j++) {
        long tot = 0;
        for (int k = 0; k < NCLASS; k++)
            tot += confusion[j][k];
        printf(" %d:%ld/%ld", j, confusion[j][j], tot);
    }
    printf("\n");
    if (show > nimg)
        show = nimg;
    char title[64];
    snprintf(title, sizeof title, "first %ld predictions:", show);
    printf("%-24s", title);
    for (long n = 0; n < show; n++)
        printf(" %d", pred[n]);
    printf("\n");
    printf("%-24s", "their labels:");
    for (long n = 0; n < show; n++)
        printf(" %d", label[n]);
    printf("\n");

    free(a1); free(a2); free(a3); free(p3);
    free(pred); free(label); free(pixels);
    free(c1.w); free(c1.b); free(c2.w); free(c2.b); free(c3.w); free(c3.b);
    free(fc.w); free(fc.b);
    return 0;
}
