/*
 * seam_carve.c - content-aware image shrinking (seam carving).
 *
 * Reads a binary PGM (P5) or PPM (P6) image with maxval <= 255 and removes
 * the requested number of vertical seams.  For every seam the dual-gradient
 * energy of the current image is computed, a cumulative minimum-energy map
 * is built row by row, the cheapest seam is traced back from the bottom row
 * and removed.  Prints the final size, the total energy removed and a
 * checksum of the remaining pixels.
 *
 * usage: seam_carve IMAGE.pgm|IMAGE.ppm N_SEAMS
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIP 64 /* columns per task in the cumulative-energy pass */

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s IMAGE.pgm|IMAGE.ppm N_SEAMS\n", prog);
    exit(2);
}

/* read one header integer, skipping white space and comments */
static int header_int(FILE *f, long *out)
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
    if (c < '0' || c > '9')
        return 0;
    long v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        if (v > 100000000)
            return 0;
        c = fgetc(f);
    }
    /* exactly one white-space character follows the last header field */
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        return 0;
    *out = v;
    return 1;
}

static unsigned char *read_image(const char *path, int *w, int *h, int *ch)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "seam_carve: cannot open '%s'\n", path);
        exit(1);
    }
    char magic[2];
    long W, H, maxval;
    if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6') ||
        !header_int(f, &W) || !header_int(f, &H) || !header_int(f, &maxval) ||
        W < 3 || H < 1 || maxval < 1 || maxval > 255 || W * H > 50000000) {
        fprintf(stderr, "seam_carve: %s: not a binary PGM/PPM image with maxval <= 255\n", path);
        fclose(f);
        exit(1);
    }
    int c = magic[1] == '6' ? 3 : 1;
    size_t n = (size_t)W * (size_t)H * (size_t)c;
    unsigned char *px = malloc(n);
    if (!px || fread(px, 1, n, f) != n) {
        fprintf(stderr, "seam_carve: %s: truncated pixel data\n", path);
        fclose(f);
        exit(1);
    }
    fclose(f);
    *w = (int)W;
    *h = (int)H;
    *ch = c;
    return px;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage(argv[0]);
    char *end;
    long nseams = strtol(argv[2], &end, 10);
    if (*end || nseams < 0)
        usage(argv[0]);

    int W, H, C;
    unsigned char *px = read_image(argv[1], &W, &H, &C);
    if (nseams > W - 2) {
        fprintf(stderr, "seam_carve: cannot remove %ld seams from an image %d pixels wide\n",
                nseams, W);
        return 2;
    }
    const size_t stride = (size_t)W * (size_t)C; /* row stride stays the original width */
    double *energy = malloc((size_t)W * (size_t)H * sizeof(double));
    double *cum = malloc((size_t)W * (size_t)H * sizeof(double));
    int *seam = malloc((size_t)H * sizeof(int));
    double *seam_energy = malloc((size_t)(nseams > 0 ? nseams : 1) * sizeof(double));
    if (!energy || !cum || !seam || !seam_energy) {
        fprintf(stderr, "seam_carve: out of memory\n");
        return 1;
    }

    int w = W;
    for (long s = 0; s < nseams; s++) {
        /* dual-gradient energy of the current image */
#pragma omp parallel for
        for (int y = 0; y < H; y++) {
            const unsigned char *row = px + (size_t)y * stride;
            const unsigned char *up = px + (size_t)(y > 0 ? y - 1 : y) * stride;
            const unsigned char *dn = px + (size_t)(y < H - 1 ? y + 1 : y) * stride;
            double *er = energy + (size_t)y * W;
            for (int x = 0; x < w; x++) {
                int xl = x > 0 ? x - 1 : x;
                int xr = x < w - 1 ? x + 1 : x;
                int dx2 = 0, dy2 = 0;
                for (int k = 0; k < C; k++) {
                    int dx = (int)row[xr * C + k] - (int)row[xl * C + k];
                    int dy = (int)dn[x * C + k] - (int)up[x * C + k];
                    dx2 += dx * dx;
                    dy2 += dy * dy;
                }
                er[x] = sqrt((double)(dx2 + dy2));
            }
        }

        /* cumulative minimum energy, one row after the other */
        memcpy(cum, energy, (size_t)w * sizeof(double));
        for (int y = 1; y < H; y++) {
            const double *prev = cum + (size_t)(y - 1) * W;
            double *cur = cum + (size_t)y * W;
            const double *er = energy + (size_t)y * W;
            /* columns are handled in strips so that each task is not too tiny */
            int nstrips = (w + STRIP - 1) / STRIP;
#pragma omp parallel for
            for (int b = 0; b < nstrips; b++) {
                int x1 = (b + 1) * STRIP < w ? (b + 1) * STRIP : w;
                for (int x = b * STRIP; x < x1; x++) {
                    double best = prev[x];
                    if (x > 0 && prev[x - 1] < best)
                        best = prev[x - 1];
                    if (x < w - 1 && prev[x + 1] < best)
                        best = prev[x + 1];
                    cur[x] = er[x] + best;
                }
            }
        }

        /* trace the cheapest seam back from the bottom row */
        const double *last = cum + (size_t)(H - 1) * W;
        int x = 0;
        for (int i = 1; i < w; i++)
            if (last[i] < last[x])
                x = i;
        seam[H - 1] = x;
        for (int y = H - 2; y >= 0; y--) {
            const double *row = cum + (size_t)y * W;
            int bx = x;
            if (x > 0 && row[x - 1] < row[bx])
                bx = x - 1;
            if (x < w - 1 && row[x + 1] < row[bx])
                bx = x + 1;
            x = bx;
            seam[y] = x;
        }
        double e = 0.0;
        for (int y = 0; y < H; y++)
            e += energy[(size_t)y * W + seam[y]];
        seam_energy[s] = e;

        /* remove the seam from every row */
#pragma omp parallel for
        for (int y = 0; y < H; y++) {
            unsigned char *row = px + (size_t)y * stride;
            int sx = seam[y];
            memmove(row + (size_t)sx * C, row + (size_t)(sx + 1) * C,
                    (size_t)(w - 1 - sx) * C);
        }
        w--;
    }

    double total = 0.0, emin = 0.0, emax = 0.0;
    for (long s = 0; s < nseams; s++) {
        total += seam_energy[s];
        if (s == 0 || seam_energy[s] < emin) emin = seam_energy[s];
        if (s == 0 || seam_energy[s] > emax) emax = seam_energy[s];
    }

    uint64_t hash = 1469598103934665603ULL; /* FNV-1a over the remaining pixels */
    for (int y = 0; y < H; y++) {
        const unsigned char *row = px + (size_t)y * stride;
        for (size_t i = 0; i < (size_t)w * C; i++) {
            hash ^= row[i];
            hash *= 1099511628211ULL;
        }
    }

    printf("image: %d x %d, %d channel%s\n", W, H, C, C == 1 ? "" : "s");
    printf("seams removed: %ld, final size %d x %d\n", nseams, w, H);
    printf("total removed energy: %.6f\n", total);
    if (nseams > 0)
        printf("seam energy: min %.6f, mean %.6f, max %.6f\n", emin, total / (double)nseams, emax);
    printf("pixel checksum: %016llx\n", (unsigned long long)hash);

    free(px); free(energy); free(cum); free(seam); free(seam_energy);
    return 0;
}
