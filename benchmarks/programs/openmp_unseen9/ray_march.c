/*
 * ray_march.c - sphere-tracing renderer for signed-distance-field scenes.
 *
 * Scene file (one item per line, '#' starts a comment):
 *   camera ex ey ez  tx ty tz  fov_degrees
 *   light  x y z
 *   plane  height                      ground plane y = height (optional)
 *   sphere cx cy cz  radius
 *   box    cx cy cz  hx hy hz          half extents
 *   torus  cx cy cz  R r               ring in the xz plane
 *
 * Each pixel is computed independently with the same sequence of floating
 * point operations, so the image does not depend on how rows are shared
 * between threads; all statistics are integer sums.
 *
 * usage: ray_march scene.txt WIDTHxHEIGHT out.pgm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>

#define MAX_SHAPES 256
#define MAX_STEPS 160
#define MAX_DIST 80.0
#define HIT_EPS 1e-3

typedef struct { double x, y, z; } vec3;

enum { SPHERE, BOX, TORUS };
typedef struct {
    int kind;
    vec3 c;
    double a, b, d;     /* sphere: a=r; box: a,b,d half extents; torus: a=R, b=r */
} shape;

typedef struct {
    shape s[MAX_SHAPES];
    int n;
    int has_plane;
    double plane_y;
    vec3 eye, target, light;
    double fov;
} scene;

