/*
 * particle_deposit.c - deposit particle charge onto a 2-D mesh with
 * cloud-in-cell (bilinear) weights and summarise the resulting density.
 *
 * Usage: particle_deposit <grid size> <particle file>...
 *
 * Particle files are little-endian binary dumps:
 *
 *     8 bytes   magic "PART2D01"
 *     uint64    number of particles
 *     float64   xmin, xmax, ymin, ymax   (simulation box)
 *     then per particle: float32 x, float32 y, float32 charge
 *
 * All files must describe the same box.  The mesh is periodic and
 * cell-centred; particles outside the box are dropped and counted.
 * Charge is accumulated in 2^-30 fixed point so that the deposit is
 * exactly charge-conserving and independent of summation order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>

#define FIX_SCALE 1073741824.0   /* 2^30 */
#define BANDS 8

typedef struct {
    float x, y, q;
} Particle;

static const char *prog = "particle_deposit";

static void usage(void)
{
    fprintf(stderr, "usage: %s <grid size 16..4096> <particle file>...\n", prog);
    exit(2);
}

static void die_file(const char *path, const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", prog, path, what);
    exit(1);
}

static double box[4];
static int have_box = 0;

/* Append the particles of one file to *parts. */
static void load_particles(const char *path, Particle **parts, size_t *n, size_t *cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    unsigned char hdr[48];
    if (fread(hdr, 1, sizeof hdr, f) != sizeof hdr)
        die_file(path, "truncated header");
    if (memcmp(hdr, "PART2D01", 8) != 0)
        die_file(path, "not a particle file (bad magic)");
    uint64_t count;
    double b[4];
    memcpy(&count, hdr + 8, 8);
    memcpy(b, hdr + 16, 32);
    if (!(b[0] < b[1]) || !(b[2] < b[3]) || !isfinite(b[0]) || !isfinite(b[1]) ||
        !isfinite(b[2]) || !isfinite(b[3]))
        die_file(path, "bad box in header");
    if (have_box) {
        for (int k = 0; k < 4; k++)
            if (b[k] != box[k])
                die_file(path, "box differs from the first particle file");
    } else {
        memcpy(box, b, sizeof box);
        have_box = 1;
    }
    if (fseek(f, 0, SEEK_END) != 0)
        die_file(path, "cannot seek");
    long size = ftell(f);
    if (size < 0 || count > (uint64_t)1 << 32 ||
        (uint64_t)size != sizeof hdr + count * 3 * sizeof(float))
        die_file(path, "file size does not match particle count");
    fseek(f, (long)sizeof hdr, SEEK_SET);

    if (*n + count > *cap) {
        while (*n + count > *cap)
            *cap = *cap ? 2 * *cap : 1 << 20;
        *parts = realloc(*parts, *cap * sizeof **parts);
        if (!*parts) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
    }
    Particle *dst = *parts + *n;
    if (fread(dst, sizeof(Particle), count, f) != count)
        die_file(path, "read error");
    for (uint64_t k = 0; k < count; k++)
        if (!isfinite(dst[k].x) || !isfinite(dst[k].y) || !isfinite(dst[k].q) ||
            fabsf(dst[k].q) > 1e3f)
            die_file(path, "particle with invalid coordinates or charge");
    fclose(f);
    *n += count;
}

