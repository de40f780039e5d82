/*
 * sph_density - SPH density and pressure for a particle snapshot.
 *
 * Particle file: first line "<count> <box-size>", then one particle per
 * line: "x y z mass" with 0 <= x, y, z < box-size.  The box is periodic.
 *
 * For each smoothing length h given on the command line the particles are
 * binned into a uniform grid of cells at least 2h wide (the support of the
 * cubic spline kernel) and every particle sums the kernel-weighted masses of
 * the particles in its own and the 26 surrounding cells.  Pressure follows
 * from a polytropic equation of state P = K rho^gamma (K = 1, gamma = 5/3).
 *
 * usage: sph_density <particle-file> <h> [<h> ...]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_H 16
#define TOP 5

typedef struct {
    double x, y, z, m;
} particle_t;

static void __attribute__((noreturn)) usage(const char *prog)
{
    fprintf(stderr, "usage: %s <particle-file> <h> [<h> ...]\n", prog);
    exit(2);
}

static void __attribute__((noreturn)) bad_file(const char *path, int line, const char *why)
{
    fprintf(stderr, "sph_density: %s:%d: %s\n", path, line, why);
    exit(1);
}

static particle_t *load_particles(const char *path, int *n_out, double *box_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "sph_density: cannot open particle file '%s'\n", path);
        exit(1);
    }
    char line[256], extra[2];
    int n;
    double box;
    if (!fgets(line, sizeof line, f) || sscanf(line, "%d %lf %1s", &n, &box, extra) != 2 ||
        n < 1 || n > 10000000 || !(box > 0.0) || !isfinite(box))
        bad_file(path, 1, "expected '<count> <box-size>' header");
    particle_t *p = malloc((size_t)n * sizeof *p);
    if (!p) {
        fprintf(stderr, "sph_density: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        if (!fgets(line, sizeof line, f)) bad_file(path, i + 2, "file ends before all particles");
        particle_t *q = &p[i];
        if (sscanf(line, "%lf %lf %lf %lf %1s", &q->x, &q->y, &q->z, &q->m, extra) != 4)
            bad_file(path, i + 2, "expected 'x y z mass'");
        if (!(q->x >= 0.0 && q->x < box && q->y >= 0.0 && q->y < box &&
              q->z >= 0.0 && q->z < box) || !(q->m > 0.0) || !isfinite(q->m))
            bad_file(path, i + 2, "particle outside the box or with bad mass");
    }
    if (fgets(line, sizeof line, f)) {
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
        if (*s) bad_file(path, n + 2, "more particles than the header says");
    }
    fclose(f);
    *n_out = n;
    *box_out = box;
    return p;
}

/* M4 cubic spline in 3-D, support radius 2h */
static inline double kernel(double r, double h)
{
    const double sigma = 1.0 / (M_PI * h * h * h);
    double q = r / h;
    if (q < 1.0) return sigma * (1.0 - 1.5 * q * q + 0.75 * q * q * q);
    if (q < 2.0) {
        double t = 2.0 - q;
        return sigma * 0.25 * t * t * t;
    }
    return 0.0;
}

