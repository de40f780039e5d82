/* pip_count: assign points to polygonal regions (first containing region in
 * file order wins), using a bounding-box prefilter and even-odd ray casting
 * over all rings (so holes are handled).  Also rasterises the regions on a
 * regular lattice to estimate coverage.
 *
 * usage: pip_count REGIONS POINTS GRID_N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    char name[64];
    int nrings;
    int *ring_start;   /* offsets into the region's vertex arrays, nrings+1 entries */
    double *x, *y;
    double xmin, xmax, ymin, ymax;
} Region;

static Region *regions;
static int nregions;

static void die_file(const char *path, const char *what)
{
    fprintf(stderr, "pip_count: %s: %s\n", path, what);
    exit(1);
}

static void skip_comments(FILE *f)
{
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            continue;
        } else {
            ungetc(c, f);
            return;
        }
    }
}

static void read_regions(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die_file(path, "cannot open file");
    skip_comments(f);
    if (fscanf(f, "%d", &nregions) != 1 || nregions <= 0 || nregions > 1000000)
        die_file(path, "bad region count");
    regions = calloc((size_t)nregions, sizeof(Region));
    for (int r = 0; r < nregions; r++) {
        Region *g = &regions[r];
        if (fscanf(f, "%63s %d", g->name, &g->nrings) != 2 || g->nrings <= 0 || g->nrings > 10000)
            die_file(path, "bad region header");
        g->ring_start = malloc(sizeof(int) * (size_t)(g->nrings + 1));
        int cap = 64, total = 0;
        g->x = malloc(sizeof(double) * (size_t)cap);
        g->y = malloc(sizeof(double) * (size_t)cap);
        for (int k = 0; k < g->nrings; k++) {
            int nv;
            if (fscanf(f, "%d", &nv) != 1 || nv < 3 || nv > 10000000)
                die_file(path, "bad ring vertex count");
            g->ring_start[k] = total;
            if (total + nv > cap) {
                while (total + nv > cap)
                    cap *= 2;
                g->x = realloc(g->x, sizeof(double) * (size_t)cap);
                g->y = realloc(g->y, sizeof(double) * (size_t)cap);
            }
            for (int v = 0; v < nv; v++) {
                if (fscanf(f, "%lf %lf", &g->x[total + v], &g->y[total + v]) != 2)
                    die_file(path, "bad vertex line");
            }
            total += nv;
        }
        g->ring_start[g->nrings] = total;
        g->xmin = g->xmax = g->x[0];
        g->ymin = g->ymax = g->y[0];
        for (int v = 1; v < total; v++) {
            if (g->x[v] < g->xmin) g->xmin = g->x[v];
            if (g->x[v] > g->xmax) g->xmax = g->x[v];
            if (g->y[v] < g->ymin) g->ymin = g->y[v];
            if (g->y[v] > g->ymax) g->ymax = g->y[v];
        }
    }
    fclose(f);
}

static double *px, *py;
static int npoints;

static void read_points(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die_file(path, "cannot open file");
    skip_comments(f);
    if (fscanf(f, "%d", &npoints) != 1 || npoints <= 0 || npoints > 100000000)
        die_file(path, "bad point count");
    px = malloc(sizeof(double) * (size_t)npoints);
    py = malloc(sizeof(double) * (size_t)npoints);
    for (int i = 0; i < npoints; i++)
        if (fscanf(f, "%lf %lf", &px[i], &py[i]) != 2)
            die_file(path, "bad point line");
    fclose(f);
}

/* even-odd rule over every ring of the region */
static int inside(const Region *g, double x, double y)
{
    int in = 0;
    for (int k = 0; k < g->nrings; k++) {
        int s = g->ring_start[k], e = g->ring_start[k + 1];
        int j = e - 1;
        for (int i = s; i < e; j = i++) {
            double yi = g->y[i], yj = g->y[j];
            if ((yi > y) != (yj > y)) {
                double xc = g->x[j] + (y - yj) * (g->x[i] - g->x[j]) / (yi - yj);
                if (x < xc)
                    in = !in;
            }
        }
    }
    return in;
}

static int locate(double x, double y)
{
    for (int r = 0; r < nregions; r++) {
        const Region *g = &regions[r];
        if (x < g->xmin || x > g->xmax || y < g->ymin || y > g->ymax)
            continue;
        if (inside(g, x, y))
            return r;
    }
    return -1;
}

static double ring_area(const Region *g, int k)
{
    int s = g->ring_start[k], e = g->ring_start[k + 1];
    double a = 0.0;
    int j = e - 1;
    for (int i = s; i < e; j = i++)
        a += g->x[j] * g->y[i] - g->x[i] * g->y[j];
    return a > 0 ? 0.5 * a : -0.5 * a;
}

