/*
 * poly_clip - intersection areas and IoU of pairs of simple polygons.
 *
 * For every pair of polygons read from the input file the area of their
 * intersection is computed:
 *   - if one of the two is convex, the other one is clipped against it with
 *     Sutherland-Hodgman and the area of the result is taken (the degenerate
 *     bridge edges SH leaves for a non-convex subject have zero area);
 *   - otherwise both polygons are split into signed triangles fanned from a
 *     common point, and the signed areas of all triangle-triangle
 *     intersections are summed (the winding numbers multiply, so the sum is
 *     the area of the intersection of two simple polygons).
 * Each pair is also registered by a small search over translations of the
 * second polygon (a (2S+1)x(2S+1) grid of shifts, steps of 4% of the larger
 * polygon's size) to see how much of the mismatch is a plain offset.
 * Prints counts, the mean IoU, the largest overlaps and an IoU histogram.
 *
 * usage: poly_clip PAIRS.txt [SHIFT_STEPS] [MIN_IOU]
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VERTS 100000
#define TOP_OVERLAPS 10
#define HIST_BINS 10

typedef struct {
    double x, y;
} pt_t;

typedef struct {
    int n;
    pt_t *v;
    double area;   /* absolute area */
    int convex;
} poly_t;

typedef struct {
    double inter;
    double iou;
    int method;    /* 0: bounding boxes disjoint, 1: Sutherland-Hodgman, 2: triangle fans */
    double best_iou;   /* best IoU over the shift grid */
    int best_kx, best_ky;
} result_t;

typedef struct {
    pt_t *a, *b;   /* ping-pong buffers for Sutherland-Hodgman */
    int cap;
    pt_t *tri;     /* triangle list (3 points each) for the fan method */
    int tcap;
    poly_t moved;  /* shifted copy of the second polygon */
    int mcap;
} scratch_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s PAIRS.txt [SHIFT_STEPS (0..50, default 3)] "
                    "[MIN_IOU (count pairs at or above it, default 0.5)]\n", prog);
}

/* ---------- reading ---------- */

static int next_line(FILE *f, char *buf, int size, int *lineno)
{
    while (fgets(buf, size, f)) {
        (*lineno)++;
        char *p = buf;
        while (isspace((unsigned char)*p))
            p++;
        if (*p && *p != '#')
            return 1;
    }
    return 0;
}

static double signed_area(const pt_t *v, int n)
{
    double s = 0.0;
    for (int i = 0, j = n - 1; i < n; j = i++)
        s += v[j].x * v[i].y - v[i].x * v[j].y;
    return 0.5 * s;
}

static int is_convex(const pt_t *v, int n)
{
    int sign = 0;
    for (int i = 0; i < n; i++) {
        const pt_t *a = &v[i], *b = &v[(i + 1) % n], *c = &v[(i + 2) % n];
        double cr = (b->x - a->x) * (c->y - b->y) - (b->y - a->y) * (c->x - b->x);
        if (cr > 1e-12) {
            if (sign < 0)
                return 0;
            sign = 1;
        } else if (cr < -1e-12) {
            if (sign > 0)
                return 0;
            sign = -1;
        }
    }
    return 1;
}

static int read_polygon(FILE *f, poly_t *p, int *lineno, const char *path)
{
    char line[256];
    int n;
    char extra;
    if (!next_line(f, line, sizeof line, lineno)) {
        fprintf(stderr, "poly_clip: %s: unexpected end of file after line %d\n", path, *lineno);
        return 0;
    }
    if (sscanf(line, "%d %c", &n, &extra) != 1 || n < 3 || n > MAX_VERTS) {
        fprintf(stderr, "poly_clip: %s:%d: expected a vertex count (3..%d)\n", path, *lineno,
                MAX_VERTS);
        return 0;
    }
    p->n = n;
    p->v = malloc((size_t)n * sizeof(pt_t));
    for (int i = 0; i < n; i++) {
        if (!next_line(f, line, sizeof line, lineno)) {
            fprintf(stderr, "poly_clip: %s: unexpected end of file after line %d\n", path, *lineno);
            return 0;
        }
        if (sscanf(line, "%lf %lf %c", &p->v[i].x, &p->v[i].y, &extra) != 2 ||
            !isfinite(p->v[i].x) || !isfinite(p->v[i].y)) {
            fprintf(stderr, "poly_clip: %s:%d: expected a vertex \"x y\"\n", path, *lineno);
            return 0;
        }
    }
    /* make every polygon counter-clockwise */
    double a = signed_area(p->v, n);
    if (a < 0.0) {
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            pt_t t = p->v[i];
            p->v[i] = p->v[j];
            p->v[j] = t;
        }
    }
    p->area = fabs(a);
    p->convex = is_convex(p->v, n);
    return 1;
}

