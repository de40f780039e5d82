/*
 * viewshed - line-of-sight visibility analysis on a terrain grid.
 *
 * Usage: viewshed DEM.asc OBSERVERS.txt MAX_RADIUS_M [TARGET_HEIGHT_M]
 *
 * DEM.asc is an ESRI ASCII grid (ncols, nrows, xllcorner, yllcorner,
 * cellsize, optional NODATA_value, then nrows lines of heights, north
 * row first).  OBSERVERS.txt holds one observer per line: "x y h" in map
 * metres, h being the eye height above the ground; '#' starts a comment.
 *
 * For every observer each cell within MAX_RADIUS_M is tested with a line
 * of sight walked cell by cell from the eye to the target (heights
 * interpolated between neighbouring cells, with a curvature/refraction
 * correction).  The report lists the observers with the largest visible
 * area, the cell seen by the most observers and the share of the map
 * covered by at least one observer.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EARTH_R 6371000.0
#define REFRACTION 0.13

typedef struct {
    int ncols, nrows;
    double xll, yll, cell, nodata;
    float *h;
} Grid;

typedef struct {
    double x, y, agl;
    int row, col;
    long visible;
} Observer;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s DEM.asc OBSERVERS.txt MAX_RADIUS_M [TARGET_HEIGHT_M]\n", prog);
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int read_grid(const char *path, Grid *g)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "viewshed: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char key[64];
    double val;
    int have = 0;
    g->nodata = -9999.0;
    for (;;) {
        long pos = ftell(f);
        if (fscanf(f, "%63s", key) != 1)
            break;
        if (!isalpha((unsigned char)key[0])) {
            fseek(f, pos, SEEK_SET);
            break;
        }
        if (fscanf(f, "%lf", &val) != 1)
            goto bad;
        for (char *p = key; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        if (!strcmp(key, "ncols")) { g->ncols = (int)val; have |= 1; }
        else if (!strcmp(key, "nrows")) { g->nrows = (int)val; have |= 2; }
        else if (!strcmp(key, "xllcorner")) { g->xll = val; have |= 4; }
        else if (!strcmp(key, "yllcorner")) { g->yll = val; have |= 8; }
        else if (!strcmp(key, "cellsize")) { g->cell = val; have |= 16; }
        else if (!strcmp(key, "nodata_value")) { g->nodata = val; }
        else goto bad;
    }
    if (have != 31 || g->ncols < 2 || g->nrows < 2 || g->cell <= 0 ||
        (long)g->ncols * g->nrows > 100000000L)
        goto bad;
    size_t n = (size_t)g->ncols * g->nrows;
    g->h = malloc(n * sizeof *g->h);
    if (!g->h) {
        fprintf(stderr, "viewshed: out of memory\n");
        fclose(f);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (fscanf(f, "%lf", &val) != 1) {
            free(g->h);
            goto bad;
        }
        g->h[i] = (val == g->nodata) ? 0.0f : (float)val;
    }
    fclose(f);
    return 0;
bad:
    fprintf(stderr, "viewshed: %s: malformed ESRI ASCII grid\n", path);
    fclose(f);
    return -1;
}

static Observer *read_observers(const char *path, const Grid *g, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "viewshed: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int cap = 16, n = 0, lineno = 0;
    Observer *obs = malloc(cap * sizeof *obs);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            continue;
        Observer o;
        char extra;
        if (sscanf(p, "%lf %lf %lf %c", &o.x, &o.y, &o.agl, &extra) != 3 || o.agl < 0) {
            fprintf(stderr, "viewshed: %s:%d: expected 'x y height'\n", path, lineno);
            free(obs);
            fclose(f);
            return NULL;
        }
        o.col = (int)floor((o.x - g->xll) / g->cell);
        o.row = g->nrows - 1 - (int)floor((o.y - g->yll) / g->cell);
        if (o.col < 0 || o.col >= g->ncols || o.row < 0 || o.row >= g->nrows) {
            fprintf(stderr, "viewshed: %s:%d: observer outside the grid\n", path, lineno);
            free(obs);
            fclose(f);
            return NULL;
        }
        o.visible = 0;
        if (n == cap) {
            cap *= 2;
            obs = realloc(obs, cap * sizeof *obs);
        }
        obs[n++] = o;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "viewshed: %s: no observers\n", path);
        free(obs);
        return NULL;
    }
    *count = n;
    return obs;
}

/* Height of the terrain at cell (r, c) as seen from a distance d (metres):
 * the ground drops away with the earth's curvature, partly compensated by
 * atmospheric refraction. */
