/*
 * photon_slab.c - Monte-Carlo photon transport through a layered slab.
 *
 * A pencil beam of photons enters a laterally infinite stack of layers at
 * normal incidence.  Each layer has a thickness (mm), an absorption and a
 * scattering coefficient (1/mm) and a Henyey-Greenstein anisotropy g.
 * Photons are followed one at a time until they leave through the top
 * (reflected), the bottom (transmitted) or are absorbed.  Every photon has
 * its own counter-based random stream, so the tallies do not depend on how
 * photons are distributed over threads.
 *
 * usage: photon_slab LAYER_FILE N_PHOTONS [DEPTH_BINS]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LAYERS 64

typedef struct {
    double top, bottom;
    double mua, mus, mut, g;
} layer_t;

typedef struct {
    uint64_t key, ctr;
} rng_t;

static inline uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ULL;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z;
}

/* uniform in (0,1), open at both ends */
static inline double urand(rng_t *r)
{
    r->ctr++;
    uint64_t x = mix64(r->key + 0x9E3779B97F4A7C15ULL * r->ctr);
    return ((double)(x >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double hg_cos(double g, double u)
{
    if (fabs(g) < 1e-6)
        return 2.0 * u - 1.0;
    double t = (1.0 - g * g) / (1.0 - g + 2.0 * g * u);
    double c = (1.0 + g * g - t * t) / (2.0 * g);
    if (c > 1.0) c = 1.0;
    if (c < -1.0) c = -1.0;
    return c;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s LAYER_FILE N_PHOTONS [DEPTH_BINS]\n", prog);
    exit(2);
}

static int read_layers(const char *path, layer_t *L)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "photon_slab: cannot open '%s'\n", path);
        exit(1);
    }
    char line[512];
    int n = 0, lineno = 0;
    double z = 0.0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\r' || *p == '\0')
            continue;
        double d, mua, mus, g;
        if (sscanf(p, "%lf %lf %lf %lf", &d, &mua, &mus, &g) != 4 || !(d > 0) ||
            mua < 0 || mus < 0 || !(mua + mus > 0) || g <= -1.0 || g >= 1.0 ||
            n >= MAX_LAYERS) {
            fprintf(stderr, "photon_slab: %s:%d: malformed layer line\n", path, lineno);
            fclose(f);
            exit(1);
        }
        L[n].top = z;
        z += d;
        L[n].bottom = z;
        L[n].mua = mua;
        L[n].mus = mus;
        L[n].mut = mua + mus;
        L[n].g = g;
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "photon_slab: %s: no layers found\n", path);
        exit(1);
    }
    return n;
}

enum { FATE_REFLECTED = 0, FATE_TRANSMITTED = 1, FATE_ABSORBED = 2 };

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4)
        usage(argv[0]);
    char *end;
    long nph = strtol(argv[2], &end, 10);
    if (*end || nph <= 0)
        usage(argv[0]);
    long nbins = 20;
    if (argc == 4) {
        nbins = strtol(argv[3], &end, 10);
        if (*end || nbins <= 0 || nbins > 10000)
            usage(argv[0]);
    }

    layer_t layers[MAX_LAYERS];
    int nl = read_layers(argv[1], layers);
    double total = layers[nl - 1].bottom;

    long *hist = calloc((size_t)nbins, sizeof(long));
    long layer_abs[MAX_LAYERS] = {0};
    double *pathlen = malloc((size_t)nph * sizeof(double));
    if (!hist || !pathlen) {
        fprintf(stderr, "photon_slab: out of memory\n");
        return 1;
    }

    const uint64_t seed = 20240917ULL;
    long nrefl = 0, ntrans = 0, nabs = 0, nscat = 0, maxscat = 0;

#pragma omp parallel for reduction(+:nrefl, ntrans, nabs, nscat) reduction(max:maxscat)
    for (long i = 0; i < nph; i++) {
        rng_t r;
        r.key = mix64(seed ^ mix64((uint64_t)i + 1));
        r.ctr = 0;
        double z = 0.0, uz = 1.0, len = 0.0;
        int li = 0;
        long events = 0;
        int fate = -1;
        while (fate < 0) {
            double s = -log(urand(&r)); /* optical depth to next interaction */
            while (s > 0.0) {
                const layer_t *L = &layers[li];
                double d = s / L->mut;
                double db;
                if (uz > 0.0)
                    db = (L->bottom - z) / uz;
                else if (uz < 0.0)
                    db = (L->top - z) / uz;
                else
                    db = HUGE_VAL;
                if (d < db) {
                    z += d * uz;
                    len += d;
                    s = 0.0;
                } else {
                    len += db;
                    s -= db * L->mut;
                    if (uz > 0.0) {
                        z = L->bottom;
                        li++;
                        if (li >= nl) { fate = FATE_TRANSMITTED; break; }
                    } else {
                        z = L->top;
                        li--;
                        if (li < 0) { fate = FATE_REFLECTED; break; }
                    }
                }
            }
            if (fate >= 0)
                break;
            const layer_t *L = &layers[li];
            if (urand(&r) * L->mut < L->mua) {
                fate = FATE_ABSORBED;
                long b = (long)(z / total * (double)nbins);
                if (b < 0) b = 0;
                if (b >= nbins) b = nbins - 1;
#pragma omp atomic
                hist[b]++;
#pragma omp atomic
                layer_abs[li]++;
                break;
            }
            /* scatter: new direction cosine relative to the slab normal */
            double ct = hg_cos(L->g, urand(&r));
            double st = sqrt(fmax(0.0, 1.0 - ct * ct));
            double phi = 2.0 * M_PI * urand(&r);
            double sz = sqrt(fmax(0.0, 1.0 - uz * uz));
            uz = uz * ct + sz * st * cos(phi);
            if (uz > 1.0) uz = 1.0;
            if (uz < -1.0) uz = -1.0;
            events++;
        }
        pathlen[i] = len;
        nscat += events;
        if (events > maxscat)
            maxscat = events;
        if (fate == FATE_REFLECTED) nrefl++;
        else if (fate == FATE_TRANSMITTED) ntrans++;
        else nabs++;
    }

    double sumlen = 0.0;
    for (long i = 0; i < nph; i++)
        sumlen += pathlen[i];

    printf("layers %d, total thickness %.4f mm, photons %ld\n", nl, total, nph);
    printf("reflected   %10ld  fraction %.6f\n", nrefl, (double)nrefl / (double)nph);
    printf("transmitted %10ld  fraction %.6f\n", ntrans, (double)ntrans / (double)nph);
    printf("absorbed    %10ld  fraction %.6f\n", nabs, (double)nabs / (double)nph);
    printf("scattering events: mean %.4f, max %ld\n", (double)nscat / (double)nph, maxscat);
    printf("mean path length: %.6f mm\n", sumlen / (double)nph);
    printf("absorbed per layer:");
    for (int l = 0; l < nl; l++)
        printf(" %ld", layer_abs[l]);
    printf("\n");
    printf("absorption depth profile (%ld bins):\n", nbins);
    for (long b = 0; b < nbins; b++)
        printf("  %8.4f - %8.4f mm  %10ld\n", total * (double)b / (double)nbins,
               total * (double)(b + 1) / (double)nbins, hist[b]);

    free(hist);
    free(pathlen);
    return 0;
}
