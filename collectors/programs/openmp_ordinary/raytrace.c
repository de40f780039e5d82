/*
 * raytrace.c - a small Whitted-style ray tracer for scenes of spheres and
 * planes, with point lights, hard shadows and mirror reflections.
 *
 * usage: raytrace scene.txt width height max_depth [-o image.ppm]
 *
 * The scene file is plain text, one item per line ('#' starts a comment):
 *     camera    ex ey ez   tx ty tz   fov_degrees
 *     light     x y z   intensity
 *     ambient   a
 *     background r g b
 *     sphere    cx cy cz radius   r g b   kd ks shininess reflect
 *     plane     nx ny nz d        r g b   kd ks shininess reflect checker
 * A plane is the set of points p with dot(n, p) = d; a non-zero `checker`
 * is the size of a checkerboard pattern that darkens every other square.
 *
 * Prints image statistics: mean luminance, an 8-band luminance histogram,
 * what the primary rays hit and how many rays were traced.  With -o the
 * image is also written as a binary PPM.
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OBJECTS 512
#define MAX_LIGHTS 8
#define EPS 1e-6

typedef struct { double x, y, z; } vec3;

typedef struct {
    vec3 color;
    double kd, ks, shininess, reflect, checker;
} material_t;

enum { SPHERE, PLANE };

typedef struct {
    int kind;
    vec3 p;          /* sphere centre, or plane normal (unit) */
    double r;        /* sphere radius, or plane offset d */
    material_t m;
} object_t;

typedef struct { vec3 pos; double intensity; } light_t;

typedef struct {
    vec3 eye, target;
    double fov;
    int nobj, nlight, have_camera;
    object_t obj[MAX_OBJECTS];
    light_t light[MAX_LIGHTS];
    double ambient;
    vec3 background;
} scene_t;

typedef struct {
    long rays;       /* every ray traced: primary, reflected, shadow */
    long bounces;    /* reflected rays */
} counters_t;

