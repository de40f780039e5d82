/*
 * mesh_fairing.c - refine and fair a noisy closed triangle mesh.
 *
 * Reads an OFF mesh (polygons are fan-triangulated), applies LEVELS rounds
 * of 1-to-4 midpoint subdivision, then removes noise with Taubin
 * lambda/mu smoothing (uniform Laplacian, no shrinkage).  Afterwards it
 * reports area, volume, the discrete Gauss-Bonnet check (sum of angle
 * deficits = 2*pi*chi) and cotangent mean-curvature statistics.
 *
 * usage: mesh_fairing MESH.off [LEVELS] [ITERATIONS] [LAMBDA] [MU]
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef double vec3[3];

typedef struct {
    int nv, nf;
    vec3 *p;
    int (*f)[3];
} mesh_t;

typedef struct {
    int *vf_off, *vf; /* vertex -> incident faces (CSR) */
    int *vv_off, *vv; /* vertex -> neighbour vertices (CSR) */
    int nedges;
} topo_t;

typedef struct {
    double area, volume, gauss_total, hmean, hrms, hmax, roughness;
} shape_t;

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s MESH.off [LEVELS (0..4, default 2)] [ITERATIONS (default 170)]"
            " [LAMBDA (default 0.5)] [MU (default -0.53)]\n",
            prog);
    exit(2);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    return p;
}

/* OFF reader: header "OFF", optional '#' comment lines, "nv nf ne", then
   vertices and polygons (fan-triangulated) */
static int load_off(const char *path, mesh_t *m)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "error: cannot open %s: %s\n", path, strerror(errno));
        return 0;
    }
    char line[256];
    long nv = 0, npoly = 0, ne, i = -1;
    const char *what = "not a valid OFF file";
    m->p = NULL;
    m->f = NULL;
    if (!fgets(line, sizeof line, fp) || strncmp(line, "OFF", 3) != 0)
        goto fail;
    for (;;) {
        if (!fgets(line, sizeof line, fp))
            goto fail;
        if (line[0] != '#' && sscanf(line, "%ld %ld %ld", &nv, &npoly, &ne) == 3)
            break;
    }
    if (nv < 4 || npoly < 4 || nv > 10000000 || npoly > 10000000)
        goto fail;
    m->nv = (int)nv;
    m->p = xmalloc(nv * sizeof(vec3));
    what = "bad vertex";
    for (i = 0; i < nv; i++)
        if (fscanf(fp, "%lf %lf %lf", &m->p[i][0], &m->p[i][1], &m->p[i][2]) != 3)
            goto fail;
    size_t cap = (size_t)npoly * 2, nf = 0;
    m->f = xmalloc(cap * sizeof *m->f);
    what = "bad polygon";
    for (i = 0; i < npoly; i++) {
        long deg, idx[64];
        if (fscanf(fp, "%ld", &deg) != 1 || deg < 3 || deg > 64)
            goto fail;
        for (long k = 0; k < deg; k++)
            if (fscanf(fp, "%ld", &idx[k]) != 1 || idx[k] < 0 || idx[k] >= nv)
                goto fail;
        for (long k = 1; k + 1 < deg; k++) {
            if (nf == cap) {
                cap *= 2;
                m->f = realloc(m->f, cap * sizeof *m->f);
                if (!m->f) {
                    fprintf(stderr, "error: out of memory\n");
                    exit(1);
                }
            }
            m->f[nf][0] = (int)idx[0];
            m->f[nf][1] = (int)idx[k];
            m->f[nf][2] = (int)idx[k + 1];
            nf++;
        }
    }
    fclose(fp);
    m->nf = (int)nf;
    return 1;
fail:
    fprintf(stderr, i >= 0 ? "error: %s: %s %ld\n" : "error: %s: %s\n", path, what, i);
    fclose(fp);
    free(m->p);
    free(m->f);
    return 0;
}

