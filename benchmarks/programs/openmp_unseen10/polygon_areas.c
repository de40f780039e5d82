/* polygon_areas: area, perimeter, convexity and simplicity of many polygons.
 *
 * usage: polygon_areas POLYGON_FILE
 *
 * POLYGON_FILE: first line "polygons COUNT"; then one polygon per line:
 *   N X0 Y0 DX1 DY1 ... DX(N-1) DY(N-1)
 * (vertex count, first vertex, then each further vertex as an integer step
 * from the previous one; the polygon closes back to the first vertex).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>

#define MAXVERT 100000
#define MAXCOORD 1000000LL

enum { DEGENERATE, CONVEX, CONCAVE, COMPLEX, NCLASS };
static const char *class_name[NCLASS] = { "degenerate", "convex", "simple concave", "self-intersecting" };

typedef struct {
    long long twice_area;   /* signed shoelace sum */
    double perimeter;
    int cls;
} result_t;

static long long cross(long long ax, long long ay, long long bx, long long by, long long cx, long long cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static int sgn(long long v) { return (v > 0) - (v < 0); }

/* is point c on segment ab, given that a, b, c are collinear */
static int on_segment(long long ax, long long ay, long long bx, long long by, long long cx, long long cy)
{
    return (cx >= (ax < bx ? ax : bx) && cx <= (ax > bx ? ax : bx) &&
            cy >= (ay < by ? ay : by) && cy <= (ay > by ? ay : by));
}

static int segments_intersect(const long long *p, const long long *q, const long long *r, const long long *s)
{
    int d1 = sgn(cross(r[0], r[1], s[0], s[1], p[0], p[1]));
    int d2 = sgn(cross(r[0], r[1], s[0], s[1], q[0], q[1]));
    int d3 = sgn(cross(p[0], p[1], q[0], q[1], r[0], r[1]));
    int d4 = sgn(cross(p[0], p[1], q[0], q[1], s[0], s[1]));
    if (d1 * d2 < 0 && d3 * d4 < 0) return 1;
    if (d1 == 0 && on_segment(r[0], r[1], s[0], s[1], p[0], p[1])) return 1;
    if (d2 == 0 && on_segment(r[0], r[1], s[0], s[1], q[0], q[1])) return 1;
    if (d3 == 0 && on_segment(p[0], p[1], q[0], q[1], r[0], r[1])) return 1;
    if (d4 == 0 && on_segment(p[0], p[1], q[0], q[1], s[0], s[1])) return 1;
    return 0;
}

/* naive O(n^2) test of every pair of edges */
static int is_simple(const long long *v, int n)
{
    for (int i = 0; i < n; i++) {
        const long long *a = v + 2 * i, *b = v + 2 * ((i + 1) % n);
        for (int j = i + 1; j < n; j++) {
            const long long *c = v + 2 * j, *d = v + 2 * ((j + 1) % n);
            if (j == i + 1 || (i == 0 && j == n - 1)) {
                /* adjacent edges share one vertex; they may only touch there */
                const long long *shared = (j == i + 1) ? b : a;
                const long long *far1 = (j == i + 1) ? a : b;
                const long long *far2 = (j == i + 1) ? d : c;
                if (n == 3) continue;
                if (cross(shared[0], shared[1], far1[0], far1[1], far2[0], far2[1]) == 0 &&
                    (on_segment(shared[0], shared[1], far1[0], far1[1], far2[0], far2[1]) ||
                     on_segment(shared[0], shared[1], far2[0], far2[1], far1[0], far1[1])))
                    return 0;
                continue;
            }
            if (segments_intersect(a, b, c, d)) return 0;
        }
    }
    return 1;
}

static result_t measure(const long long *v, int n)
{
    result_t r;
    long long s = 0;
    double per = 0.0;
    int pos = 0, neg = 0;
    for (int i = 0; i < n; i++) {
        const long long *a = v + 2 * i, *b = v + 2 * ((i + 1) % n), *c = v + 2 * ((i + 2) % n);
        s += a[0] * b[1] - b[0] * a[1];
        double dx = (double)(b[0] - a[0]), dy = (double)(b[1] - a[1]);
        per += sqrt(dx * dx + dy * dy);
        long long t = cross(a[0], a[1], b[0], b[1], c[0], c[1]);
        if (t > 0) pos++;
        else if (t < 0) neg++;
    }
    r.twice_area = s;
    r.perimeter = per;
    if (s == 0) r.cls = DEGENERATE;
    else if (!is_simple(v, n)) r.cls = COMPLEX;
    else if (pos == 0 || neg == 0) r.cls = CONVEX;
    else r.cls = CONCAVE;
    return r;
}

/* parse the next whitespace-separated integer; 0 on success, 1 at the end
 * of the text, -1 on anything else */
static int next_int(const char **pp, long long *out)
{
    const char *p = *pp;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p == '\0') { *pp = p; return 1; }
    int neg = 0;
    if (*p == '-' || *p == '+') { neg = (*p == '-'); p++; }
    if (*p < '0' || *p > '9') return -1;
    long long v = 0;
    int digits = 0;
    while (*p >= '0' && *p <= '9') {
        if (++digits > 15) return -1;
        v = v * 10 + (*p++ - '0');
    }
    if (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') return -1;
    *out = neg ? -v : v;
    *pp = p;
    return 0;
}

static void print_area(long long twice)
{
    long long a = twice < 0 ? -twice : twice;
    printf("%lld.%s", a / 2, (a % 2) ? "5" : "0");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s POLYGON_FILE\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { fprintf(stderr, "polygon_areas: cannot open %s\n", argv[1]); return 1; }
    size_t fcap = 1 << 20, flen = 0, got;
    char *text = malloc(fcap + 1);
    while ((got = fread(text + flen, 1, fcap - flen, f)) > 0) {
        flen += got;
        if (flen == fcap) { fcap *= 2; text = realloc(text, fcap + 1); }
    }
    fclose(f);
    text[flen] = '\0';

    const char *cur = text;
    while (*cur == ' ' || *cur == '\t' || *cur == '\n' || *cur == '\r') cur++;
    long long npoly;
    if (strncmp(cur, "polygons", 8) != 0 || (cur += 8, next_int(&cur, &npoly) != 0) ||
        npoly < 1 || npoly > 10000000LL) {
        fprintf(stderr, "polygon_areas: %s: bad header (expected 'polygons COUNT')\n", argv[1]);
        return 1;
    }
    long *start = malloc(sizeof(long) * (size_t)(npoly + 1));
    int *count = malloc(sizeof(int) * (size_t)npoly);
    size_t cap = 1 << 20, used = 0;
    long long *coords = malloc(sizeof(long long) * cap);
    for (long p = 0; p < npoly; p++) {
        long long n, x, y;
        if (next_int(&cur, &n) != 0 || n < 3 || n > MAXVERT ||
            next_int(&cur, &x) != 0 || next_int(&cur, &y) != 0) {
            fprintf(stderr, "polygon_areas: %s: bad polygon header for polygon %ld\n", argv[1], p);
            return 1;
        }
        if (used + 2 * (size_t)n > cap) {
            while (used + 2 * (size_t)n > cap) cap *= 2;
            coords = realloc(coords, sizeof(long long) * cap);
        }
        start[p] = (long)used;
        count[p] = (int)n;
        for (int k = 0; k < n; k++) {
            if (k > 0) {
                long long dx, dy;
                if (next_int(&cur, &dx) != 0 || next_int(&cur, &dy) != 0) {
                    fprintf(stderr, "polygon_areas: %s: polygon %ld: missing vertex %d\n", argv[1], p, k);
                    return 1;
                }
                x += dx; y += dy;
            }
            if (llabs(x) > MAXCOORD || llabs(y) > MAXCOORD) {
                fprintf(stderr, "polygon_areas: %s: polygon %ld: coordinate out of range\n", argv[1], p);
                return 1;
            }
            coords[used++] = x;
            coords[used++] = y;
        }
    }
    long long extra;
    if (next_int(&cur, &extra) != 1) {
        fprintf(stderr, "polygon_areas: %s: more data than %lld polygons\n", argv[1], npoly);
        return 1;
    }
    free(text);

    result_t *res = malloc(sizeof(result_t) * (size_t)npoly);
#pragma omp parallel for
    for (long p = 0; p < npoly; p++)
        res[p] = measure(coords + start[p], count[p]);

    long long total_twice = 0, total_vertices = 0, cls_twice[NCLASS] = {0};
    long cls_count[NCLASS] = {0}, ccw = 0;
    double total_per = 0.0;
    int maxn = 0;
    for (long p = 0; p < npoly; p++) {
        long long a = llabs(res[p].twice_area);
        total_twice += a;
        total_per += res[p].perimeter;
        total_vertices += count[p];
        cls_count[res[p].cls]++;
        cls_twice[res[p].cls] += a;
        if (res[p].twice_area > 0) ccw++;
        if (count[p] > maxn) maxn = count[p];
    }
    printf("polygons: %lld, vertices: %lld (largest polygon %d vertices)\n", npoly, total_vertices, maxn);
    printf("total area: "); print_area(total_twice);
    printf(", total perimeter: %.3f, counter-clockwise: %ld\n", total_per, ccw);
    printf("by class:\n");
    for (int c = 0; c < NCLASS; c++) {
        printf("  %-18s %8ld polygons, area ", class_name[c], cls_count[c]);
        print_area(cls_twice[c]);
        printf("\n");
    }

    /* the largest polygons by area, ties by index */
    enum { TOP = 8 };
    long top[TOP];
    int ntop = 0;
    for (long p = 0; p < npoly; p++) {
        long long a = llabs(res[p].twice_area);
        if (ntop == TOP && a <= llabs(res[top[TOP - 1]].twice_area)) continue;
        int k = (ntop < TOP) ? ntop++ : TOP - 1;
        while (k > 0 && a > llabs(res[top[k - 1]].twice_area)) { top[k] = top[k - 1]; k--; }
        top[k] = p;
    }
    printf("largest polygons:\n");
    for (int k = 0; k < ntop; k++) {
        long p = top[k];
        printf("  #%-7ld %5d vertices, area ", p, count[p]);
        print_area(res[p].twice_area);
        printf(", perimeter %.3f, %s\n", res[p].perimeter, class_name[res[p].cls]);
    }
    free(res); free(coords); free(start); free(count);
    return 0;
}
