/*
 * quickhull_sets: convex hulls of many 2-D point clouds.
 *
 * For every cloud: convex hull (Andrew's monotone chain), hull area,
 * perimeter, diameter (rotating calipers), bounding box, and a robust
 * "core" obtained by convex-hull peeling: hull layers are removed one after
 * the other until at least <trim_percent> of the points are gone, and the
 * area of the hull of what is left is reported relative to the full hull.
 *
 * usage: quickhull_sets <clouds.txt> <trim_percent>
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHAPE_DISC, SHAPE_SQUARE, SHAPE_RING, SHAPE_GAUSS, NSHAPES };
static const char *shape_names[NSHAPES] = { "disc", "square", "ring", "gauss" };

typedef struct { long x, y; } pt_t;

typedef struct {
    int shape;
    int n;
    pt_t *p;
} cloud_t;

typedef struct {
    int hull_n;
    long long area2;      /* twice the hull area (exact) */
    double perimeter;
    long long diam2;      /* squared diameter (exact) */
    long long bbox;       /* bounding box area */
    int layers;           /* hull layers actually peeled */
    int core_n;           /* points left after peeling */
    long long core_area2; /* twice the area of the hull of the core */
} stats_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <clouds.txt> <trim_percent>\n", prog);
}

static long long cross(pt_t o, pt_t a, pt_t b)
{
    return (long long)(a.x - o.x) * (b.y - o.y) - (long long)(a.y - o.y) * (b.x - o.x);
}

static long long dist2(pt_t a, pt_t b)
{
    long long dx = a.x - b.x, dy = a.y - b.y;
    return dx * dx + dy * dy;
}

static int cmp_pt(const void *a, const void *b)
{
    const pt_t *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return 0;
}

/*
 * Monotone chain on points sorted by (x, y).  Writes the indices of the hull
 * vertices (counter-clockwise, no collinear points) to idx and returns their
 * number.  idx needs room for n + 1 entries.
 */
static int hull_indices(const pt_t *p, int n, int *idx)
{
    if (n < 3) {
        for (int i = 0; i < n; i++)
            idx[i] = i;
        return n;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        while (k >= 2 && cross(p[idx[k - 2]], p[idx[k - 1]], p[i]) <= 0)
            k--;
        idx[k++] = i;
    }
    for (int i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && cross(p[idx[k - 2]], p[idx[k - 1]], p[i]) <= 0)
            k--;
        idx[k++] = i;
    }
    return k - 1;
}

static long long polygon_area2(const pt_t *p, const int *idx, int h)
{
    long long a = 0;
    for (int i = 0; i < h; i++) {
        pt_t u = p[idx[i]], v = p[idx[(i + 1) % h]];
        a += (long long)u.x * v.y - (long long)v.x * u.y;
    }
    return a < 0 ? -a : a;
}

static long long calipers_diam2(const pt_t *h, int m)
{
    if (m == 1)
        return 0;
    if (m == 2)
        return dist2(h[0], h[1]);
    long long best = 0;
    int j = 1;
    for (int i = 0; i < m; i++) {
        int ni = (i + 1) % m;
        while (llabs(cross(h[i], h[ni], h[(j + 1) % m])) > llabs(cross(h[i], h[ni], h[j])))
            j = (j + 1) % m;
        long long d = dist2(h[i], h[j]);
        if (d > best)
            best = d;
        d = dist2(h[ni], h[j]);
        if (d > best)
            best = d;
    }
    return best;
}

