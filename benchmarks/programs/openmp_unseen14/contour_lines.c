/*
 * contour_lines: marching squares on a height map.
 *
 * usage: contour_lines heights.bin L cell_size
 *
 * L contour levels are spaced evenly strictly between the lowest and the
 * highest height.  For every level each grid cell is classified by which of
 * its four corners lie at or above the level, the contour segments crossing
 * the cell are placed by linear interpolation along the cell edges (saddles
 * are resolved with the cell centre value), and the number of segments and
 * their total length (cell_size metres per grid step) are reported.
 *
 * Input layout (little endian): "HMAP", int32 width, int32 height, then
 * height rows of width float32 values.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX_SCALE 1024.0   /* lengths are summed in units of 1/1024 m */

/* edges of a cell: 0 top (a-b), 1 right (b-c), 2 bottom (d-c), 3 left (a-d) */
static void edge_point(int e, double va, double vb, double vc, double vd, double lev,
                       double *x, double *y)
{
    switch (e) {
    case 0: *x = (lev - va) / (vb - va); *y = 0.0; break;
    case 1: *x = 1.0; *y = (lev - vb) / (vc - vb); break;
    case 2: *x = (lev - vd) / (vc - vd); *y = 1.0; break;
    default: *x = 0.0; *y = (lev - va) / (vd - va); break;
    }
}

static double seg_len(int e1, int e2, double va, double vb, double vc, double vd, double lev)
{
    double x1, y1, x2, y2;
    edge_point(e1, va, vb, vc, vd, lev, &x1, &y1);
    edge_point(e2, va, vb, vc, vd, lev, &x2, &y2);
    return hypot(x2 - x1, y2 - y1);
}

static int32_t get_i32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: contour_lines heights.bin L cell_size\n");
        return 2;
    }
    char *end;
    long L = strtol(argv[2], &end, 10);
    if (*end != '\0' || end == argv[2] || L < 1 || L > 10000) {
        fprintf(stderr, "usage: contour_lines heights.bin L cell_size   (L in 1..10000)\n");
        return 2;
    }
    double cell = strtod(argv[3], &end);
    if (*end != '\0' || end == argv[3] || !(cell > 0.0) || cell > 1e6) {
        fprintf(stderr, "usage: contour_lines heights.bin L cell_size   (cell_size > 0)\n");
        return 2;
    }

    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "contour_lines: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "HMAP", 4) != 0) {
        fprintf(stderr, "contour_lines: %s: not a height map\n", argv[1]);
        return 1;
    }
    int w = get_i32(hdr + 4), h = get_i32(hdr + 8);
    if (w < 2 || h < 2 || w > 100000 || h > 100000 || (long long)w * h > 200000000LL) {
        fprintf(stderr, "contour_lines: %s: bad dimensions\n", argv[1]);
        return 1;
    }
    size_t n = (size_t)w * h;
    float *z = malloc(n * sizeof *z);
    if (fread(z, sizeof *z, n, f) != n || fgetc(f) != EOF) {
        fprintf(stderr, "contour_lines: %s: file size does not match %dx%d\n", argv[1], w, h);
        return 1;
    }
    fclose(f);
    /* the file is little endian, like the machines this runs on */
    {
        const uint16_t probe = 1;
        if (*(const unsigned char *)&probe != 1) {
            for (size_t i = 0; i < n; i++) {
                uint32_t u;
                memcpy(&u, &z[i], 4);
                u = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
                memcpy(&z[i], &u, 4);
            }
        }
    }

    float zmin = INFINITY, zmax = -INFINITY;
    int bad = 0;
    #pragma omp parallel for reduction(min:zmin) reduction(max:zmax) reduction(|:bad)
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(z[i]))
            bad = 1;
        else {
            if (z[i] < zmin)
                zmin = z[i];
            if (z[i] > zmax)
                zmax = z[i];
        }
    }
    if (bad) {
        fprintf(stderr, "contour_lines: %s: non-finite height\n", argv[1]);
        return 1;
    }

    printf("grid %d x %d, cell %.2f m, heights %.3f .. %.3f m, %ld levels\n", w, h, cell,
           (double)zmin, (double)zmax, L);

    long long all_segments = 0, all_fix = 0;
    long busiest = 0;
    long long busiest_segments = -1;
    for (long l = 0; l < L; l++) {
        double lev = zmin + (double)(zmax - zmin) * (double)(l + 1) / (double)(L + 1);
        long long segments = 0, length_fix = 0;

        #pragma omp parallel for reduction(+:segments, length_fix)
        for (int i = 0; i < h - 1; i++) {
            const float *r0 = z + (size_t)i * w, *r1 = r0 + w;
            for (int j = 0; j < w - 1; j++) {
                double va = r0[j], vb = r0[j + 1], vc = r1[j + 1], vd = r1[j];
                int c = (va >= lev) << 3 | (vb >= lev) << 2 | (vc >= lev) << 1 | (vd >= lev);
                if (c == 0 || c == 15)
                    continue;
                double len;
                switch (c) {
                case 1: case 14: len = seg_len(3, 2, va, vb, vc, vd, lev); break;
                case 2: case 13: len = seg_len(2, 1, va, vb, vc, vd, lev); break;
                case 3: case 12: len = seg_len(3, 1, va, vb, vc, vd, lev); break;
                case 4: case 11: len = seg_len(0, 1, va, vb, vc, vd, lev); break;
                case 6: case 9:  len = seg_len(0, 2, va, vb, vc, vd, lev); break;
                case 7: case 8:  len = seg_len(3, 0, va, vb, vc, vd, lev); break;
                default: {
                    /* saddle: b,d above (5) or a,c above (10) */
                    int centre_above = 0.25 * (va + vb + vc + vd) >= lev;
                    if ((c == 5) == centre_above)
                        len = seg_len(3, 0, va, vb, vc, vd, lev) + seg_len(2, 1, va, vb, vc, vd, lev);
                    else
                        len = seg_len(0, 1, va, vb, vc, vd, lev) + seg_len(3, 2, va, vb, vc, vd, lev);
                    segments++;   /* two segments in this cell */
                    break;
                }
                }
                segments++;
                length_fix += llround(len * cell * FIX_SCALE);
            }
        }

        printf("level %3ld  height %9.3f m  segments %8lld  length %12.1f m\n", l + 1, lev,
               segments, length_fix / FIX_SCALE);
        all_segments += segments;
        all_fix += length_fix;
        if (segments > busiest_segments) {
            busiest_segments = segments;
            busiest = l + 1;
        }
    }
    printf("total: %lld segments, %.1f m of contour lines; most segments at level %ld\n",
           all_segments, all_fix / FIX_SCALE, busiest);
    free(z);
    return 0;
}
