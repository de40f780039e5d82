/*
 * ccl.c - connected-component labelling of a binary image.
 *
 * usage: ccl image.pbm [4|8] [top]
 *
 * Reads a PBM bitmap (P1 plain or P4 raw; 1 = black = foreground) and
 * labels the connected foreground regions (4- or 8-connectivity, default
 * 8) by iterative label propagation: every foreground pixel starts with its
 * own label (index + 1); in each sweep it takes the smallest label among
 * itself and its neighbours, follows the labels that the pixels named by
 * those labels had (pointer jumps), and the smallest label is then spread
 * along horizontal runs of its row.  Sweeps read the old labels and write a
 * new array, rows in parallel, until no label changes.
 *
 * Prints the number of components, the largest `top` sizes (default 5),
 * a size distribution and the number of sweeps.
 */
#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int w, h;
    unsigned char *bit;   /* w*h, 1 = foreground */
} bitmap_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s image.pbm [4|8] [top]\n", prog);
    fprintf(stderr, "  image.pbm  binary image, P1 (plain) or P4 (raw)\n");
    fprintf(stderr, "  4|8        pixel connectivity (default 8)\n");
    fprintf(stderr, "  top        how many of the largest components to list (default 5)\n");
}

/* Next header integer, skipping whitespace and '#' comments. */
static int header_int(FILE *f, int *out)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
            continue;
        }
        if (c == EOF || !isspace(c))
            break;
    }
    if (c == EOF || !isdigit(c))
        return -1;
    long val = 0;
    while (c != EOF && isdigit(c)) {
        val = val * 10 + (c - '0');
        if (val > 100000)
            return -1;
        c = fgetc(f);
    }
    if (c != EOF && !isspace(c))
        return -1;
    *out = (int)val;
    return 0;
}

static int read_pbm(const char *path, bitmap_t *img)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char magic[2];
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '1' && magic[1] != '4')) {
        fprintf(stderr, "error: %s: not a PBM file (P1 or P4)\n", path);
        fclose(f);
        return -1;
    }
    if (header_int(f, &img->w) || header_int(f, &img->h) || img->w < 1 || img->h < 1) {
        fprintf(stderr, "error: %s: bad PBM header\n", path);
        fclose(f);
        return -1;
    }
    size_t n = (size_t)img->w * img->h;
    img->bit = malloc(n);
    if (!img->bit) {
        fprintf(stderr, "error: out of memory\n");
        fclose(f);
        return -1;
    }
    int ok = 1;
    if (magic[1] == '1') {
        for (size_t i = 0; i < n && ok; i++) {
            int c;
            do
                c = fgetc(f);
            while (c != EOF && isspace(c));
            if (c == '0' || c == '1')
                img->bit[i] = (unsigned char)(c - '0');
            else
                ok = 0;
        }
    } else {
        size_t rowbytes = ((size_t)img->w + 7) / 8;
        unsigned char *row = malloc(rowbytes);
        for (int y = 0; y < img->h && ok; y++) {
            if (!row || fread(row, 1, rowbytes, f) != rowbytes) {
                ok = 0;
                break;
            }
            for (int x = 0; x < img->w; x++)
                img->bit[(size_t)y * img->w + x] = (row[x >> 3] >> (7 - (x & 7))) & 1;
        }
        free(row);
    }
    fclose(f);
    if (!ok) {
        fprintf(stderr, "error: %s: pixel data truncated or malformed\n", path);
        free(img->bit);
        return -1;
    }
    return 0;
}