static inline double curved(double h, double d)
{
    return h - (1.0 - REFRACTION) * d * d / (2.0 * EARTH_R);
}

/* Returns 1 when the target cell (tr, tc) is visible from the eye at
 * (orow, ocol) with absolute height eye. */
static int line_of_sight(const Grid *g, int orow, int ocol, double eye,
                         int tr, int tc, double target_agl)
{
    int dr = tr - orow, dc = tc - ocol;
    int adr = abs(dr), adc = abs(dc);
    int steps = adr > adc ? adr : adc;
    if (steps <= 1)
        return 1;
    double total = g->cell * sqrt((double)dr * dr + (double)dc * dc);
    double target = curved(g->h[(size_t)tr * g->ncols + tc] + target_agl, total);
    double target_slope = (target - eye) / total;
    double max_slope = -INFINITY;
    const float *h = g->h;
    int nc = g->ncols;

    if (adr >= adc) {
        /* walk along rows, interpolate between columns */
        int sr = dr > 0 ? 1 : -1;
        double dcol = (double)dc / adr;
        for (int k = 1; k < steps; k++) {
            int r = orow + sr * k;
            double cf = ocol + dcol * k;
            int c0 = (int)floor(cf);
            double t = cf - c0;
            int c1 = c0 + (t > 0.0);
            double z = h[(size_t)r * nc + c0] * (1.0 - t) + h[(size_t)r * nc + c1] * t;
            double d = total * k / steps;
            double s = (curved(z, d) - eye) / d;
            if (s > max_slope) {
                max_slope = s;
                if (max_slope > target_slope)
                    return 0;
            }
        }
    } else {
        /* walk along columns, interpolate between rows */
        int sc = dc > 0 ? 1 : -1;
        double drow = (double)dr / adc;
        for (int k = 1; k < steps; k++) {
            int c = ocol + sc * k;
            double rf = orow + drow * k;
            int r0 = (int)floor(rf);
            double t = rf - r0;
            int r1 = r0 + (t > 0.0);
            double z = h[(size_t)r0 * nc + c] * (1.0 - t) + h[(size_t)r1 * nc + c] * t;
            double d = total * k / steps;
            double s = (curved(z, d) - eye) / d;
            if (s > max_slope) {
                max_slope = s;
                if (max_slope > target_slope)
                    return 0;
            }
        }
    }
    return 1;
}

