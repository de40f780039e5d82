/*
 * fractal_frames.c - escape-time fractal zoom sequence.
 *
 * Usage: fractal_frames <path file> <last frame.pgm>
 *
 * The path file gives the fractal (mandelbrot or burningship), the number of
 * frames, the start and end centre, the start view width, the zoom factor per
 * frame and the iteration limit (start value plus increase per frame).  Each
 * frame is 360x240 pixels; the centre follows the zoom, moving from the start
 * centre toward the end centre in proportion to the shrinking view width.
 * For every frame the program prints the number of interior points (that never
 * escaped) and a summary of the escape-iteration histogram; the last frame is
 * written as a binary PGM.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 360
#define H 240

typedef struct {
    int burning;
    int frames;
    double cx0, cy0, cx1, cy1;
    double width0, zoom;
    int iter0, iter_step;
} Params;

static int parse_params(const char *path, Params *p)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fractal_frames: cannot open %s\n", path);
        return 0;
    }
    char line[256];
    int seen = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char key[64];
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        if (sscanf(s, "%63s", key) != 1)
            continue;
        const char *rest = s + strlen(key);
        int ok = 0;
        if (strcmp(key, "fractal") == 0) {
            char name[64];
            if (sscanf(rest, "%63s", name) == 1) {
                if (strcmp(name, "mandelbrot") == 0) { p->burning = 0; ok = 1; }
                else if (strcmp(name, "burningship") == 0) { p->burning = 1; ok = 1; }
            }
            seen |= 1;
        } else if (strcmp(key, "frames") == 0) {
            ok = sscanf(rest, "%d", &p->frames) == 1 && p->frames >= 1 && p->frames <= 10000;
            seen |= 2;
        } else if (strcmp(key, "center_start") == 0) {
            ok = sscanf(rest, "%lf %lf", &p->cx0, &p->cy0) == 2;
            seen |= 4;
        } else if (strcmp(key, "center_end") == 0) {
            ok = sscanf(rest, "%lf %lf", &p->cx1, &p->cy1) == 2;
            seen |= 8;
        } else if (strcmp(key, "width_start") == 0) {
            ok = sscanf(rest, "%lf", &p->width0) == 1 && p->width0 > 0 && p->width0 < 100;
            seen |= 16;
        } else if (strcmp(key, "zoom_per_frame") == 0) {
            ok = sscanf(rest, "%lf", &p->zoom) == 1 && p->zoom > 0 && p->zoom <= 1;
            seen |= 32;
        } else if (strcmp(key, "maxiter_start") == 0) {
            ok = sscanf(rest, "%d", &p->iter0) == 1 && p->iter0 >= 1 && p->iter0 <= 1000000;
            seen |= 64;
        } else if (strcmp(key, "maxiter_per_frame") == 0) {
            ok = sscanf(rest, "%d", &p->iter_step) == 1 && p->iter_step >= 0 && p->iter_step <= 100000;
            seen |= 128;
        }
        if (!ok) {
            fprintf(stderr, "fractal_frames: %s:%d: bad or unknown entry '%s'\n", path, lineno, key);
            fclose(f);
            return 0;
        }
    }
    fclose(f);
    if (seen != 255) {
        fprintf(stderr, "fractal_frames: %s: missing entries (need fractal, frames, center_start, "
                        "center_end, width_start, zoom_per_frame, maxiter_start, maxiter_per_frame)\n", path);
        return 0;
    }
    return 1;
}

static inline int escape_time(double cr, double ci, int maxiter, int burning)
{
    double zr = 0.0, zi = 0.0, zr2 = 0.0, zi2 = 0.0;
    int it = 0;
    if (burning) {
        while (it < maxiter && zr2 + zi2 <= 4.0) {
            double t = 2.0 * fabs(zr * zi);
            zr = zr2 - zi2 + cr;
            zi = t + ci;
            zr2 = zr * zr;
            zi2 = zi * zi;
            it++;
        }
    } else {
        while (it < maxiter && zr2 + zi2 <= 4.0) {
            zi = 2.0 * zr * zi + ci;
            zr = zr2 - zi2 + cr;
            zr2 = zr * zr;
            zi2 = zi * zi;
            it++;
        }
    }
    return it;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s <path file> <last frame.pgm>\n", argv[0]);
        return 2;
    }
    Params p;
    if (!parse_params(argv[1], &p))
        return 1;

    int *img = malloc(sizeof(int) * W * H);
    
    if (!img) {
        fprintf(stderr, "fractal_frames: out of memory\n");
        return 1;
    }
    printf("%s zoom, %d frames of %dx%d\n", p.burning ? "burning ship" : "mandelbrot", p.frames, W, H);
    printf("frame     width        maxiter  interior  escaped   <16  16-63 64-255 >=256  median  mean\n");

    long total_iters = 0;
    int maxiter = p.iter0;
    for (int fr = 0; fr < p.frames; fr++) {
        double width = p.width0 * pow(p.zoom, fr);
        double t = width / p.width0;           /* 1 at the start, shrinking toward 0 */
        double cx = p.cx1 + (p.cx0 - p.cx1) * t;
        double cy = p.cy1 + (p.cy0 - p.cy1) * t;
        double step = width / W;
        maxiter = p.iter0 + p.iter_step * fr;
        int burning = p.burning;

#pragma omp parallel for
        for (int y = 0; y < H; y++) {
            double ci = cy + (y - H / 2 + 0.5) * step;
            if (burning)
                ci = cy - (y - H / 2 + 0.5) * step;   /* ship drawn upright */
            for (int x = 0; x < W; x++) {
                double cr = cx + (x - W / 2 + 0.5) * step;
                img[y * W + x] = escape_time(cr, ci, maxiter, burning);
            }
        }

        /* histogram summary (sequential, integer) */
        long interior = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0, sum = 0;
        int *cnt = calloc((size_t)maxiter + 1, sizeof(int));
        for (int i = 0; i < W * H; i++) {
            int it = img[i];
            total_iters += it;
            if (it >= maxiter) {
                interior++;
                continue;
            }
            cnt[it]++;
            sum += it;
            if (it < 16) b0++;
            else if (it < 64) b1++;
            else if (it < 256) b2++;
            else b3++;
        }
        long escaped = (long)W * H - interior;
        int median = 0;
        if (escaped > 0) {
            long acc = 0;
            for (int k = 0; k < maxiter; k++) {
                acc += cnt[k];
                if (2 * acc >= escaped) {
                    median = k;
                    break;
                }
            }
        }
        free(cnt);
        double mean = escaped > 0 ? (double)sum / (double)escaped : 0.0;
        printf("%5d  %.6e  %7d  %8ld  %7ld  %5ld %5ld %7ld %6ld  %6d  %.2f\n",
               fr, width, maxiter, interior, escaped, b0, b1, b2, b3, median, mean);
    }
    printf("total iterations over all frames: %ld\n", total_iters);

    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        fprintf(stderr, "fractal_frames: cannot write %s\n", argv[2]);
        free(img);
        return 1;
    }
    fprintf(out, "P5\n%d %d\n255\n", W, H);
    unsigned char *row = malloc(W);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            int it = img[y * W + x];
            int v;
            if (it >= maxiter)
                v = 0;
            else
                v = 40 + (int)(215.0 * sqrt((double)it / (double)maxiter));
            row[x] = (unsigned char)(v > 255 ? 255 : v);
        }
        fwrite(row, 1, W, out);
    }
    free(row);
    fclose(out);
    printf("last frame written to %s\n", argv[2]);
    free(img);
    return 0;
}
