/*
 * shallow_water: 2-D shallow-water equations in a closed basin.
 *
 * Lax-Friedrichs scheme on an N x N cell grid with reflective walls.  The
 * surface elevation eta (not the depth) is averaged, and the bottom-slope
 * source term uses the same averaged depth as the pressure flux, so a lake at
 * rest stays at rest over uneven bathymetry.  The run starts from a Gaussian
 * hump of water and advances STEPS time steps with dt set by the CFL number.
 *
 * usage: shallow_water BATHYMETRY_FILE STEPS [HUMP_HEIGHT [CFL]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G 9.81
#define SUMMARY 8

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s BATHYMETRY_FILE STEPS [HUMP_HEIGHT [CFL]]\n", prog);
}

/* read the next number, skipping whitespace and '#' comment lines */
static int read_double(FILE *f, double *v)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == '#') {
            while (c != '\n' && c != EOF)
                c = fgetc(f);
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            continue;
        break;
    }
    if (c == EOF)
        return 0;
    ungetc(c, f);
    return fscanf(f, "%lf", v) == 1;
}

/* grid with one ghost cell on every side; interior is 1..n */
#define IDX(i, j) ((size_t)(i) * (size_t)(n + 2) + (size_t)(j))

static void reflect(int n, double *eta, double *hu, double *hv)
{
    for (int j = 1; j <= n; j++) {
        eta[IDX(0, j)] = eta[IDX(1, j)];
        hu[IDX(0, j)] = hu[IDX(1, j)];
        hv[IDX(0, j)] = -hv[IDX(1, j)];
        eta[IDX(n + 1, j)] = eta[IDX(n, j)];
        hu[IDX(n + 1, j)] = hu[IDX(n, j)];
        hv[IDX(n + 1, j)] = -hv[IDX(n, j)];
    }
    for (int i = 0; i <= n + 1; i++) {
        eta[IDX(i, 0)] = eta[IDX(i, 1)];
        hu[IDX(i, 0)] = -hu[IDX(i, 1)];
        hv[IDX(i, 0)] = hv[IDX(i, 1)];
        eta[IDX(i, n + 1)] = eta[IDX(i, n)];
        hu[IDX(i, n + 1)] = -hu[IDX(i, n)];
        hv[IDX(i, n + 1)] = hv[IDX(i, n)];
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    long steps = strtol(argv[2], &end, 10);
    if (*end || steps < 0 || steps > 10000000) {
        usage(argv[0]);
        return 2;
    }
    double amp = 1.0, cfl = 0.45;
    if (argc >= 4) {
        amp = strtod(argv[3], &end);
        if (*end || !(amp > -1.0 && amp < 20.0)) {
            usage(argv[0]);
            return 2;
        }
    }
    if (argc >= 5) {
        cfl = strtod(argv[4], &end);
        if (*end || !(cfl > 0.0 && cfl <= 0.7)) {
            usage(argv[0]);
            return 2;
        }
    }

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "error: cannot open bathymetry file '%s'\n", argv[1]);
        return 1;
    }
    double dn, dx;
    if (!read_double(f, &dn) || !read_double(f, &dx) || dn < 8 || dn > 4000 ||
        dn != floor(dn) || !(dx > 0.0)) {
        fprintf(stderr, "error: '%s': bad header (expected N and cell size)\n", argv[1]);
        fclose(f);
        return 1;
    }
    int n = (int)dn;
    size_t cells = (size_t)(n + 2) * (size_t)(n + 2);
    double *b = calloc(cells, sizeof(double)); /* bottom elevation (negative depth) */
    double *eta = calloc(cells, sizeof(double));
    double *hu = calloc(cells, sizeof(double));
    double *hv = calloc(cells, sizeof(double));
    double *eta2 = calloc(cells, sizeof(double));
    double *hu2 = calloc(cells, sizeof(double));
    double *hv2 = calloc(cells, sizeof(double));
    double *row_speed = calloc((size_t)n + 2, sizeof(double));
    double *row_mass = calloc((size_t)n + 2, sizeof(double));
    if (!b || !eta || !hu || !hv || !eta2 || !hu2 || !hv2 || !row_speed || !row_mass) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    for (int i = 1; i <= n; i++) {
        for (int j = 1; j <= n; j++) {
            double d;
            if (!read_double(f, &d)) {
                fprintf(stderr, "error: '%s': expected %d x %d depths, data ends early\n",
                        argv[1], n, n);
                fclose(f);
                return 1;
            }
            if (!(d > 0.0 && d < 12000.0)) {
                fprintf(stderr, "error: '%s': depth %g at row %d column %d is not positive\n",
                        argv[1], d, i - 1, j - 1);
                fclose(f);
                return 1;
            }
            b[IDX(i, j)] = -d;
        }
    }
    fclose(f);
    /* walls: ghost bottom mirrors the interior */
    for (int j = 1; j <= n; j++) {
        b[IDX(0, j)] = b[IDX(1, j)];
        b[IDX(n + 1, j)] = b[IDX(n, j)];
    }
    for (int i = 0; i <= n + 1; i++) {
        b[IDX(i, 0)] = b[IDX(i, 1)];
        b[IDX(i, n + 1)] = b[IDX(i, n)];
    }

    /* initial hump centred at 30% / 40% of the basin, radius ~ n/40 cells */
    double ci = 0.40 * n, cj = 0.30 * n, r = n / 40.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double di = (i - 0.5) - ci, dj = (j - 0.5) - cj;
            double e = amp * exp(-(di * di + dj * dj) / (2.0 * r * r));
            if (e - b[IDX(i, j)] < 0.01) /* keep every cell wet */
                e = b[IDX(i, j)] + 0.01;
            eta[IDX(i, j)] = e;
        }

    double mass0 = 0.0;
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            mass0 += eta[IDX(i, j)] - b[IDX(i, j)];
    mass0 *= dx * dx;

    double t = 0.0;
    double min_depth = 1e300;
    for (long s = 0; s < steps; s++) {
        reflect(n, eta, hu, hv);

        /* fastest wave speed in each row */
#pragma omp parallel for
        for (int i = 1; i <= n; i++) {
            double smax = 0.0;
            for (int j = 1; j <= n; j++) {
                double h = eta[IDX(i, j)] - b[IDX(i, j)];
                double c = sqrt(G * h);
                double u = fabs(hu[IDX(i, j)]) / h, v = fabs(hv[IDX(i, j)]) / h;
                double sp = (u > v ? u : v) + c;
                if (sp > smax)
                    smax = sp;
            }
            row_speed[i] = smax;
        }
        double smax = 0.0;
        for (int i = 1; i <= n; i++)
            if (row_speed[i] > smax)
                smax = row_speed[i];
        double dt = cfl * dx / smax;
        double k = dt / (2.0 * dx);

        /* Lax-Friedrichs update, one grid row per iteration */
#pragma omp parallel for
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= n; j++) {
                size_t c = IDX(i, j), e = IDX(i, j + 1), w = IDX(i, j - 1);
                size_t no = IDX(i + 1, j), so = IDX(i - 1, j);
                double he = eta[e] - b[e], hw = eta[w] - b[w];
                double hn = eta[no] - b[no], hs = eta[so] - b[so];

                /* x fluxes (east / west neighbours) */
                double fe_m = hu[e], fw_m = hu[w];
                double fe_u = hu[e] * hu[e] / he + 0.5 * G * he * he;
                double fw_u = hu[w] * hu[w] / hw + 0.5 * G * hw * hw;
                double fe_v = hu[e] * hv[e] / he, fw_v = hu[w] * hv[w] / hw;
                /* y fluxes (north / south neighbours) */
                double gn_m = hv[no], gs_m = hv[so];
                double gn_u = hu[no] * hv[no] / hn, gs_u = hu[so] * hv[so] / hs;
                double gn_v = hv[no] * hv[no] / hn + 0.5 * G * hn * hn;
                double gs_v = hv[so] * hv[so] / hs + 0.5 * G * hs * hs;

                double src_u = -G * 0.5 * (he + hw) * (b[e] - b[w]) / (2.0 * dx);
                double src_v = -G * 0.5 * (hn + hs) * (b[no] - b[so]) / (2.0 * dx);

                eta2[c] = 0.25 * (eta[e] + eta[w] + eta[no] + eta[so])
                          - k * (fe_m - fw_m) - k * (gn_m - gs_m);
                hu2[c] = 0.25 * (hu[e] + hu[w] + hu[no] + hu[so])
                         - k * (fe_u - fw_u) - k * (gn_u - gs_u) + dt * src_u;
                hv2[c] = 0.25 * (hv[e] + hv[w] + hv[no] + hv[so])
                         - k * (fe_v - fw_v) - k * (gn_v - gs_v) + dt * src_v;
            }
        }
        double *tmp;
        tmp = eta, eta = eta2, eta2 = tmp;
        tmp = hu, hu = hu2, hu2 = tmp;
        tmp = hv, hv = hv2, hv2 = tmp;
        t += dt;
    }

    /* final diagnostics per row */