static vec3 v3(double x, double y, double z) { vec3 r = { x, y, z }; return r; }
static vec3 add(vec3 a, vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 sub(vec3 a, vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3 scale(vec3 a, double k) { return v3(a.x * k, a.y * k, a.z * k); }
static double dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static double len(vec3 a) { return sqrt(dot(a, a)); }
static vec3 norm(vec3 a) { return scale(a, 1.0 / len(a)); }
static vec3 cross(vec3 a, vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static double sdf_shape(const shape *s, vec3 p)
{
    vec3 q = sub(p, s->c);
    switch (s->kind) {
    case SPHERE:
        return len(q) - s->a;
    case BOX: {
        double dx = fabs(q.x) - s->a, dy = fabs(q.y) - s->b, dz = fabs(q.z) - s->d;
        vec3 o = v3(fmax(dx, 0.0), fmax(dy, 0.0), fmax(dz, 0.0));
        return len(o) + fmin(fmax(dx, fmax(dy, dz)), 0.0);
    }
    default: {
        double rx = sqrt(q.x * q.x + q.z * q.z) - s->a;
        return sqrt(rx * rx + q.y * q.y) - s->b;
    }
    }
}

static double sdf_scene(const scene *sc, vec3 p)
{
    double d = sc->has_plane ? p.y - sc->plane_y : 1e30;
    for (int k = 0; k < sc->n; k++) {
        double e = sdf_shape(&sc->s[k], p);
        if (e < d)
            d = e;
    }
    return d;
}

/* march from o along unit direction dir; returns distance or -1 on a miss */
static double trace(const scene *sc, vec3 o, vec3 dir, long *steps)
{
    double t = 0.0;
    for (int i = 0; i < MAX_STEPS; i++) {
        double d = sdf_scene(sc, add(o, scale(dir, t)));
        (*steps)++;
        if (d < HIT_EPS * (1.0 + t))
            return t;
        t += d;
        if (t > MAX_DIST)
            break;
    }
    return -1.0;
}

static vec3 normal_at(const scene *sc, vec3 p)
{
    const double h = 1e-4;
    double dx = sdf_scene(sc, add(p, v3(h, 0, 0))) - sdf_scene(sc, sub(p, v3(h, 0, 0)));
    double dy = sdf_scene(sc, add(p, v3(0, h, 0))) - sdf_scene(sc, sub(p, v3(0, h, 0)));
    double dz = sdf_scene(sc, add(p, v3(0, 0, h))) - sdf_scene(sc, sub(p, v3(0, 0, h)));
    return norm(v3(dx, dy, dz));
}

/* soft shadow factor in [0,1] towards the light */
static double soft_shadow(const scene *sc, vec3 p, vec3 ldir, double maxt, long *steps)
{
    double res = 1.0, t = 0.02;
    for (int i = 0; i < 64 && t < maxt; i++) {
        double d = sdf_scene(sc, add(p, scale(ldir, t)));
        (*steps)++;
        if (d < 1e-4)
            return 0.0;
        double k = 12.0 * d / t;
        if (k < res)
            res = k;
        t += fmin(fmax(d, 0.01), 0.5);
    }
    return res;
}

static double ambient_occlusion(const scene *sc, vec3 p, vec3 n)
{
    double occ = 0.0, w = 1.0;
    for (int i = 1; i <= 5; i++) {
        double h = 0.06 * i;
        double d = sdf_scene(sc, add(p, scale(n, h)));
        occ += (h - d) * w;
        w *= 0.6;
    }
    double a = 1.0 - 2.5 * occ;
    return a < 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a);
}

static int parse_numbers(const char *s, double *out, int want)
{
    int got = 0;
    char *end;
    while (got < want) {
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || !isfinite(v))
            return -1;
        out[got++] = v;
        s = end;
    }
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return *s == '\0' ? got : -1;
}

static int load_scene(const char *path, scene *sc)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return -1;
    }
    memset(sc, 0, sizeof *sc);
    int have_cam = 0, have_light = 0, lineno = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char word[32];
        int off = 0;
        if (sscanf(line, "%31s%n", word, &off) != 1)
            continue;
        const char *rest = line + off;
        double v[7];
        int ok;
        if (!strcmp(word, "camera")) {
            ok = parse_numbers(rest, v, 7) == 7 && v[6] > 1.0 && v[6] < 170.0;
            if (ok) {
                sc->eye = v3(v[0], v[1], v[2]);
                sc->target = v3(v[3], v[4], v[5]);
                sc->fov = v[6];
                have_cam = 1;
            }
        } else if (!strcmp(word, "light")) {
            ok = parse_numbers(rest, v, 3) == 3;
            if (ok) {
                sc->light = v3(v[0], v[1], v[2]);
                have_light = 1;
            }
        } else if (!strcmp(word, "plane")) {
            ok = parse_numbers(rest, v, 1) == 1;
            if (ok) {
                sc->has_plane = 1;
                sc->plane_y = v[0];
            }
        } else if (!strcmp(word, "sphere") || !strcmp(word, "box") || !strcmp(word, "torus")) {
            int kind = word[0] == 's' ? SPHERE : word[0] == 'b' ? BOX : TORUS;
            int want = kind == SPHERE ? 4 : kind == BOX ? 6 : 5;
            ok = parse_numbers(rest, v, want) == want && sc->n < MAX_SHAPES;
            for (int k = 3; ok && k < want; k++)
                ok = v[k] > 0.0;
            if (ok) {
                shape *s = &sc->s[sc->n++];
                s->kind = kind;
                s->c = v3(v[0], v[1], v[2]);
                s->a = v[3];
                s->b = want > 4 ? v[4] : 0.0;
                s->d = want > 5 ? v[5] : 0.0;
            }
        } else {
            fprintf(stderr, "error: %s:%d: unknown item '%s'\n", path, lineno, word);
            fclose(f);
            return -1;
        }
        if (!ok) {
            fprintf(stderr, "error: %s:%d: bad parameters for '%s'\n", path, lineno, word);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (!have_cam || !have_light || sc->n == 0) {
        fprintf(stderr, "error: %s: scene needs a camera, a light and at least one shape\n", path);
        return -1;
    }
    if (len(sub(sc->target, sc->eye)) < 1e-9) {
        fprintf(stderr, "error: %s: camera target equals camera position\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int W, H;
    char xch, extra;
    if (argc != 4 || sscanf(argv[2], "%d%c%d%c", &W, &xch, &H, &extra) != 3 || xch != 'x'
        || W < 1 || H < 1 || W > 16384 || H > 16384) {
        fprintf(stderr, "usage: %s scene.txt WIDTHxHEIGHT out.pgm\n", argv[0]);
        return 2;
    }
    static scene sc;
    if (load_scene(argv[1], &sc))
        return 1;

    unsigned char *img = malloc((size_t)W * H);
    if (!img) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    vec3 fwd = norm(sub(sc.target, sc.eye));
    vec3 right = cross(fwd, v3(0, 1, 0));
    if (len(right) < 1e-9)
        right = v3(1, 0, 0);
    right = norm(right);
    vec3 up = cross(right, fwd);
    double th = tan(sc.fov * 0.5 * M_PI / 180.0);
    double aspect = (double)W / H;

    long hits = 0, steps = 0;
    #pragma omp parallel for reduction(+:hits, steps)
    for (int y = 0; y < H; y++) {
        double v = (1.0 - 2.0 * (y + 0.5) / H) * th;
        for (int x = 0; x < W; x++) {
            double u = (2.0 * (x + 0.5) / W - 1.0) * th * aspect;
            vec3 dir = norm(add(fwd, add(scale(right, u), scale(up, v))));
            double t = trace(&sc, sc.eye, dir, &steps);
            double shade;
            if (t < 0.0) {
                /* sky: simple vertical gradient */
                shade = 0.55 + 0.35 * dir.y;
            } else {
                hits++;
                vec3 p = add(sc.eye, scale(dir, t));
                vec3 n = normal_at(&sc, p);
                vec3 tl = sub(sc.light, p);
                double ldist = len(tl);
                vec3 l = scale(tl, 1.0 / ldist);
                double diff = fmax(dot(n, l), 0.0);
                double sh = diff > 0.0 ? soft_shadow(&sc, add(p, scale(n, 2e-3)), l, ldist, &steps) : 0.0;
                double ao = ambient_occlusion(&sc, p, n);
                shade = 0.12 * ao + 0.85 * diff * sh;
            }
            int g = (int)(shade * 255.0 + 0.5);
            img[(size_t)y * W + x] = (unsigned char)(g < 0 ? 0 : g > 255 ? 255 : g);
        }
    }

    FILE *out = fopen(argv[3], "wb");
    if (!out) {
        fprintf(stderr, "error: cannot write '%s'\n", argv[3]);
        return 1;
    }
    fprintf(out, "P5\n%d %d\n255\n", W, H);
    if (fwrite(img, 1, (size_t)W * H, out) != (size_t)W * H || fclose(out)) {
        fprintf(stderr, "error: write to '%s' failed\n", argv[3]);
        return 1;
    }

    unsigned long long sum = 0;
    long hist[8] = { 0 };
    for (size_t k = 0; k < (size_t)W * H; k++) {
        sum += img[k];
        hist[img[k] >> 5]++;
    }
    unsigned long long npix = (unsigned long long)W * H;
    unsigned long long mean100 = (sum * 100 + npix / 2) / npix;

    printf("image: %dx%d, %d shapes%s\n", W, H, sc.n, sc.has_plane ? " + ground plane" : "");
    printf("rays hitting a surface: %ld of %llu\n", hits, npix);
    printf("march steps (primary and shadow rays): %ld\n", steps);
    printf("mean brightness: %llu.%02llu\n", mean100 / 100, mean100 % 100);
    printf("brightness histogram:\n");
    for (int b = 0; b < 8; b++)
        printf("  %3d-%3d: %ld\n", b * 32, b * 32 + 31, hist[b]);

    free(img);
    return 0;
}