static int cmp_desc(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x < y) - (x > y);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    int conn = 8, top = 5;
    if (argc >= 3) {
        if (!strcmp(argv[2], "4"))
            conn = 4;
        else if (!strcmp(argv[2], "8"))
            conn = 8;
        else {
            usage(argv[0]);
            return 2;
        }
    }
    if (argc >= 4) {
        char *end;
        long t = strtol(argv[3], &end, 10);
        if (end == argv[3] || *end || t < 1 || t > 1000) {
            usage(argv[0]);
            return 2;
        }
        top = (int)t;
    }

    bitmap_t img;
    if (read_pbm(argv[1], &img))
        return 1;
    const int w = img.w, h = img.h;
    const size_t n = (size_t)w * h;
    if (n >= 2147483647u) {
        fprintf(stderr, "error: %s: image too large\n", argv[1]);
        return 1;
    }

    int *lab = malloc(n * sizeof(int));
    int *next = malloc(n * sizeof(int));
    long *size = malloc(n * sizeof(long));
    if (!lab || !next || !size) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    long fg = 0;
    #pragma omp parallel for reduction(+:fg)
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            int l = img.bit[i] ? (int)i + 1 : 0;
            lab[i] = l;
            next[i] = l;
            size[i] = 0;
            fg += img.bit[i];
        }
    }

    int sweeps = 0;
    long changed;
    do {
        changed = 0;
        sweeps++;
        #pragma omp parallel for reduction(+:changed)
        for (int y = 0; y < h; y++) {
            const int *up = y > 0 ? lab + (size_t)(y - 1) * w : NULL;
            const int *cur = lab + (size_t)y * w;
            const int *down = y + 1 < h ? lab + (size_t)(y + 1) * w : NULL;
            int *out = next + (size_t)y * w;
            for (int x = 0; x < w; x++) {
                int m = cur[x];
                if (m == 0)
                    continue;
                if (x > 0 && cur[x - 1] && cur[x - 1] < m)
                    m = cur[x - 1];
                if (x + 1 < w && cur[x + 1] && cur[x + 1] < m)
                    m = cur[x + 1];
                for (int r = 0; r < 2; r++) {
                    const int *nb = r ? down : up;
                    if (!nb)
                        continue;
                    if (nb[x] && nb[x] < m)
                        m = nb[x];
                    if (conn == 8) {
                        if (x > 0 && nb[x - 1] && nb[x - 1] < m)
                            m = nb[x - 1];
                        if (x + 1 < w && nb[x + 1] && nb[x + 1] < m)
                            m = nb[x + 1];
                    }
                }
                /* pointer jumps: the pixel that started with label m
                   carries a label no larger (old array only) */
                while (lab[m - 1] < m)
                    m = lab[m - 1];
                out[x] = m;
            }
            /* spread the smallest label along horizontal runs of the row */
            for (int x = 1; x < w; x++)
                if (cur[x] && cur[x - 1] && out[x - 1] < out[x])
                    out[x] = out[x - 1];
            for (int x = w - 2; x >= 0; x--)
                if (cur[x] && cur[x + 1] && out[x + 1] < out[x])
                    out[x] = out[x + 1];
            for (int x = 0; x < w; x++)
                if (out[x] != cur[x])
                    changed++;
        }
        int *tmp = lab;
        lab = next;
        next = tmp;
    } while (changed > 0);

    /* component sizes, indexed by the component's label */
    #pragma omp parallel for
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int l = lab[(size_t)y * w + x];
            if (l) {
                #pragma omp atomic
                size[l - 1]++;
            }
        }
    }

    long ncomp = 0, single = 0, small = 0, medium = 0, large = 0;
    #pragma omp parallel for reduction(+:ncomp, single, small, medium, large)
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            long s = size[(size_t)y * w + x];
            if (s == 0)
                continue;
            ncomp++;
            if (s == 1)
                single++;
            else if (s < 100)
                small++;
            else if (s < 10000)
                medium++;
            else
                large++;
        }
    }

    long *sizes = malloc((ncomp ? ncomp : 1) * sizeof(long));
    long k = 0;
    for (size_t i = 0; i < n; i++)
        if (size[i])
            sizes[k++] = size[i];
    qsort(sizes, ncomp, sizeof(long), cmp_desc);

    printf("image: %d x %d, %ld foreground pixels (%.4f%%), %d-connectivity\n",
           w, h, fg, 100.0 * fg / n, conn);
    printf("components: %ld\n", ncomp);
    printf("size classes: 1 px %ld, 2-99 px %ld, 100-9999 px %ld, >= 10000 px %ld\n",
           single, small, medium, large);
    printf("largest:");
    for (long i = 0; i < top && i < ncomp; i++)
        printf(" %ld", sizes[i]);
    printf("\n");
    printf("mean component size: %.3f\n", ncomp ? (double)fg / ncomp : 0.0);
    printf("sweeps: %d\n", sweeps);

    free(sizes);
    free(size);
    free(lab);
    free(next);
    free(img.bit);
    return 0;
}