#pragma omp parallel for
    for (int i = 1; i <= n; i++) {
        double m = 0.0;
        for (int j = 1; j <= n; j++)
            m += eta[IDX(i, j)] - b[IDX(i, j)];
        row_mass[i] = m;
    }
    double mass = 0.0;
    double emax = -1e300, emin = 1e300;
    int imax = 0, jmax = 0;
    for (int i = 1; i <= n; i++) {
        mass += row_mass[i];
        for (int j = 1; j <= n; j++) {
            double e = eta[IDX(i, j)];
            if (e > emax) {
                emax = e;
                imax = i;
                jmax = j;
            }
            if (e < emin)
                emin = e;
            double h = e - b[IDX(i, j)];
            if (h < min_depth)
                min_depth = h;
        }
    }
    mass *= dx * dx;

    printf("grid %d x %d, cell %.1f m, %ld steps, simulated time %.1f s\n", n, n, dx, steps, t);
    printf("initial hump height %.2f m, CFL %.2f\n", amp, cfl);
    printf("total water volume: initial %.0f m^3, final %.0f m^3\n", mass0, mass);
    printf("max wave height: %.4f m at row %d, column %d (x = %.0f m, y = %.0f m)\n", emax,
           imax - 1, jmax - 1, (jmax - 0.5) * dx, (imax - 0.5) * dx);
    printf("min surface: %.4f m, min water depth %.3f m\n", emin, min_depth);
    printf("mean surface elevation (mm) in %d x %d blocks, north row first:\n", SUMMARY, SUMMARY);
    for (int bi = SUMMARY - 1; bi >= 0; bi--) {
        int i0 = 1 + bi * n / SUMMARY, i1 = 1 + (bi + 1) * n / SUMMARY;
        printf(" ");
        for (int bj = 0; bj < SUMMARY; bj++) {
            int j0 = 1 + bj * n / SUMMARY, j1 = 1 + (bj + 1) * n / SUMMARY;
            double s = 0.0;
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++)
                    s += eta[IDX(i, j)];
            printf(" %7.2f", 1000.0 * s / ((double)(i1 - i0) * (j1 - j0)));
        }
        printf("\n");
    }

    free(b);
    free(eta);
    free(hu);
    free(hv);
    free(eta2);
    free(hu2);
    free(hv2);
    free(row_speed);
    free(row_mass);
    return 0;
}