static long *sort_key;
static int cmp_desc(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (sort_key[i] != sort_key[j])
        return sort_key[i] > sort_key[j] ? -1 : 1;
    return i - j;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s REGIONS POINTS GRID_N\n", argv[0]);
        return 2;
    }
    char *end;
    long grid_n = strtol(argv[3], &end, 10);
    if (*end != '\0' || grid_n < 1 || grid_n > 20000) {
        fprintf(stderr, "usage: %s REGIONS POINTS GRID_N  (GRID_N in 1..20000)\n", argv[0]);
        return 2;
    }
    read_regions(argv[1]);
    read_points(argv[2]);

    long total_verts = 0;
    int max_verts = 0, holes = 0;
    for (int r = 0; r < nregions; r++) {
        int nv = regions[r].ring_start[regions[r].nrings];
        total_verts += nv;
        if (nv > max_verts) max_verts = nv;
        holes += regions[r].nrings - 1;
    }

    /* region areas (outer minus holes), one entry per region */
    double *area = malloc(sizeof(double) * (size_t)nregions);
    #pragma omp parallel for
    for (int r = 0; r < nregions; r++) {
        double a = ring_area(&regions[r], 0);
        for (int k = 1; k < regions[r].nrings; k++)
            a -= ring_area(&regions[r], k);
        area[r] = a;
    }

    /* point location */
    int *owner = malloc(sizeof(int) * (size_t)npoints);
    #pragma omp parallel for
    for (int i = 0; i < npoints; i++)
        owner[i] = locate(px[i], py[i]);

    long *count = calloc((size_t)nregions, sizeof(long));
    long outside = 0;
    for (int i = 0; i < npoints; i++) {
        if (owner[i] < 0)
            outside++;
        else
            count[owner[i]]++;
    }

    /* lattice coverage over the union bounding box */
    double bx0 = regions[0].xmin, bx1 = regions[0].xmax, by0 = regions[0].ymin, by1 = regions[0].ymax;
    for (int r = 1; r < nregions; r++) {
        if (regions[r].xmin < bx0) bx0 = regions[r].xmin;
        if (regions[r].xmax > bx1) bx1 = regions[r].xmax;
        if (regions[r].ymin < by0) by0 = regions[r].ymin;
        if (regions[r].ymax > by1) by1 = regions[r].ymax;
    }
    int n = (int)grid_n;
    int *cell = malloc(sizeof(int) * (size_t)n * (size_t)n);
    double dx = (bx1 - bx0) / n, dy = (by1 - by0) / n;
    long covered = 0;
    #pragma omp parallel
    {
        #pragma omp for reduction(+:covered)
        for (int row = 0; row < n; row++) {
            double y = by0 + (row + 0.5) * dy;
            for (int c = 0; c < n; c++) {
                int o = locate(bx0 + (c + 0.5) * dx, y);
                cell[(size_t)row * n + c] = o;
                if (o >= 0)
                    covered++;
            }
        }
    }
    long *cells_of = calloc((size_t)nregions, sizeof(long));
    for (size_t k = 0; k < (size_t)n * n; k++)
        if (cell[k] >= 0)
            cells_of[cell[k]]++;

    printf("regions %d (vertices %ld, largest %d, holes %d), points %d, lattice %dx%d\n",
           nregions, total_verts, max_verts, holes, npoints, n, n);
    int *order = malloc(sizeof(int) * (size_t)nregions);
    for (int r = 0; r < nregions; r++)
        order[r] = r;
    sort_key = count;
    qsort(order, (size_t)nregions, sizeof(int), cmp_desc);
    int top = nregions < 12 ? nregions : 12;
    printf("%-4s %-12s %8s %8s %12s %10s %9s\n", "rank", "region", "points", "verts", "area", "density", "lattice%");
    for (int t = 0; t < top; t++) {
        int r = order[t];
        printf("%-4d %-12s %8ld %8d %12.3f %10.6f %9.4f\n", t + 1, regions[r].name, count[r],
               regions[r].ring_start[regions[r].nrings], area[r],
               area[r] > 0 ? count[r] / area[r] : 0.0, 100.0 * cells_of[r] / ((double)n * n));
    }
    int empty = 0;
    double total_area = 0.0;
    for (int r = 0; r < nregions; r++) {
        if (count[r] == 0)
            empty++;
        total_area += area[r];
    }
    printf("regions without points: %d\n", empty);
    printf("points outside all regions: %ld (%.4f%%)\n", outside, 100.0 * outside / npoints);
    printf("sum of region areas: %.4f, lattice coverage: %.4f%%\n", total_area,
           100.0 * covered / ((double)n * n));
    return 0;
}