static int cmp_observer(const void *a, const void *b)
{
    const Observer *x = *(const Observer *const *)a, *y = *(const Observer *const *)b;
    if (x->visible != y->visible)
        return x->visible > y->visible ? -1 : 1;
    return x < y ? -1 : (x > y);
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        usage(argv[0]);
        return 2;
    }
    double radius_m, target_agl = 0.0;
    if (parse_double(argv[3], &radius_m) || radius_m <= 0) {
        usage(argv[0]);
        return 2;
    }
    if (argc == 5 && (parse_double(argv[4], &target_agl) || target_agl < 0)) {
        usage(argv[0]);
        return 2;
    }

    Grid g;
    if (read_grid(argv[1], &g))
        return 1;
    int nobs;
    Observer *obs = read_observers(argv[2], &g, &nobs);
    if (!obs)
        return 1;

    int nr = g.nrows, nc = g.ncols;
    size_t ncell = (size_t)nr * nc;
    int rad = (int)(radius_m / g.cell);
    double rad2 = (radius_m / g.cell) * (radius_m / g.cell);
    unsigned short *count = calloc(ncell, sizeof *count);
    long *row_visible = malloc((size_t)nr * sizeof *row_visible);
    if (!count || !row_visible) {
        fprintf(stderr, "viewshed: out of memory\n");
        return 1;
    }

    for (int o = 0; o < nobs; o++) {
        Observer *ob = &obs[o];
        double eye = g.h[(size_t)ob->row * nc + ob->col] + ob->agl;
        int r_lo = ob->row - rad < 0 ? 0 : ob->row - rad;
        int r_hi = ob->row + rad >= nr ? nr - 1 : ob->row + rad;

        #pragma omp parallel for
        for (int r = r_lo; r <= r_hi; r++) {
            long vis = 0;
            int dr = r - ob->row;
            double half = sqrt(rad2 - (double)dr * dr);
            int c_lo = ob->col - (int)half, c_hi = ob->col + (int)half;
            if (c_lo < 0) c_lo = 0;
            if (c_hi >= nc) c_hi = nc - 1;
            for (int c = c_lo; c <= c_hi; c++) {
                int dc = c - ob->col;
                if ((double)dr * dr + (double)dc * dc > rad2)
                    continue;
                if (line_of_sight(&g, ob->row, ob->col, eye, r, c, target_agl)) {
                    count[(size_t)r * nc + c]++;
                    vis++;
                }
            }
            row_visible[r] = vis;
        }

        long total = 0;
        for (int r = r_lo; r <= r_hi; r++)
            total += row_visible[r];
        ob->visible = total;
    }

    /* cells seen by at least one observer, and the most watched cell */
    long covered = 0;
    int best = 0;
    #pragma omp parallel for reduction(+:covered) reduction(max:best)
    for (int r = 0; r < nr; r++) {
        for (int c = 0; c < nc; c++) {
            int k = count[(size_t)r * nc + c];
            if (k > 0)
                covered++;
            if (k > best)
                best = k;
        }
    }
    size_t best_cell = 0;
    for (size_t i = 0; i < ncell; i++)
        if (count[i] == best) {
            best_cell = i;
            break;
        }

    Observer **order = malloc(nobs * sizeof *order);
    for (int o = 0; o < nobs; o++)
        order[o] = &obs[o];
    qsort(order, nobs, sizeof *order, cmp_observer);

    double cell_area = g.cell * g.cell / 1e6;   /* km^2 */
    printf("grid %d x %d, cell %.1f m, %d observers, radius %.0f m, target height %.1f m\n",
           nc, nr, g.cell, nobs, radius_m, target_agl);
    printf("top observers by visible area:\n");
    printf("  rank  obs       x_m       y_m   agl_m  visible_cells  area_km2\n");
    int top = nobs < 10 ? nobs : 10;
    for (int i = 0; i < top; i++) {
        const Observer *ob = order[i];
        printf("  %4d  %3d  %8.1f  %8.1f  %6.1f  %13ld  %8.3f\n", i + 1,
               (int)(ob - obs) + 1, ob->x, ob->y, ob->agl, ob->visible,
               ob->visible * cell_area);
    }
    long sum = 0;
    for (int o = 0; o < nobs; o++)
        sum += obs[o].visible;
    printf("mean visible area per observer: %.3f km2\n", sum * cell_area / nobs);
    int br = (int)(best_cell / nc), bc = (int)(best_cell % nc);
    printf("most watched cell: row %d col %d (x %.1f m, y %.1f m, height %.1f m) seen by %d observers\n",
           br, bc, g.xll + (bc + 0.5) * g.cell, g.yll + (nr - 1 - br + 0.5) * g.cell,
           g.h[best_cell], best);
    printf("covered by at least one observer: %ld of %zu cells (%.2f%%), %.3f km2\n",
           covered, ncell, 100.0 * covered / ncell, covered * cell_area);

    free(order);
    free(row_visible);
    free(count);
    free(obs);
    free(g.h);
    return 0;
}
