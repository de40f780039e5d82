/* raytrace_spheres: Whitted-style ray tracing of 48 spheres (a third mirror-like) on a checkered ground plane, with shadows and up to 6 reflection bounces.
 * Category: irregular rendering (one parallel loop over image rows: sky rows are cheap, ground and mirror-sphere rows cost 10-50x more).
 * Sizes: MIRTUNE_SIZE=1 -> 576 x 384, 2x2 samples per pixel; MIRTUNE_SIZE=2 -> 1200 x 800, 2x2 samples per pixel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define W 1200
#define H 800
#else
#define W 576
#define H 384
#endif
#define SS 2          /* SS x SS samples per pixel */
#define NCLUSTER 6
#define PER_CLUSTER 8
#define NSPHERE (NCLUSTER * PER_CLUSTER)
#define MAXDEPTH 6
#define NLIGHT 2

typedef struct { double x, y, z; } vec3;

static inline vec3 v3(double x, double y, double z) { vec3 r = {x, y, z}; return r; }
static inline vec3 vadd(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline vec3 vsub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline vec3 vscale(vec3 a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static inline vec3 vmul(vec3 a, vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static inline double vdot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline vec3 vnorm(vec3 a) { return vscale(a, 1.0 / sqrt(vdot(a, a))); }

typedef struct {
    vec3 c;
    double r;
    vec3 color;
    double refl;   /* reflectance 0..1 */
    double spec;   /* Phong exponent */
} sphere_t;

typedef struct {
    vec3 c;        /* bounding sphere of a cluster */
    double r;
    int first;     /* index of its first sphere */
} cluster_t;

static sphere_t spheres[NSPHERE];
static cluster_t clusters[NCLUSTER];
static vec3 light_pos[NLIGHT];
static vec3 light_col[NLIGHT];

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static double rnd01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void build_scene(void)
{
    /* cluster centres on the ground; the two in the middle are mostly mirrors */
    static const double cx[NCLUSTER] = {-4.5, -1.5, 1.4, 4.2, -2.8, 2.6};
    static const double cz[NCLUSTER] = {9.0, 7.0, 7.5, 9.5, 13.0, 12.5};
    static const double mirror_frac[NCLUSTER] = {0.1, 0.9, 0.85, 0.1, 0.3, 0.2};
    for (int k = 0; k < NCLUSTER; k++) {
        vec3 ctr = v3(cx[k], 1.0, cz[k]);
        double rmax = 0.0;
        clusters[k].first = k * PER_CLUSTER;
        for (int s = 0; s < PER_CLUSTER; s++) {
            sphere_t *sp = &spheres[k * PER_CLUSTER + s];
            double r = 0.3 + 0.45 * rnd01();
            double ang = 6.283185307179586 * rnd01();
            double dist = 0.3 + 1.1 * rnd01();
            double h = r + 1.2 * rnd01();
            sp->c = v3(ctr.x + dist * cos(ang), h, ctr.z + dist * sin(ang));
            sp->r = r;
            sp->color = v3(0.2 + 0.8 * rnd01(), 0.2 + 0.8 * rnd01(), 0.2 + 0.8 * rnd01());
            sp->refl = (rnd01() < mirror_frac[k]) ? 0.75 + 0.2 * rnd01() : 0.05 * rnd01();
            sp->spec = 10.0 + 90.0 * rnd01();
            vec3 d = vsub(sp->c, ctr);
            double e = sqrt(vdot(d, d)) + r;
            if (e > rmax)
                rmax = e;
        }
        clusters[k].c = ctr;
        clusters[k].r = rmax + 1e-6;
    }
    light_pos[0] = v3(-6.0, 9.0, 2.0);
    light_col[0] = v3(0.8, 0.78, 0.7);
    light_pos[1] = v3(7.0, 6.0, 5.0);
    light_col[1] = v3(0.35, 0.4, 0.5);
}

static inline int hit_sphere(vec3 c, double r, vec3 o, vec3 d, double tmax, double *t)
{
    vec3 oc = vsub(o, c);
    double b = vdot(oc, d);
    double cc = vdot(oc, oc) - r * r;
    double disc = b * b - cc;
    if (disc < 0.0)
        return 0;
    double sq = sqrt(disc);
    double t0 = -b - sq;
    if (t0 < 1e-6)
        t0 = -b + sq;
    if (t0 < 1e-6 || t0 >= tmax)
        return 0;
    *t = t0;
    return 1;
}

/* Nearest hit: returns sphere index, -2 for the ground plane (y = 0), -1 for none. */
static int trace_nearest(vec3 o, vec3 d, double tmax, double *tbest)
{
    int best = -1;
    double tb = tmax;
    if (d.y < -1e-9) {
        double tp = -o.y / d.y;
        if (tp > 1e-6 && tp < tb && tp < 60.0) {
            tb = tp;
            best = -2;
        }
    }
    for (int k = 0; k < NCLUSTER; k++) {
        double tc;
        vec3 oc = vsub(o, clusters[k].c);
        if (vdot(oc, oc) > clusters[k].r * clusters[k].r && !hit_sphere(clusters[k].c, clusters[k].r, o, d, tb, &tc))
            continue;
        for (int s = clusters[k].first; s < clusters[k].first + PER_CLUSTER; s++) {
            double t;
            if (hit_sphere(spheres[s].c, spheres[s].r, o, d, tb, &t)) {
                tb = t;
                best = s;
            }
        }
    }
    *tbest = tb;
    return best;
}

static int occluded(vec3 o, vec3 d, double dist)
{
    double t;
    for (int k = 0; k < NCLUSTER; k++) {
        vec3 oc = vsub(o, clusters[k].c);
        if (vdot(oc, oc) > clusters[k].r * clusters[k].r && !hit_sphere(clusters[k].c, clusters[k].r, o, d, dist, &t))
            continue;
        for (int s = clusters[k].first; s < clusters[k].first + PER_CLUSTER; s++)
            if (hit_sphere(spheres[s].c, spheres[s].r, o, d, dist, &t))
                return 1;
    }
    return 0;
}

static vec3 sky(vec3 d)
{
    double t = 0.5 * (d.y + 1.0);
    return vadd(vscale(v3(1.0, 1.0, 1.0), 1.0 - t), vscale(v3(0.45, 0.65, 1.0), t));
}

static vec3 shade(vec3 o, vec3 d)
{
    vec3 acc = v3(0.0, 0.0, 0.0);
    vec3 weight = v3(1.0, 1.0, 1.0);
    for (int depth = 0; depth <= MAXDEPTH; depth++) {
        double t;
        int id = trace_nearest(o, d, 1e30, &t);
        if (id == -1) {
            acc = vadd(acc, vmul(weight, sky(d)));
            break;
        }
        vec3 p = vadd(o, vscale(d, t));
        vec3 n, base;
        double refl, spec;
        if (id == -2) {
            n = v3(0.0, 1.0, 0.0);
            int chk = ((int)floor(p.x) + (int)floor(p.z)) & 1;
            base = chk ? v3(0.85, 0.85, 0.8) : v3(0.25, 0.25, 0.3);
            refl = 0.25;
            spec = 30.0;
        } else {
            n = vnorm(vsub(p, spheres[id].c));
            base = spheres[id].color;
            refl = spheres[id].refl;
            spec = spheres[id].spec;
        }
        vec3 local = vscale(base, 0.08); /* ambient */
        vec3 pe = vadd(p, vscale(n, 1e-5));
        for (int l = 0; l < NLIGHT; l++) {
            vec3 tol = vsub(light_pos[l], pe);
            double dist = sqrt(vdot(tol, tol));
            vec3 ld = vscale(tol, 1.0 / dist);
            double ndl = vdot(n, ld);
            if (ndl <= 0.0 || occluded(pe, ld, dist))
                continue;
            vec3 h = vnorm(vsub(ld, d));
            double sp = pow(fmax(vdot(n, h), 0.0), spec);
            local = vadd(local, vmul(light_col[l], vadd(vscale(base, ndl), v3(sp, sp, sp))));
        }
        acc = vadd(acc, vmul(weight, vscale(local, 1.0 - refl)));
        if (refl < 0.02)
            break;
        weight = vscale(weight, refl);
        d = vsub(d, vscale(n, 2.0 * vdot(d, n)));
        o = pe;
    }
    return acc;
}

int main(void)
{
    float *img = malloc(sizeof(float) * 3 * W * H);
    if (!img)
        return 1;
    build_scene();

    const vec3 eye = v3(0.0, 2.6, 2.0);
    const vec3 fwd = vnorm(v3(0.0, -0.2, 1.0));
    const vec3 right = vnorm(v3(fwd.z, 0.0, -fwd.x));
    const vec3 up = v3(fwd.y * right.z - fwd.z * right.y, fwd.z * right.x - fwd.x * right.z,
                       fwd.x * right.y - fwd.y * right.x);
    const double fov = 0.6, aspect = (double)W / H;

#pragma omp parallel for firstprivate(eye, fwd, right, up)
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            vec3 col = v3(0.0, 0.0, 0.0);
            for (int sy = 0; sy < SS; sy++)
                for (int sx = 0; sx < SS; sx++) {
                    double u = ((x + (sx + 0.5) / SS) / W * 2.0 - 1.0) * fov * aspect;
                    double v = (1.0 - (y + (sy + 0.5) / SS) / H * 2.0) * fov;
                    vec3 d = vnorm(vadd(fwd, vadd(vscale(right, u), vscale(up, v))));
                    col = vadd(col, shade(eye, d));
                }
            col = vscale(col, 1.0 / (SS * SS));
            float *px = &img[3 * ((long)y * W + x)];
            px[0] = (float)fmin(col.x, 1.0);
            px[1] = (float)fmin(col.y, 1.0);
            px[2] = (float)fmin(col.z, 1.0);
        }
    }

    /* sequential image checksum */
    double sum = 0.0;
    for (long i = 0; i < 3L * W * H; i++)
        sum += img[i] * (double)(1 + i % 7);

    long long hist[256] = {0};
#pragma omp parallel for reduction(+:hist[:256])
    for (long i = 0; i < (long)W * H; i++) {
        const float *px = &img[3 * i];
        int q = (int)(255.0f * (0.2126f * px[0] + 0.7152f * px[1] + 0.0722f * px[2]));
        q = q < 0 ? 0 : (q > 255 ? 255 : q);
        hist[q]++;
    }
    long long hs = 0;
    for (int b = 0; b < 256; b++)
        hs += hist[b] * (b + 1);

    printf("checksum: %.12e\n", sum + (double)hs * 1e-3);
    free(img);
    return 0;
}