static vec3 v(double x, double y, double z) { vec3 r = {x, y, z}; return r; }
static vec3 add(vec3 a, vec3 b) { return v(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3 sub(vec3 a, vec3 b) { return v(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3 scale(vec3 a, double s) { return v(a.x * s, a.y * s, a.z * s); }
static vec3 mul(vec3 a, vec3 b) { return v(a.x * b.x, a.y * b.y, a.z * b.z); }
static double dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3 cross(vec3 a, vec3 b)
{
    return v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static vec3 normalize(vec3 a)
{
    double len = sqrt(dot(a, a));
    return len > 0 ? scale(a, 1.0 / len) : a;
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s scene.txt width height max_depth [-o image.ppm]\n", prog);
    fprintf(stderr, "  scene.txt  plain-text scene (camera, lights, spheres, planes)\n");
    fprintf(stderr, "  width      image width in pixels (1..8192)\n");
    fprintf(stderr, "  height     image height in pixels (1..8192)\n");
    fprintf(stderr, "  max_depth  maximum number of mirror bounces (0..64)\n");
    fprintf(stderr, "  -o FILE    also write the image as a binary PPM\n");
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long val = strtol(s, &end, 10);
    if (errno || end == s || *end || val < lo || val > hi)
        return -1;
    *out = (int)val;
    return 0;
}

static int read_material(const char *rest, material_t *m, int want_checker)
{
    int n;
    m->checker = 0;
    if (want_checker)
        n = sscanf(rest, "%lf %lf %lf %lf %lf %lf %lf %lf", &m->color.x, &m->color.y,
                   &m->color.z, &m->kd, &m->ks, &m->shininess, &m->reflect, &m->checker);
    else
        n = sscanf(rest, "%lf %lf %lf %lf %lf %lf %lf", &m->color.x, &m->color.y,
                   &m->color.z, &m->kd, &m->ks, &m->shininess, &m->reflect);
    if (n != (want_checker ? 8 : 7))
        return -1;
    if (m->reflect < 0 || m->reflect > 1 || m->kd < 0 || m->ks < 0 || m->shininess < 0)
        return -1;
    return 0;
}

/* Skip `count` whitespace-separated fields of s. */
static const char *skip_fields(const char *s, int count)
{
    for (int i = 0; i < count; i++) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '\n')
            return NULL;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n')
            s++;
    }
    return s;
}

static int read_scene(const char *path, scene_t *sc)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    memset(sc, 0, sizeof *sc);
    sc->ambient = 0.1;
    char line[512], word[32];
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        if (sscanf(line, "%31s", word) != 1)
            continue;
        const char *rest = skip_fields(line, 1);
        int ok = 0;
        if (!strcmp(word, "camera")) {
            ok = sscanf(rest, "%lf %lf %lf %lf %lf %lf %lf", &sc->eye.x, &sc->eye.y,
                        &sc->eye.z, &sc->target.x, &sc->target.y, &sc->target.z,
                        &sc->fov) == 7 && sc->fov > 1 && sc->fov < 179;
            sc->have_camera = 1;
        } else if (!strcmp(word, "light")) {
            if (sc->nlight < MAX_LIGHTS) {
                light_t *l = &sc->light[sc->nlight++];
                ok = sscanf(rest, "%lf %lf %lf %lf", &l->pos.x, &l->pos.y, &l->pos.z,
                            &l->intensity) == 4 && l->intensity >= 0;
            }
        } else if (!strcmp(word, "ambient")) {
            ok = sscanf(rest, "%lf", &sc->ambient) == 1 && sc->ambient >= 0;
        } else if (!strcmp(word, "background")) {
            ok = sscanf(rest, "%lf %lf %lf", &sc->background.x, &sc->background.y,
                        &sc->background.z) == 3;
        } else if (!strcmp(word, "sphere") || !strcmp(word, "plane")) {
            if (sc->nobj < MAX_OBJECTS) {
                object_t *o = &sc->obj[sc->nobj];
                int is_sphere = word[0] == 's';
                o->kind = is_sphere ? SPHERE : PLANE;
                const char *mat = skip_fields(rest, 4);
                ok = mat && sscanf(rest, "%lf %lf %lf %lf", &o->p.x, &o->p.y, &o->p.z,
                                   &o->r) == 4 &&
                     read_material(mat, &o->m, !is_sphere) == 0;
                if (ok && is_sphere && o->r <= 0)
                    ok = 0;
                if (ok && !is_sphere) {
                    double len = sqrt(dot(o->p, o->p));
                    if (len == 0)
                        ok = 0;
                    else {
                        o->p = scale(o->p, 1.0 / len);
                        o->r /= len;
                    }
                }
                if (ok)
                    sc->nobj++;
            }
        }
        if (!ok) {
            fprintf(stderr, "error: %s:%ld: bad or unsupported '%s' line\n", path, lineno, word);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    if (!sc->have_camera || sc->nobj == 0 || sc->nlight == 0) {
        fprintf(stderr, "error: %s: scene needs a camera, a light and an object\n", path);
        return -1;
    }
    return 0;
}

/* Nearest intersection along the ray; returns object index or -1. */
static int intersect(const scene_t *sc, vec3 o, vec3 d, double tmax, double *t_out)
{
    int hit = -1;
    double best = tmax;
    for (int i = 0; i < sc->nobj; i++) {
        const object_t *ob = &sc->obj[i];
        double t;
        if (ob->kind == SPHERE) {
            vec3 oc = sub(o, ob->p);
            double b = dot(oc, d);
            double c = dot(oc, oc) - ob->r * ob->r;
            double disc = b * b - c;
            if (disc < 0)
                continue;
            double s = sqrt(disc);
            t = -b - s;
            if (t < EPS)
                t = -b + s;
        } else {
            double den = dot(ob->p, d);
            if (fabs(den) < 1e-12)
                continue;
            t = (ob->r - dot(ob->p, o)) / den;
        }
        if (t > EPS && t < best) {
            best = t;
            hit = i;
        }
    }
    *t_out = best;
    return hit;
}

static int in_shadow(const scene_t *sc, vec3 p, vec3 to_light, double dist)
{
    double t;
    return intersect(sc, p, to_light, dist, &t) >= 0;
}

static vec3 trace(const scene_t *sc, vec3 o, vec3 d, int depth, int max_depth,
                  counters_t *cnt, int *first_hit)
{
    double t;
    cnt->rays++;
    int id = intersect(sc, o, d, 1e30, &t);
    if (first_hit)
        *first_hit = id;
    if (id < 0)
        return sc->background;

    const object_t *ob = &sc->obj[id];
    vec3 p = add(o, scale(d, t));
    vec3 n = ob->kind == SPHERE ? normalize(sub(p, ob->p)) : ob->p;
    if (dot(n, d) > 0)
        n = scale(n, -1.0);
    vec3 base = ob->m.color;
    if (ob->m.checker > 0) {
        /* step half a square behind the surface so that rounding noise in
           the coordinate along the normal does not flip the parity */
        vec3 q = sub(p, scale(ob->p, 0.5 * ob->m.checker));
        long cx = (long)floor(q.x / ob->m.checker);
        long cy = (long)floor(q.y / ob->m.checker);
        long cz = (long)floor(q.z / ob->m.checker);
        if ((cx + cy + cz) & 1)
            base = scale(base, 0.35);
    }
    vec3 pe = add(p, scale(n, 1e-4));

    vec3 col = scale(base, sc->ambient);
    for (int l = 0; l < sc->nlight; l++) {
        vec3 tl = sub(sc->light[l].pos, p);
        double dist = sqrt(dot(tl, tl));
        tl = scale(tl, 1.0 / dist);
        double ndl = dot(n, tl);
        if (ndl <= 0)
            continue;
        cnt->rays++;
        if (in_shadow(sc, pe, tl, dist))
            continue;
        double li = sc->light[l].intensity;
        col = add(col, scale(base, ob->m.kd * ndl * li));
        if (ob->m.ks > 0) {
            vec3 h = normalize(sub(tl, d));
            double spec = pow(fmax(dot(n, h), 0.0), ob->m.shininess);
            col = add(col, scale(v(1, 1, 1), ob->m.ks * spec * li));
        }
    }

    double kr = ob->m.reflect;
    if (kr > 0 && depth < max_depth) {
        vec3 r = normalize(sub(d, scale(n, 2.0 * dot(d, n))));
        cnt->bounces++;
        vec3 rc = trace(sc, pe, r, depth + 1, max_depth, cnt, NULL);
        col = add(scale(col, 1.0 - kr), scale(mul(rc, v(0.9, 0.9, 0.9)), kr));
    }
    return col;
}

static double clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    const char *pos[4];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc) {
                usage(argv[0]);
                return 2;
            }
            out_path = argv[++i];
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            usage(argv[0]);
            return 2;
        }
    }
    int width, height, max_depth;
    if (npos != 4 || parse_int(pos[1], 1, 8192, &width) ||
        parse_int(pos[2], 1, 8192, &height) || parse_int(pos[3], 0, 64, &max_depth)) {
        usage(argv[0]);
        return 2;
    }

    static scene_t sc;
    if (read_scene(pos[0], &sc))
        return 1;

    /* camera basis */
    vec3 fwd = normalize(sub(sc.target, sc.eye));
    vec3 right = normalize(cross(v(0, 1, 0), fwd));
    vec3 up = cross(fwd, right);
    double half = tan(sc.fov * M_PI / 360.0);
    double aspect = (double)width / height;

    unsigned char *img = malloc((size_t)width * height * 3);
    double *row_lum = malloc((size_t)height * sizeof(double));
    if (!img || !row_lum) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    long hist[8] = {0};
    long hit_sphere = 0, hit_plane = 0, miss = 0, rays = 0, bounces = 0;
    int brightest_row = 0;

    #pragma omp parallel for reduction(+:hist[:8], hit_sphere, hit_plane, miss, rays, bounces)
    for (int y = 0; y < height; y++) {
        counters_t cnt = {0, 0};
        double lum_sum = 0;
        for (int x = 0; x < width; x++) {
            double px = (2.0 * (x + 0.5) / width - 1.0) * half * aspect;
            double py = (1.0 - 2.0 * (y + 0.5) / height) * half;
            vec3 d = normalize(add(fwd, add(scale(right, px), scale(up, py))));
            int first;
            vec3 c = trace(&sc, sc.eye, d, 0, max_depth, &cnt, &first);
            if (first < 0)
                miss++;
            else if (sc.obj[first].kind == SPHERE)
                hit_sphere++;
            else
                hit_plane++;
            c = v(clamp01(c.x), clamp01(c.y), clamp01(c.z));
            double lum = 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z;
            lum_sum += lum;
            int band = (int)(lum * 8);
            hist[band > 7 ? 7 : band]++;
            unsigned char *px8 = img + ((size_t)y * width + x) * 3;
            px8[0] = (unsigned char)lrint(c.x * 255);
            px8[1] = (unsigned char)lrint(c.y * 255);
            px8[2] = (unsigned char)lrint(c.z * 255);
        }
        row_lum[y] = lum_sum;
        rays += cnt.rays;
        bounces += cnt.bounces;
    }

    double total = 0;
    for (int y = 0; y < height; y++) {
        total += row_lum[y];
        if (row_lum[y] > row_lum[brightest_row])
            brightest_row = y;
    }
    long npix = (long)width * height;

    printf("scene: %d objects, %d lights, %dx%d pixels, max depth %d\n",
           sc.nobj, sc.nlight, width, height, max_depth);
    printf("mean luminance: %.6f\n", total / npix);
    printf("brightest row: %d (mean %.6f)\n", brightest_row, row_lum[brightest_row] / width);
    printf("primary hits: spheres %ld, planes %ld, background %ld\n", hit_sphere, hit_plane, miss);
    printf("rays traced: %ld (%.3f per pixel), reflections %ld\n", rays,
           (double)rays / npix, bounces);
    printf("luminance histogram:");
    for (int b = 0; b < 8; b++)
        printf(" %ld", hist[b]);
    printf("\n");

    if (out_path) {
        FILE *f = fopen(out_path, "wb");
        if (!f || fprintf(f, "P6\n%d %d\n255\n", width, height) < 0 ||
            fwrite(img, 3, (size_t)npix, f) != (size_t)npix || fclose(f)) {
            fprintf(stderr, "error: cannot write '%s'\n", out_path);
            return 1;
        }
    }
    free(img);
    free(row_lum);
    return 0;
}