static double fx(long long v)
{
    return (double)v / FIX_SCALE;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    char *end;
    errno = 0;
    long ng = strtol(argv[1], &end, 10);
    if (errno || end == argv[1] || *end || ng < 16 || ng > 4096)
        usage();
    const int N = (int)ng;

    Particle *parts = NULL;
    size_t np = 0, cap = 0;
    for (int a = 2; a < argc; a++)
        load_particles(argv[a], &parts, &np, &cap);

    const double x0 = box[0], x1 = box[1], y0 = box[2], y1 = box[3];
    const double inv_dx = N / (x1 - x0), inv_dy = N / (y1 - y0);
    const size_t cells = (size_t)N * N;
    long long *grid = calloc(cells, sizeof *grid);
    long long *rowsum = calloc((size_t)N, sizeof *rowsum);
    long long *colsum = calloc((size_t)N, sizeof *colsum);
    if (!grid || !rowsum || !colsum) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }

    /* ---- cloud-in-cell deposit ---- */
    long long qin = 0, qabs = 0;
    long dropped = 0;
    const long n = (long)np;
    #pragma omp parallel for reduction(+:qin, qabs, dropped)
    for (long k = 0; k < n; k++) {
        double x = parts[k].x, y = parts[k].y, q = parts[k].q;
        if (!(x >= x0 && x < x1 && y >= y0 && y < y1)) {
            dropped++;
            continue;
        }
        double gx = (x - x0) * inv_dx - 0.5;
        double gy = (y - y0) * inv_dy - 0.5;
        double fxl = floor(gx), fyl = floor(gy);
        double wx = gx - fxl, wy = gy - fyl;
        int i0 = (int)fxl, j0 = (int)fyl;
        int i1 = i0 + 1, j1 = j0 + 1;
        if (i0 < 0) i0 += N;
        if (j0 < 0) j0 += N;
        if (i1 >= N) i1 -= N;
        if (j1 >= N) j1 -= N;

        long long qs = llrint(q * FIX_SCALE);
        long long c00 = llrint(q * FIX_SCALE * (1.0 - wx) * (1.0 - wy));
        long long c10 = llrint(q * FIX_SCALE * wx * (1.0 - wy));
        long long c01 = llrint(q * FIX_SCALE * (1.0 - wx) * wy);
        long long c11 = qs - c00 - c10 - c01;   /* exact conservation */
        qin += qs;
        qabs += qs < 0 ? -qs : qs;

        #pragma omp atomic
        grid[(size_t)j0 * N + i0] += c00;
        #pragma omp atomic
        grid[(size_t)j0 * N + i1] += c10;
        #pragma omp atomic
        grid[(size_t)j1 * N + i0] += c01;
        #pragma omp atomic
        grid[(size_t)j1 * N + i1] += c11;
    }

    /* ---- grid statistics ---- */
    long long total = 0, peak = LLONG_MIN, trough = LLONG_MAX;
    long occupied = 0;
    const long ncells = (long)cells;
    #pragma omp parallel for reduction(+:total, occupied) reduction(max:peak) reduction(min:trough)
    for (long c = 0; c < ncells; c++) {
        long long v = grid[c];
        total += v;
        occupied += v != 0;
        if (v > peak) peak = v;
        if (v < trough) trough = v;
    }
    long peak_at = LONG_MAX, trough_at = LONG_MAX;
    #pragma omp parallel for reduction(min:peak_at, trough_at)
    for (long c = 0; c < ncells; c++) {
        if (grid[c] == peak && c < peak_at) peak_at = c;
        if (grid[c] == trough && c < trough_at) trough_at = c;
    }

    #pragma omp parallel for
    for (int j = 0; j < N; j++) {
        long long s = 0;
        for (int i = 0; i < N; i++)
            s += grid[(size_t)j * N + i];
        rowsum[j] = s;
    }
    #pragma omp parallel for
    for (int i = 0; i < N; i++) {
        long long s = 0;
        for (int j = 0; j < N; j++)
            s += grid[(size_t)j * N + i];
        colsum[i] = s;
    }

    /* ---- report ---- */
    printf("particles: %zu read from %d file%s, %ld deposited, %ld outside the box\n",
           np, argc - 2, argc == 3 ? "" : "s", n - dropped, dropped);
    printf("mesh: %d x %d cells over [%g, %g) x [%g, %g), cell %.6g x %.6g\n",
           N, N, x0, x1, y0, y1, (x1 - x0) / N, (y1 - y0) / N);
    printf("charge: deposited particles %.6f, on mesh %.6f (%s), |q| sum %.6f\n",
           fx(qin), fx(total), qin == total ? "conserved" : "NOT conserved", fx(qabs));
    printf("occupied cells: %ld of %ld (%.2f%%)\n", occupied, ncells,
           100.0 * occupied / ncells);
    printf("peak cell:   row %4ld col %4ld  charge %14.6f\n",
           peak_at / N, peak_at % N, fx(peak));
    printf("lowest cell: row %4ld col %4ld  charge %14.6f\n",
           trough_at / N, trough_at % N, fx(trough));

    const char *names[2] = { "row", "column" };
    const long long *prof[2] = { rowsum, colsum };
    for (int d = 0; d < 2; d++) {
        const long long *p = prof[d];
        int imax = 0, imin = 0;
        double m1 = 0.0, m2 = 0.0, w = 0.0;
        for (int i = 0; i < N; i++) {
            if (p[i] > p[imax]) imax = i;
            if (p[i] < p[imin]) imin = i;
            double v = fabs(fx(p[i]));
            w += v;
            m1 += v * i;
            m2 += v * (double)i * i;
        }
        double mean = w > 0 ? m1 / w : 0.0;
        double var = w > 0 ? m2 / w - mean * mean : 0.0;
        printf("%s profile: max %s %d (%.6f), min %s %d (%.6f), |q|-centroid %.3f, rms width %.3f\n",
               names[d], names[d], imax, fx(p[imax]), names[d], imin, fx(p[imin]),
               mean, var > 0 ? sqrt(var) : 0.0);
        printf("  %s bands of %d:", names[d], N / BANDS);
        for (int b = 0; b < BANDS; b++) {
            long long s = 0;
            for (int i = b * (N / BANDS); i < (b + 1) * (N / BANDS) || (b == BANDS - 1 && i < N); i++)
                s += p[i];
            printf(" %.3f", fx(s));
        }
        printf("\n");
    }

    free(grid);
    free(rowsum);
    free(colsum);
    free(parts);
    return 0;
}