/* ---------- Sutherland-Hodgman ---------- */

static void reserve(scratch_t *s, int n)
{
    if (n <= s->cap)
        return;
    while (s->cap < n)
        s->cap = s->cap ? 2 * s->cap : 256;
    s->a = realloc(s->a, (size_t)s->cap * sizeof(pt_t));
    s->b = realloc(s->b, (size_t)s->cap * sizeof(pt_t));
}

/* clip subject (any simple polygon) by a convex CCW clipper; returns area of the result */
static double sh_clip_area(const poly_t *subj, const poly_t *clip, scratch_t *s)
{
    reserve(s, 2 * subj->n + 8);
    int n = subj->n;
    memcpy(s->a, subj->v, (size_t)n * sizeof(pt_t));
    for (int e = 0; e < clip->n && n > 0; e++) {
        pt_t c0 = clip->v[e], c1 = clip->v[(e + 1) % clip->n];
        double ex = c1.x - c0.x, ey = c1.y - c0.y;
        if (ex == 0.0 && ey == 0.0)
            continue;
        reserve(s, 2 * n + 8);
        pt_t *in = s->a, *out = s->b;
        int m = 0;
        pt_t prev = in[n - 1];
        double dp = ex * (prev.y - c0.y) - ey * (prev.x - c0.x);
        for (int i = 0; i < n; i++) {
            pt_t cur = in[i];
            double dc = ex * (cur.y - c0.y) - ey * (cur.x - c0.x);
            if (dc >= 0.0) {
                if (dp < 0.0) {
                    double t = dp / (dp - dc);
                    out[m].x = prev.x + t * (cur.x - prev.x);
                    out[m].y = prev.y + t * (cur.y - prev.y);
                    m++;
                }
                out[m++] = cur;
            } else if (dp >= 0.0) {
                double t = dp / (dp - dc);
                out[m].x = prev.x + t * (cur.x - prev.x);
                out[m].y = prev.y + t * (cur.y - prev.y);
                m++;
            }
            prev = cur;
            dp = dc;
        }
        s->a = out;
        s->b = in;
        n = m;
    }
    return n >= 3 ? fabs(signed_area(s->a, n)) : 0.0;
}

/* ---------- triangle fans ---------- */

/* area of the intersection of two CCW triangles */
static double tri_tri_area(const pt_t *t, const pt_t *u)
{
    pt_t a[9], b[9];
    int n = 3;
    a[0] = t[0];
    a[1] = t[1];
    a[2] = t[2];
    pt_t *in = a, *out = b;
    for (int e = 0; e < 3 && n > 0; e++) {
        pt_t c0 = u[e], c1 = u[(e + 1) % 3];
        double ex = c1.x - c0.x, ey = c1.y - c0.y;
        int m = 0;
        pt_t prev = in[n - 1];
        double dp = ex * (prev.y - c0.y) - ey * (prev.x - c0.x);
        for (int i = 0; i < n; i++) {
            pt_t cur = in[i];
            double dc = ex * (cur.y - c0.y) - ey * (cur.x - c0.x);
            if (dc >= 0.0) {
                if (dp < 0.0) {
                    double k = dp / (dp - dc);
                    out[m].x = prev.x + k * (cur.x - prev.x);
                    out[m].y = prev.y + k * (cur.y - prev.y);
                    m++;
                }
                out[m++] = cur;
            } else if (dp >= 0.0) {
                double k = dp / (dp - dc);
                out[m].x = prev.x + k * (cur.x - prev.x);
                out[m].y = prev.y + k * (cur.y - prev.y);
                m++;
            }
            prev = cur;
            dp = dc;
        }
        pt_t *tmp = in;
        in = out;
        out = tmp;
        n = m;
    }
    return n >= 3 ? signed_area(in, n) : 0.0;
}