static int cmp_desc(const void *a, const void *b, const double *key)
{
    int i = *(const int *)a, j = *(const int *)b;
    if (key[i] != key[j]) return key[i] < key[j] ? 1 : -1;
    return (i > j) - (i < j);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc - 2 > MAX_H) usage(argv[0]);
    double hs[MAX_H];
    int nh = argc - 2;
    for (int k = 0; k < nh; k++) {
        char *end;
        errno = 0;
        hs[k] = strtod(argv[k + 2], &end);
        if (errno || *end || end == argv[k + 2] || !(hs[k] > 0.0) || !isfinite(hs[k]))
            usage(argv[0]);
    }

    int n;
    double box;
    particle_t *p = load_particles(argv[1], &n, &box);
    for (int k = 0; k < nh; k++) {
        if (2.0 * hs[k] * 3.0 > box) {
            fprintf(stderr, "sph_density: h = %g is too large for a box of %g\n", hs[k], box);
            return 1;
        }
    }

    double total_mass = 0.0;
    for (int i = 0; i < n; i++) total_mass += p[i].m;
    const double mean_rho = total_mass / (box * box * box);

    double *rho = malloc((size_t)n * sizeof *rho);
    double *pres = malloc((size_t)n * sizeof *pres);
    int *nnb = malloc((size_t)n * sizeof *nnb);
    int *order = malloc((size_t)n * sizeof *order);
    int *cell_of = malloc((size_t)n * sizeof *cell_of);
    particle_t *sorted = malloc((size_t)n * sizeof *sorted);
    if (!rho || !pres || !nnb || !order || !cell_of || !sorted) {
        fprintf(stderr, "sph_density: out of memory\n");
        return 1;
    }

    printf("%d particles in a periodic box of %g, total mass %.6g, mean density %.6g\n",
           n, box, total_mass, mean_rho);

    for (int k = 0; k < nh; k++) {
        const double h = hs[k], support = 2.0 * h;
        const int nc = (int)(box / support);          /* cells per side, >= 3 */
        const double cell = box / nc;
        const long ncells = (long)nc * nc * nc;
        int *head = calloc((size_t)ncells + 1, sizeof *head);
        if (!head) {
            fprintf(stderr, "sph_density: out of memory\n");
            return 1;
        }

        /* counting sort of particles by cell (stable, so cell contents are
           always in file order) */
        for (int i = 0; i < n; i++) {
            int cx = (int)(p[i].x / cell), cy = (int)(p[i].y / cell), cz = (int)(p[i].z / cell);
            if (cx >= nc) cx = nc - 1;
            if (cy >= nc) cy = nc - 1;
            if (cz >= nc) cz = nc - 1;
            cell_of[i] = (cx * nc + cy) * nc + cz;
            head[cell_of[i] + 1]++;
        }
        for (long c = 0; c < ncells; c++) head[c + 1] += head[c];
        {
            int *fill = malloc((size_t)ncells * sizeof *fill);
            if (!fill) {
                fprintf(stderr, "sph_density: out of memory\n");
                return 1;
            }
            memcpy(fill, head, (size_t)ncells * sizeof *fill);
            for (int i = 0; i < n; i++) {
                int slot = fill[cell_of[i]]++;
                sorted[slot] = p[i];
            }
            free(fill);
        }

        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            const double xi = p[i].x, yi = p[i].y, zi = p[i].z;
            const int c0 = cell_of[i];
            const int cx = c0 / (nc * nc), cy = (c0 / nc) % nc, cz = c0 % nc;
            double sum = 0.0;
            int count = 0;
            for (int dx = -1; dx <= 1; dx++) {
                int ax = (cx + dx + nc) % nc;
                for (int dy = -1; dy <= 1; dy++) {
                    int ay = (cy + dy + nc) % nc;
                    for (int dz = -1; dz <= 1; dz++) {
                        int az = (cz + dz + nc) % nc;
                        int c = (ax * nc + ay) * nc + az;
                        for (int s = head[c]; s < head[c + 1]; s++) {
                            double rx = sorted[s].x - xi;
                            double ry = sorted[s].y - yi;
                            double rz = sorted[s].z - zi;
                            /* minimum image */
                            if (rx > 0.5 * box) rx -= box; else if (rx < -0.5 * box) rx += box;
                            if (ry > 0.5 * box) ry -= box; else if (ry < -0.5 * box) ry += box;
                            if (rz > 0.5 * box) rz -= box; else if (rz < -0.5 * box) rz += box;
                            double r2 = rx * rx + ry * ry + rz * rz;
                            if (r2 < support * support) {
                                sum += sorted[s].m * kernel(sqrt(r2), h);
                                count++;
                            }
                        }
                    }
                }
            }
            rho[i] = sum;
            nnb[i] = count;
            /* polytropic equation of state, K = 1, gamma = 5/3 */
            pres[i] = pow(sum, 5.0 / 3.0);
        }

        /* statistics in particle order */
        double rsum = 0.0, rsq = 0.0, psum = 0.0, rmin = rho[0], rmax = rho[0];
        long nbsum = 0;
        int nbmin = nnb[0], nbmax = nnb[0];
        for (int i = 0; i < n; i++) {
            rsum += rho[i];
            rsq += rho[i] * rho[i];
            psum += pres[i];
            if (rho[i] < rmin) rmin = rho[i];
            if (rho[i] > rmax) rmax = rho[i];
            nbsum += nnb[i];
            if (nnb[i] < nbmin) nbmin = nnb[i];
            if (nnb[i] > nbmax) nbmax = nnb[i];
        }
        double rmean = rsum / n;
        double rsd = sqrt(fmax(rsq / n - rmean * rmean, 0.0));

        /* densest particles: partial selection, ties broken by index */
        int top = n < TOP ? n : TOP;
        for (int t = 0; t < top; t++) order[t] = -1;
        for (int i = 0; i < n; i++) {
            int pos = top;
            while (pos > 0 && (order[pos - 1] < 0 || cmp_desc(&i, &order[pos - 1], rho) < 0)) pos--;
            if (pos >= top) continue;
            for (int t = top - 1; t > pos; t--) order[t] = order[t - 1];
            order[pos] = i;
        }

        printf("\nh = %g: %d^3 cells, neighbours min/mean/max %d/%.1f/%d\n",
               h, nc, nbmin, (double)nbsum / n, nbmax);
        printf("  density  mean %.6g  sd %.6g  min %.6g  max %.6g  (%.4f x box average)\n",
               rmean, rsd, rmin, rmax, rmean / mean_rho);
        printf("  pressure mean %.6g\n", psum / n);
        printf("  densest particles:\n");
        for (int t = 0; t < top; t++) {
            int i = order[t];
            printf("    #%-6d (%.4f, %.4f, %.4f)  rho %.6g  P %.6g  neighbours %d\n",
                   i, p[i].x, p[i].y, p[i].z, rho[i], pres[i], nnb[i]);
        }
        free(head);
    }

    free(p); free(rho); free(pres); free(nnb); free(order);
    free(cell_of); free(sorted);
    return 0;
}