static void analyse(const cloud_t *c, double trim_percent, stats_t *s)
{
    int n = c->n;
    pt_t *p = malloc((size_t)n * sizeof *p);
    int *idx = malloc((size_t)(n + 1) * sizeof *idx);
    pt_t *hv = malloc((size_t)(n + 1) * sizeof *hv);
    char *gone = malloc((size_t)n);
    if (!p || !idx || !hv || !gone) {
        fprintf(stderr, "quickhull_sets: out of memory\n");
        exit(1);
    }
    memcpy(p, c->p, (size_t)n * sizeof *p);
    qsort(p, (size_t)n, sizeof *p, cmp_pt);

    long minx = p[0].x, maxx = p[n - 1].x, miny = p[0].y, maxy = p[0].y;
    for (int i = 1; i < n; i++) {
        if (p[i].y < miny) miny = p[i].y;
        if (p[i].y > maxy) maxy = p[i].y;
    }
    s->bbox = (long long)(maxx - minx) * (maxy - miny);

    int h = hull_indices(p, n, idx);
    s->hull_n = h;
    s->area2 = polygon_area2(p, idx, h);
    s->perimeter = 0.0;
    for (int i = 0; i < h; i++) {
        hv[i] = p[idx[i]];
        if (h > 1)
            s->perimeter += sqrt((double)dist2(p[idx[i]], p[idx[(i + 1) % h]]));
    }
    s->diam2 = calipers_diam2(hv, h);

    /* Peel hull layers; the remaining points stay sorted. */
    int m = n, layers = 0;
    long long core_area2 = s->area2;
    double keep = n * (1.0 - trim_percent / 100.0);
    while (m > keep && m >= 3) {
        int k = hull_indices(p, m, idx);
        memset(gone, 0, (size_t)m);
        for (int i = 0; i < k; i++)
            gone[idx[i]] = 1;
        int w = 0;
        for (int i = 0; i < m; i++)
            if (!gone[i])
                p[w++] = p[i];
        m = w;
        layers++;
        if (m >= 3) {
            k = hull_indices(p, m, idx);
            core_area2 = polygon_area2(p, idx, k);
        } else {
            core_area2 = 0;
        }
    }
    s->layers = layers;
    s->core_n = m;
    s->core_area2 = core_area2;

    free(gone);
    free(hv);
    free(idx);
    free(p);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "quickhull_sets: cannot open '%s': %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "quickhull_sets: out of memory\n");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int next_long(char **s, long *v)
{
    char *end;
    errno = 0;
    *v = strtol(*s, &end, 10);
    if (end == *s || errno)
        return 0;
    *s = end;
    return 1;
}

static cloud_t *parse_clouds(const char *path, int *count, long *total)
{
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return NULL;
    char *s = text;
    long nc;
    cloud_t *c = NULL;
    if (!next_long(&s, &nc) || nc <= 0 || nc > 1000000)
        goto bad;
    c = calloc((size_t)nc, sizeof *c);
    if (!c)
        goto bad;
    *total = 0;
    for (long i = 0; i < nc; i++) {
        while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
            s++;
        int shape = -1;
        for (int k = 0; k < NSHAPES; k++) {
            size_t l = strlen(shape_names[k]);
            if (strncmp(s, shape_names[k], l) == 0 && (s[l] == ' ' || s[l] == '\t')) {
                shape = k;
                s += l;
                break;
            }
        }
        long n;
        if (shape < 0 || !next_long(&s, &n) || n < 1 || n > 10000000)
            goto bad;
        c[i].shape = shape;
        c[i].n = (int)n;
        c[i].p = malloc((size_t)n * sizeof(pt_t));
        if (!c[i].p)
            goto bad;
        for (long j = 0; j < n; j++)
            if (!next_long(&s, &c[i].p[j].x) || !next_long(&s, &c[i].p[j].y) ||
                labs(c[i].p[j].x) > 1000000L || labs(c[i].p[j].y) > 1000000L)
                goto bad;
        *total += n;
    }
    free(text);
    *count = (int)nc;
    return c;
bad:
    fprintf(stderr, "quickhull_sets: '%s': malformed cloud file\n", path);
    if (c)
        for (long i = 0; i < nc; i++)
            free(c[i].p);
    free(c);
    free(text);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    double trim = strtod(argv[2], &end);
    if (*end != '\0' || argv[2][0] == '\0' || !(trim >= 0.0 && trim <= 100.0)) {
        usage(argv[0]);
        return 2;
    }

    int nc;
    long total_pts;
    cloud_t *clouds = parse_clouds(argv[1], &nc, &total_pts);
    if (!clouds)
        return 1;
    stats_t *st = malloc((size_t)nc * sizeof *st);
    if (!st) {
        fprintf(stderr, "quickhull_sets: out of memory\n");
        return 1;
    }

    #pragma omp parallel for
    for (int i = 0; i < nc; i++)
        analyse(&clouds[i], trim, &st[i]);

    /* Combine in input order so the output does not depend on threads. */
    long hull_total = 0, layers_total = 0;
    int hmin = st[0].hull_n, hmax = st[0].hull_n, far = 0;
    double ratio_sum = 0.0;
    int ratio_n = 0;
    int cnt[NSHAPES] = { 0 };
    long hsum[NSHAPES] = { 0 };
    long lsum[NSHAPES] = { 0 };
    double rsum[NSHAPES] = { 0 }, csum[NSHAPES] = { 0 }, psum[NSHAPES] = { 0 };
    for (int i = 0; i < nc; i++) {
        int sh = clouds[i].shape;
        hull_total += st[i].hull_n;
        layers_total += st[i].layers;
        if (st[i].hull_n < hmin) hmin = st[i].hull_n;
        if (st[i].hull_n > hmax) hmax = st[i].hull_n;
        if (st[i].diam2 > st[far].diam2) far = i;
        double ratio = st[i].bbox > 0 ? 0.5 * st[i].area2 / st[i].bbox : 0.0;
        if (st[i].bbox > 0) {
            ratio_sum += ratio;
            ratio_n++;
        }
        cnt[sh]++;
        hsum[sh] += st[i].hull_n;
        lsum[sh] += st[i].layers;
        rsum[sh] += ratio;
        csum[sh] += st[i].area2 > 0 ? (double)st[i].core_area2 / st[i].area2 : 0.0;
        psum[sh] += st[i].perimeter;
    }

    printf("clouds: %d, points: %ld, trimmed by hull peeling: %g%%\n", nc, total_pts, trim);
    printf("hull vertices: total %ld, min %d, mean %.2f, max %d\n",
           hull_total, hmin, (double)hull_total / nc, hmax);
    printf("layers peeled: %ld\n", layers_total);
    printf("mean area ratio hull/bounding box: %.4f\n", ratio_n ? ratio_sum / ratio_n : 0.0);
    printf("largest diameter: cloud %d (%s, %d points), %.2f\n",
           far + 1, shape_names[clouds[far].shape], clouds[far].n, sqrt((double)st[far].diam2));
    printf("%-7s %6s %8s %10s %10s %8s %10s\n", "shape", "clouds", "hull_v", "hull/bbox",
           "perimeter", "layers", "core/hull");
    for (int k = 0; k < NSHAPES; k++)
        if (cnt[k])
            printf("%-7s %6d %8.2f %10.4f %10.1f %8.2f %10.4f\n", shape_names[k], cnt[k],
                   (double)hsum[k] / cnt[k], rsum[k] / cnt[k], psum[k] / cnt[k],
                   (double)lsum[k] / cnt[k], csum[k] / cnt[k]);

    /* Ten clouds with the most hull vertices (ties: lower index first). */
    int top[10], ntop = 0;
    for (int i = 0; i < nc; i++) {
        int pos = ntop;
        while (pos > 0 && st[top[pos - 1]].hull_n < st[i].hull_n)
            pos--;
        if (pos >= 10)
            continue;
        if (ntop < 10)
            ntop++;
        for (int j = ntop - 1; j > pos; j--)
            top[j] = top[j - 1];
        top[pos] = i;
    }
    printf("most hull vertices:\n");
    for (int t = 0; t < ntop; t++) {
        const stats_t *s = &st[top[t]];
        printf("  cloud %4d  %-6s %6d points  %4d vertices  area %12.1f  diameter %8.2f\n",
               top[t] + 1, shape_names[clouds[top[t]].shape], clouds[top[t]].n, s->hull_n,
               0.5 * s->area2, sqrt((double)s->diam2));
    }

    for (int i = 0; i < nc; i++)
        free(clouds[i].p);
    free(clouds);
    free(st);
    return 0;
}