/* Build the fan triangles (o, v[i], v[i+1]) of a polygon, translated so that o
   is the origin and stored counter-clockwise; sign[] keeps their original
   orientation and bb[] their bounding boxes (xmin, ymin, xmax, ymax). */
static int build_fan(const poly_t *p, pt_t o, pt_t *tri, double *sign, double *bb)
{
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        pt_t a = {p->v[i].x - o.x, p->v[i].y - o.y};
        pt_t b = {p->v[(i + 1) % p->n].x - o.x, p->v[(i + 1) % p->n].y - o.y};
        double cr = a.x * b.y - a.y * b.x;
        if (cr == 0.0)
            continue;
        pt_t z = {0.0, 0.0};
        tri[3 * k] = z;
        if (cr > 0.0) {
            tri[3 * k + 1] = a;
            tri[3 * k + 2] = b;
            sign[k] = 1.0;
        } else {
            tri[3 * k + 1] = b;
            tri[3 * k + 2] = a;
            sign[k] = -1.0;
        }
        bb[4 * k] = fmin(0.0, fmin(a.x, b.x));
        bb[4 * k + 1] = fmin(0.0, fmin(a.y, b.y));
        bb[4 * k + 2] = fmax(0.0, fmax(a.x, b.x));
        bb[4 * k + 3] = fmax(0.0, fmax(a.y, b.y));
        k++;
    }
    return k;
}

static double fan_area(const poly_t *p, const poly_t *q, scratch_t *s)
{
    int need = p->n + q->n;
    if (need > s->tcap) {
        s->tcap = need;
        s->tri = realloc(s->tri, (size_t)need * (3 * sizeof(pt_t) + sizeof(double) + 4 * sizeof(double)));
    }
    pt_t *tp = s->tri, *tq = tp + 3 * (size_t)p->n;
    double *sp = (double *)(tq + 3 * (size_t)q->n), *sq = sp + p->n;
    double *bp = sq + q->n, *bq = bp + 4 * (size_t)p->n;

    /* common apex: centre of p's bounding box */
    double x0 = p->v[0].x, x1 = x0, y0 = p->v[0].y, y1 = y0;
    for (int i = 1; i < p->n; i++) {
        x0 = fmin(x0, p->v[i].x);
        x1 = fmax(x1, p->v[i].x);
        y0 = fmin(y0, p->v[i].y);
        y1 = fmax(y1, p->v[i].y);
    }
    pt_t o = {0.5 * (x0 + x1), 0.5 * (y0 + y1)};
    int np = build_fan(p, o, tp, sp, bp);
    int nq = build_fan(q, o, tq, sq, bq);

    double total = 0.0;
    for (int i = 0; i < np; i++) {
        const double *bi = bp + 4 * i;
        double acc = 0.0;
        for (int j = 0; j < nq; j++) {
            const double *bj = bq + 4 * j;
            if (bj[0] >= bi[2] || bj[2] <= bi[0] || bj[1] >= bi[3] || bj[3] <= bi[1])
                continue;
            acc += sq[j] * tri_tri_area(tp + 3 * i, tq + 3 * j);
        }
        total += sp[i] * acc;
    }
    return fabs(total);
}

static void bbox(const poly_t *p, double *b)
{
    b[0] = b[2] = p->v[0].x;
    b[1] = b[3] = p->v[0].y;
    for (int i = 1; i < p->n; i++) {
        b[0] = fmin(b[0], p->v[i].x);
        b[2] = fmax(b[2], p->v[i].x);
        b[1] = fmin(b[1], p->v[i].y);
        b[3] = fmax(b[3], p->v[i].y);
    }
}

/* intersection area of two polygons; *method says how it was found */
static double intersection(const poly_t *p, const poly_t *q, scratch_t *s, int *method)
{
    double bp[4], bq[4];
    bbox(p, bp);
    bbox(q, bq);
    if (bq[0] >= bp[2] || bq[2] <= bp[0] || bq[1] >= bp[3] || bq[3] <= bp[1]) {
        *method = 0;
        return 0.0;
    }
    double inter;
    if (q->convex) {
        inter = sh_clip_area(p, q, s);
        *method = 1;
    } else if (p->convex) {
        inter = sh_clip_area(q, p, s);
        *method = 1;
    } else {
        inter = fan_area(p, q, s);
        *method = 2;
    }
    double lim = fmin(p->area, q->area);
    return inter > lim ? lim : inter;
}