/* ---- 1-to-4 midpoint subdivision with an open-addressing edge table ---- */
static void subdivide(mesh_t *m)
{
    size_t cap = 1;
    while (cap < (size_t)m->nf * 4)
        cap <<= 1;
    long long *keys = xmalloc(cap * sizeof *keys);
    int *vals = xmalloc(cap * sizeof *vals);
    memset(keys, 0xff, cap * sizeof *keys);
    int nv = m->nv, maxv = m->nv + m->nf * 2;
    vec3 *p = xmalloc((size_t)maxv * sizeof(vec3));
    memcpy(p, m->p, (size_t)nv * sizeof(vec3));
    int (*nf)[3] = xmalloc((size_t)m->nf * 4 * sizeof *nf);
    for (int t = 0; t < m->nf; t++) {
        int mid[3];
        for (int e = 0; e < 3; e++) {
            int a = m->f[t][e], b = m->f[t][(e + 1) % 3];
            int lo = a < b ? a : b, hi = a < b ? b : a;
            long long key = (long long)lo * 2147483647LL + hi;
            size_t h = (size_t)((unsigned long long)key * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
            while (keys[h] != -1 && keys[h] != key)
                h = (h + 1) & (cap - 1);
            if (keys[h] == -1) {
                keys[h] = key;
                vals[h] = nv;
                for (int k = 0; k < 3; k++)
                    p[nv][k] = 0.5 * (m->p[a][k] + m->p[b][k]);
                nv++;
            }
            mid[e] = vals[h];
        }
        int *v = m->f[t];
        int (*o)[3] = nf + 4 * (size_t)t;
        o[0][0] = v[0], o[0][1] = mid[0], o[0][2] = mid[2];
        o[1][0] = v[1], o[1][1] = mid[1], o[1][2] = mid[0];
        o[2][0] = v[2], o[2][1] = mid[2], o[2][2] = mid[1];
        o[3][0] = mid[0], o[3][1] = mid[1], o[3][2] = mid[2];
    }
    free(keys);
    free(vals);
    free(m->p);
    free(m->f);
    m->p = p;
    m->f = nf;
    m->nv = nv;
    m->nf *= 4;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void build_topology(const mesh_t *m, topo_t *t)
{
    int nv = m->nv, nf = m->nf;
    t->vf_off = calloc((size_t)nv + 1, sizeof(int));
    if (!t->vf_off) {
        fprintf(stderr, "error: out of memory\n");
        exit(1);
    }
    for (int f = 0; f < nf; f++)
        for (int k = 0; k < 3; k++)
            t->vf_off[m->f[f][k] + 1]++;
    for (int i = 0; i < nv; i++)
        t->vf_off[i + 1] += t->vf_off[i];
    t->vf = xmalloc((size_t)nf * 3 * sizeof(int));
    int *fill = xmalloc((size_t)nv * sizeof(int));
    memcpy(fill, t->vf_off, (size_t)nv * sizeof(int));
    for (int f = 0; f < nf; f++)
        for (int k = 0; k < 3; k++)
            t->vf[fill[m->f[f][k]]++] = f;

    /* neighbours: gather the other corners of the incident faces, sort and
       deduplicate; slots are sized 2*faces, which is exact for closed meshes */
    int *tmp = xmalloc((size_t)nf * 6 * sizeof(int));
    int *cnt = xmalloc((size_t)nv * sizeof(int));
#pragma omp parallel for
    for (int i = 0; i < nv; i++) {
        int *slot = tmp + 2 * (size_t)t->vf_off[i], n = 0;
        for (int q = t->vf_off[i]; q < t->vf_off[i + 1]; q++) {
            const int *fv = m->f[t->vf[q]];
            for (int k = 0; k < 3; k++)
                if (fv[k] != i)
                    slot[n++] = fv[k];
        }
        qsort(slot, n, sizeof(int), cmp_int);
        int u = 0;
        for (int k = 0; k < n; k++)
            if (u == 0 || slot[k] != slot[u - 1])
                slot[u++] = slot[k];
        cnt[i] = u;
    }
    t->vv_off = xmalloc(((size_t)nv + 1) * sizeof(int));
    t->vv_off[0] = 0;
    for (int i = 0; i < nv; i++)
        t->vv_off[i + 1] = t->vv_off[i] + cnt[i];
    t->vv = xmalloc((size_t)t->vv_off[nv] * sizeof(int));
    for (int i = 0; i < nv; i++)
        memcpy(t->vv + t->vv_off[i], tmp + 2 * (size_t)t->vf_off[i], cnt[i] * sizeof(int));
    t->nedges = t->vv_off[nv] / 2;
    free(tmp);
    free(cnt);
    free(fill);
}

#define SUB3(a, b, r) ((r)[0] = (a)[0] - (b)[0], (r)[1] = (a)[1] - (b)[1], (r)[2] = (a)[2] - (b)[2])
#define DOT3(a, b) ((a)[0] * (b)[0] + (a)[1] * (b)[1] + (a)[2] * (b)[2])
static inline void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* one umbrella step: q = p + w * (mean(neighbours) - p) */
static void umbrella(const mesh_t *m, const topo_t *t, const vec3 *p, vec3 *q, double w)
{
#pragma omp parallel for
    for (int i = 0; i < m->nv; i++) {
        double c[3] = {0.0, 0.0, 0.0};
        int b = t->vv_off[i], e = t->vv_off[i + 1];
        for (int k = b; k < e; k++)
            for (int d = 0; d < 3; d++)
                c[d] += p[t->vv[k]][d];
        double inv = 1.0 / (e - b);
        for (int d = 0; d < 3; d++)
            q[i][d] = p[i][d] + w * (c[d] * inv - p[i][d]);
    }
}

static void analyse(const mesh_t *m, const topo_t *t, double *farea, double *fvol,
                    double *vgauss, double *vmean, double *vrough, shape_t *s)
{
    const vec3 *p = m->p;
#pragma omp parallel for
    for (int f = 0; f < m->nf; f++) {
        const double *a = p[m->f[f][0]], *b = p[m->f[f][1]], *c = p[m->f[f][2]];
        double e1[3], e2[3], n[3], bc[3];
        SUB3(b, a, e1);
        SUB3(c, a, e2);
        cross3(e1, e2, n);
        farea[f] = 0.5 * sqrt(DOT3(n, n));
        cross3(b, c, bc);
        fvol[f] = DOT3(a, bc) / 6.0;
    }

    /* per vertex: angle deficit, cotangent Laplacian (mean curvature normal),
       barycentric area, and distance to the neighbour centroid */
#pragma omp parallel for
    for (int i = 0; i < m->nv; i++) {
        double angle = 0.0, area = 0.0, L[3] = {0.0, 0.0, 0.0};
        for (int q = t->vf_off[i]; q < t->vf_off[i + 1]; q++) {
            const int *fv = m->f[t->vf[q]];
            int k = fv[0] == i ? 0 : (fv[1] == i ? 1 : 2);
            int j1 = fv[(k + 1) % 3], j2 = fv[(k + 2) % 3];
            double u[3], v[3], cr[3];
            SUB3(p[j1], p[i], u);
            SUB3(p[j2], p[i], v);
            cross3(u, v, cr);
            double twice_area = sqrt(DOT3(cr, cr)), uv = DOT3(u, v);
            angle += atan2(twice_area, uv);
            area += twice_area / 6.0;
            if (twice_area > 1e-300) {
                /* cot of the angle at j2 (opposite edge i-j1) and at j1 (opposite i-j2) */
                double cot2 = (DOT3(v, v) - uv) / twice_area;
                double cot1 = (DOT3(u, u) - uv) / twice_area;
                for (int d = 0; d < 3; d++)
                    L[d] += 0.5 * (cot2 * u[d] + cot1 * v[d]);
            }
        }
        vgauss[i] = 2.0 * M_PI - angle;
        vmean[i] = area > 0.0 ? 0.5 * sqrt(DOT3(L, L)) / area : 0.0;
        double c[3] = {0.0, 0.0, 0.0};
        int b = t->vv_off[i], e = t->vv_off[i + 1];
        for (int k = b; k < e; k++)
            for (int d = 0; d < 3; d++)
                c[d] += p[t->vv[k]][d];
        for (int d = 0; d < 3; d++)
            c[d] = c[d] / (e - b) - p[i][d];
        vrough[i] = sqrt(DOT3(c, c));
    }

    double A = 0.0, V = 0.0, K = 0.0, hs = 0.0, h2 = 0.0, hmax = 0.0, r = 0.0;
    for (int f = 0; f < m->nf; f++) {
        A += farea[f];
        V += fvol[f];
    }
    for (int i = 0; i < m->nv; i++) {
        K += vgauss[i];
        hs += vmean[i];
        h2 += vmean[i] * vmean[i];
        if (vmean[i] > hmax)
            hmax = vmean[i];
        r += vrough[i];
    }
    *s = (shape_t){A, V, K, hs / m->nv, sqrt(h2 / m->nv), hmax, r / m->nv};
}

static void print_shape(const char *label, const shape_t *s)
{
    printf("%s: area %.6f, volume %.6f, sphericity %.5f\n", label, s->area, s->volume,
           cbrt(M_PI) * pow(6.0 * fabs(s->volume), 2.0 / 3.0) / s->area);
    printf("%*s  total Gaussian curvature / 2pi = %.6f\n", (int)strlen(label), "",
           s->gauss_total / (2.0 * M_PI));
    printf("%*s  mean curvature: mean %.5f, rms %.5f, max %.4f; roughness %.4e\n",
           (int)strlen(label), "", s->hmean, s->hrms, s->hmax, s->roughness);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 6)
        usage(argv[0]);
    long levels = 2, iters = 170;
    double lambda = 0.5, mu = -0.53;
    char *end;
    if (argc > 2) {
        levels = strtol(argv[2], &end, 10);
        if (*end || levels < 0 || levels > 4)
            usage(argv[0]);
    }
    if (argc > 3) {
        iters = strtol(argv[3], &end, 10);
        if (*end || iters < 0 || iters > 1000000)
            usage(argv[0]);
    }
    if (argc > 4) {
        lambda = strtod(argv[4], &end);
        if (*end || !(lambda > 0.0 && lambda < 1.0))
            usage(argv[0]);
    }
    if (argc > 5) {
        mu = strtod(argv[5], &end);
        if (*end || !(mu < -lambda && mu > -1.0))
            usage(argv[0]);
    }

    mesh_t m;
    if (!load_off(argv[1], &m))
        return 1;
    printf("input: %d vertices, %d triangles\n", m.nv, m.nf);
    for (long l = 0; l < levels; l++)
        subdivide(&m);

    topo_t t;
    build_topology(&m, &t);
    int minval = 1 << 30, maxval = 0;
    for (int i = 0; i < m.nv; i++) {
        int d = t.vv_off[i + 1] - t.vv_off[i];
        minval = d < minval ? d : minval;
        maxval = d > maxval ? d : maxval;
    }
    printf("refined (%ld levels): V=%d E=%d F=%d, chi=%d, valence %d..%d\n", levels, m.nv,
           t.nedges, m.nf, m.nv - t.nedges + m.nf, minval, maxval);

    double *farea = xmalloc((size_t)m.nf * sizeof(double)), *fvol = xmalloc((size_t)m.nf * sizeof(double));
    double *vg = xmalloc((size_t)m.nv * sizeof(double)), *vm = xmalloc((size_t)m.nv * sizeof(double));
    double *vr = xmalloc((size_t)m.nv * sizeof(double));
    shape_t before, after;
    analyse(&m, &t, farea, fvol, vg, vm, vr, &before);
    print_shape("before", &before);

    vec3 *tmp = xmalloc((size_t)m.nv * sizeof(vec3));
    for (long it = 0; it < iters; it++) {
        umbrella(&m, &t, m.p, tmp, lambda);
        umbrella(&m, &t, tmp, m.p, mu);
    }
    analyse(&m, &t, farea, fvol, vg, vm, vr, &after);
    printf("Taubin smoothing: %ld iterations, lambda %.3f, mu %.3f\n", iters, lambda, mu);
    print_shape("after ", &after);
    printf("volume change %.4f%%, roughness reduced by factor %.2f\n",
           100.0 * (after.volume - before.volume) / fabs(before.volume),
           before.roughness / after.roughness);

    free(tmp), free(farea), free(fvol), free(vg), free(vm), free(vr);
    free(m.p), free(m.f), free(t.vf_off), free(t.vf), free(t.vv_off), free(t.vv);
    return 0;
}