static double iou_of(double inter, double a, double b)
{
    double uni = a + b - inter;
    return uni > 0.0 ? inter / uni : 0.0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        usage(argv[0]);
        return 2;
    }
    double min_iou = 0.5;
    int steps = 3;
    char *end;
    if (argc > 2) {
        long v = strtol(argv[2], &end, 10);
        if (*end || v < 0 || v > 50) {
            usage(argv[0]);
            return 2;
        }
        steps = (int)v;
    }
    if (argc > 3) {
        min_iou = strtod(argv[3], &end);
        if (*end || !(min_iou >= 0.0 && min_iou <= 1.0)) {
            usage(argv[0]);
            return 2;
        }
    }

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "poly_clip: cannot open '%s'\n", argv[1]);
        return 1;
    }
    char line[256];
    int lineno = 0, npairs = 0;
    char extra;
    if (!next_line(f, line, sizeof line, &lineno) ||
        sscanf(line, "pairs %d %c", &npairs, &extra) != 1 || npairs < 1 || npairs > 10000000) {
        fprintf(stderr, "poly_clip: %s:%d: expected header \"pairs N\"\n", argv[1], lineno);
        fclose(f);
        return 1;
    }
    poly_t *A = calloc((size_t)npairs, sizeof(poly_t));
    poly_t *B = calloc((size_t)npairs, sizeof(poly_t));
    result_t *res = calloc((size_t)npairs, sizeof(result_t));
    if (!A || !B || !res) {
        fprintf(stderr, "poly_clip: out of memory\n");
        return 1;
    }
    long total_verts = 0;
    for (int i = 0; i < npairs; i++) {
        if (!read_polygon(f, &A[i], &lineno, argv[1]) || !read_polygon(f, &B[i], &lineno, argv[1])) {
            fclose(f);
            return 1;
        }
        total_verts += A[i].n + B[i].n;
    }
    fclose(f);

    #pragma omp parallel
    {
        scratch_t s = {NULL, NULL, 0, NULL, 0, {0, NULL, 0.0, 0}, 0};
        #pragma omp for
        for (int i = 0; i < npairs; i++) {
            const poly_t *p = &A[i], *q = &B[i];
            int method;
            double inter = intersection(p, q, &s, &method);
            res[i].inter = inter;
            res[i].method = method;
            res[i].iou = iou_of(inter, p->area, q->area);

            /* registration: best IoU over a grid of shifts of the second polygon */
            if (q->n > s.mcap) {
                s.mcap = q->n;
                s.moved.v = realloc(s.moved.v, (size_t)q->n * sizeof(pt_t));
            }
            s.moved.n = q->n;
            s.moved.area = q->area;
            s.moved.convex = q->convex;
            double h = 0.04 * sqrt(fmax(p->area, q->area));
            res[i].best_iou = res[i].iou;
            res[i].best_kx = res[i].best_ky = 0;
            for (int ky = -steps; ky <= steps; ky++) {
                for (int kx = -steps; kx <= steps; kx++) {
                    if (kx == 0 && ky == 0)
                        continue;
                    for (int k = 0; k < q->n; k++) {
                        s.moved.v[k].x = q->v[k].x + kx * h;
                        s.moved.v[k].y = q->v[k].y + ky * h;
                    }
                    int m;
                    double iou = iou_of(intersection(p, &s.moved, &s, &m), p->area, q->area);
                    if (iou > res[i].best_iou) {
                        res[i].best_iou = iou;
                        res[i].best_kx = kx;
                        res[i].best_ky = ky;
                    }
                }
            }
        }
        free(s.a);
        free(s.b);
        free(s.tri);
        free(s.moved.v);
    }

    /* ---- report ---- */
    int nconvex = 0, by_method[3] = {0, 0, 0}, disjoint = 0, contained = 0, above = 0;
    int hist[HIST_BINS] = {0}, hist_best[HIST_BINS] = {0}, improved = 0;
    double sum_iou = 0.0, sum_inter = 0.0, sum_iou_overlap = 0.0, sum_best = 0.0;
    int noverlap = 0;
    for (int i = 0; i < npairs; i++) {
        nconvex += A[i].convex + B[i].convex;
        by_method[res[i].method]++;
        double iou = res[i].iou;
        sum_iou += iou;
        sum_inter += res[i].inter;
        if (res[i].inter <= 1e-9 * (A[i].area + B[i].area)) {
            disjoint++;
        } else {
            noverlap++;
            sum_iou_overlap += iou;
            if (res[i].inter >= (1.0 - 1e-6) * fmin(A[i].area, B[i].area))
                contained++;
        }
        if (iou >= min_iou)
            above++;
        int b = (int)(iou * HIST_BINS);
        hist[b < HIST_BINS ? b : HIST_BINS - 1]++;
        sum_best += res[i].best_iou;
        if (res[i].best_iou >= iou + 0.05)
            improved++;
        b = (int)(res[i].best_iou * HIST_BINS);
        hist_best[b < HIST_BINS ? b : HIST_BINS - 1]++;
    }
    int top[TOP_OVERLAPS], ntop = 0;
    for (int i = 0; i < npairs; i++) {
        /* insertion into a short list sorted by intersection area, ties by index */
        int pos = ntop;
        while (pos > 0 && res[top[pos - 1]].inter < res[i].inter)
            pos--;
        if (pos >= TOP_OVERLAPS)
            continue;
        if (ntop < TOP_OVERLAPS)
            ntop++;
        for (int k = ntop - 1; k > pos; k--)
            top[k] = top[k - 1];
        top[pos] = i;
    }

    printf("file %s: %d polygon pairs, %ld vertices, %d of %d polygons convex\n", argv[1],
           npairs, total_verts, nconvex, 2 * npairs);
    printf("method: %d bounding boxes apart, %d Sutherland-Hodgman, %d triangle fans\n",
           by_method[0], by_method[1], by_method[2]);
    printf("overlapping pairs: %d (%d fully contained), disjoint: %d\n", noverlap, contained,
           disjoint);
    printf("total intersection area %.1f\n", sum_inter);
    printf("mean IoU %.4f over all pairs, %.4f over overlapping pairs; %d pairs with IoU >= %.2f\n",
           sum_iou / npairs, noverlap ? sum_iou_overlap / noverlap : 0.0, above, min_iou);
    printf("after shift search (%dx%d offsets, step 4%% of size): mean IoU %.4f, "
           "%d pairs gain >= 0.05\n", 2 * steps + 1, 2 * steps + 1, sum_best / npairs, improved);
    printf("largest overlaps:\n");
    printf("  pair  verts A  verts B     area A     area B  intersection     IoU  best IoU  shift\n");
    for (int k = 0; k < ntop; k++) {
        int i = top[k];
        printf("  %4d  %7d  %7d  %9.1f  %9.1f  %12.1f  %.4f    %.4f  %+d,%+d\n", i + 1, A[i].n,
               B[i].n, A[i].area, B[i].area, res[i].inter, res[i].iou, res[i].best_iou,
               res[i].best_kx, res[i].best_ky);
    }
    printf("IoU histogram (as given | after shift search):\n");
    int hmax = 1;
    for (int b = 0; b < HIST_BINS; b++) {
        if (hist[b] > hmax)
            hmax = hist[b];
        if (hist_best[b] > hmax)
            hmax = hist_best[b];
    }
    for (int b = 0; b < HIST_BINS; b++) {
        char bar[31], bar2[31];
        int len = (int)(30.0 * hist[b] / hmax + 0.5), len2 = (int)(30.0 * hist_best[b] / hmax + 0.5);
        memset(bar, '*', (size_t)len);
        bar[len] = '\0';
        memset(bar2, '*', (size_t)len2);
        bar2[len2] = '\0';
        printf("  [%.1f, %.1f%c %5d %-30s | %5d %s\n", (double)b / HIST_BINS,
               (double)(b + 1) / HIST_BINS, b == HIST_BINS - 1 ? ']' : ')', hist[b], bar,
               hist_best[b], bar2);
    }

    for (int i = 0; i < npairs; i++) {
        free(A[i].v);
        free(B[i].v);
    }
    free(A);
    free(B);
    free(res);
    return 0;
}
