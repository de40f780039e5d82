/*
 * barnes_hut: 2-D gravitational N-body simulation with a Barnes-Hut quadtree.
 *
 * usage: barnes_hut BODIES_FILE THETA STEPS
 *
 * BODIES_FILE: the number of bodies, then one body per line "x y vx vy m"
 * ('#' lines are comments).  Units have G = 1.  The quadtree is rebuilt every
 * step; a tree cell of size s seen from distance d is used as a single
 * point mass when s / d < THETA.  Time integration is leapfrog
 * (kick-drift-kick) with a fixed step DT and Plummer softening EPS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <errno.h>

#define DT 0.005
#define EPS 0.01
#define LEAF_CAP 8
#define MAX_DEPTH 48

typedef struct {
    double x, y, vx, vy, m;
    double ax, ay, pot;
} Body;

typedef struct {
    double cx, cy, half;   /* square cell: centre and half width */
    double mass, mx, my;   /* total mass and centre of mass */
    int child[4];          /* -1 when absent; all -1 for a leaf */
    int first, count;      /* leaf: body list (via next[]) */
    int depth;
} Node;

typedef struct {
    Node *nodes;
    int nnodes, cap;
    int *next;             /* next body in the same leaf, -1 at the end */
} Tree;

static int new_node(Tree *t, double cx, double cy, double half, int depth)
{
    if (t->nnodes == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->nodes = realloc(t->nodes, sizeof(Node) * (size_t)t->cap);
        if (!t->nodes) { fprintf(stderr, "barnes_hut: out of memory\n"); exit(1); }
    }
    Node *n = &t->nodes[t->nnodes];
    n->cx = cx; n->cy = cy; n->half = half;
    n->mass = n->mx = n->my = 0.0;
    n->child[0] = n->child[1] = n->child[2] = n->child[3] = -1;
    n->first = -1; n->count = 0;
    n->depth = depth;
    return t->nnodes++;
}

static int quadrant(const Node *n, double x, double y)
{
    return (x >= n->cx ? 1 : 0) + (y >= n->cy ? 2 : 0);
}

static int child_for(Tree *t, int ni, int q)
{
    if (t->nodes[ni].child[q] < 0) {
        Node *n = &t->nodes[ni];
        double h = n->half * 0.5;
        double cx = n->cx + ((q & 1) ? h : -h);
        double cy = n->cy + ((q & 2) ? h : -h);
        int depth = n->depth + 1;
        int c = new_node(t, cx, cy, h, depth);   /* may move t->nodes */
        t->nodes[ni].child[q] = c;
    }
    return t->nodes[ni].child[q];
}

static void insert(Tree *t, const Body *b, int bi)
{
    int ni = 0;
    for (;;) {
        Node *n = &t->nodes[ni];
        int is_leaf = n->child[0] < 0 && n->child[1] < 0 && n->child[2] < 0 && n->child[3] < 0;
        if (is_leaf && (n->count < LEAF_CAP || n->depth >= MAX_DEPTH)) {
            t->next[bi] = n->first;
            n->first = bi;
            n->count++;
            return;
        }
        if (is_leaf) {
            /* split: push the bodies held here down one level */
            int list = n->first;
            n->first = -1;
            n->count = 0;
            while (list >= 0) {
                int nx = t->next[list];
                int q = quadrant(&t->nodes[ni], b[list].x, b[list].y);
                int c = child_for(t, ni, q);
                Node *cn = &t->nodes[c];
                t->next[list] = cn->first;
                cn->first = list;
                cn->count++;
                list = nx;
            }
        }
        int q = quadrant(&t->nodes[ni], b[bi].x, b[bi].y);
        ni = child_for(t, ni, q);
    }
}

/* Post-order pass for masses and centres of mass.  Children always have
 * larger indices than their parent, so a reverse sweep is enough. */
static void summarise(Tree *t, const Body *b)
{
    for (int i = t->nnodes - 1; i >= 0; i--) {
        Node *n = &t->nodes[i];
        double m = 0.0, mx = 0.0, my = 0.0;
        if (n->first >= 0) {
            for (int j = n->first; j >= 0; j = t->next[j]) {
                m += b[j].m;
                mx += b[j].m * b[j].x;
                my += b[j].m * b[j].y;
            }
        }
        for (int q = 0; q < 4; q++) {
            int c = n->child[q];
            if (c < 0) continue;
            m += t->nodes[c].mass;
            mx += t->nodes[c].mass * t->nodes[c].mx;
            my += t->nodes[c].mass * t->nodes[c].my;
        }
        n->mass = m;
        n->mx = m > 0 ? mx / m : n->cx;
        n->my = m > 0 ? my / m : n->cy;
    }
}

static void build_tree(Tree *t, const Body *b, int n)
{
    double x0 = b[0].x, x1 = b[0].x, y0 = b[0].y, y1 = b[0].y;
    for (int i = 1; i < n; i++) {
        if (b[i].x < x0) x0 = b[i].x;
        if (b[i].x > x1) x1 = b[i].x;
        if (b[i].y < y0) y0 = b[i].y;
        if (b[i].y > y1) y1 = b[i].y;
    }
    double half = 0.5 * fmax(x1 - x0, y1 - y0) * 1.0001 + 1e-9;
    t->nnodes = 0;
    new_node(t, 0.5 * (x0 + x1), 0.5 * (y0 + y1), half, 0);
    for (int i = 0; i < n; i++) insert(t, b, i);
    summarise(t, b);
}

/* Acceleration and potential on body i from the whole tree. */
static void tree_force(const Tree *t, const Body *b, int i, double theta2)
{
    int stack[4 * MAX_DEPTH + 8];
    int sp = 0;
    double ax = 0.0, ay = 0.0, pot = 0.0;
    const double xi = b[i].x, yi = b[i].y, eps2 = EPS * EPS;
    stack[sp++] = 0;
    while (sp > 0) {
        const Node *n = &t->nodes[stack[--sp]];
        if (n->mass == 0.0) continue;
        double dx = n->mx - xi, dy = n->my - yi;
        double d2 = dx * dx + dy * dy;
        double size = 2.0 * n->half;
        if (size * size < theta2 * d2) {
            double r2 = d2 + eps2;
            double inv = 1.0 / sqrt(r2);
            double f = n->mass * inv * inv * inv;
            ax += f * dx;
            ay += f * dy;
            pot -= n->mass * inv;
            continue;
        }
        if (n->first >= 0) {
            for (int j = n->first; j >= 0; j = t->next[j]) {
                if (j == i) continue;
                double ex = b[j].x - xi, ey = b[j].y - yi;
                double r2 = ex * ex + ey * ey + eps2;
                double inv = 1.0 / sqrt(r2);
                double f = b[j].m * inv * inv * inv;
                ax += f * ex;
                ay += f * ey;
                pot -= b[j].m * inv;
            }
        }
        for (int q = 0; q < 4; q++)
            if (n->child[q] >= 0) stack[sp++] = n->child[q];
    }
    ((Body *)b)[i].ax = ax;
    ((Body *)b)[i].ay = ay;
    ((Body *)b)[i].pot = pot;
}

static void compute_forces(Tree *t, Body *b, int n, double theta)
{
    build_tree(t, b, n);
    double theta2 = theta * theta;
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        tree_force(t, b, i, theta2);
}

static void diagnostics(const Body *b, int n, double *ke, double *pe)
{
    double k = 0.0, p = 0.0;
    for (int i = 0; i < n; i++) {
        k += 0.5 * b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy);
        p += 0.5 * b[i].m * b[i].pot;
    }
    *ke = k;
    *pe = p;
}

static Body *read_bodies(const char *path, int *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "barnes_hut: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char line[512];
    int n = -1, got = 0, lineno = 0;
    Body *b = NULL;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '#' || *p == '\n' || *p == '\0') continue;
        if (n < 0) {
            if (sscanf(p, "%d", &n) != 1 || n < 2 || n > 50000000) {
                fprintf(stderr, "barnes_hut: %s:%d: bad body count\n", path, lineno);
                goto fail;
            }
            b = calloc((size_t)n, sizeof *b);
            if (!b) { fprintf(stderr, "barnes_hut: out of memory\n"); goto fail; }
            continue;
        }
        if (got >= n) {
            fprintf(stderr, "barnes_hut: %s:%d: more bodies than announced\n", path, lineno);
            goto fail;
        }
        Body *q = &b[got];
        if (sscanf(p, "%lf %lf %lf %lf %lf", &q->x, &q->y, &q->vx, &q->vy, &q->m) != 5 ||
            !isfinite(q->x) || !isfinite(q->y) || !isfinite(q->vx) || !isfinite(q->vy) ||
            !(q->m > 0.0 && isfinite(q->m))) {
            fprintf(stderr, "barnes_hut: %s:%d: malformed body line\n", path, lineno);
            goto fail;
        }
        got++;
    }
    if (ferror(f)) {
        fprintf(stderr, "barnes_hut: error reading %s\n", path);
        goto fail;
    }
    if (n < 0 || got != n) {
        fprintf(stderr, "barnes_hut: %s: expected %d bodies, found %d\n", path, n < 0 ? 0 : n, got);
        goto fail;
    }
    fclose(f);
    *n_out = n;
    return b;
fail:
    free(b);
    fclose(f);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s BODIES_FILE THETA STEPS\n", argv[0]);
        return 2;
    }
    char *e1, *e2;
    double theta = strtod(argv[2], &e1);
    long steps = strtol(argv[3], &e2, 10);
    if (*argv[2] == '\0' || *e1 != '\0' || !(theta > 0.0 && theta <= 2.0) ||
        *argv[3] == '\0' || *e2 != '\0' || steps < 1 || steps > 1000000) {
        fprintf(stderr, "usage: %s BODIES_FILE THETA STEPS   (0 < THETA <= 2, STEPS >= 1)\n", argv[0]);
        return 2;
    }
    int n;
    Body *b = read_bodies(argv[1], &n);
    if (!b) return 1;

    Tree t = {0};
    t.next = malloc(sizeof(int) * (size_t)n);

    compute_forces(&t, b, n, theta);
    double ke0, pe0;
    diagnostics(b, n, &ke0, &pe0);
    double mtot = 0.0;
    for (int i = 0; i < n; i++) mtot += b[i].m;

    printf("bodies: %d   total mass: %.4f   theta: %.2f   steps: %ld   dt: %g\n",
           n, mtot, theta, steps, DT);
    printf("initial tree: %d cells\n", t.nnodes);
    printf("step %5d  kinetic %.6e  potential %.6e  total %.6e\n", 0, ke0, pe0, ke0 + pe0);

    long report = steps >= 4 ? steps / 4 : 1;
    for (long s = 1; s <= steps; s++) {
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            b[i].vx += 0.5 * DT * b[i].ax;
            b[i].vy += 0.5 * DT * b[i].ay;
            b[i].x += DT * b[i].vx;
            b[i].y += DT * b[i].vy;
        }
        compute_forces(&t, b, n, theta);
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            b[i].vx += 0.5 * DT * b[i].ax;
            b[i].vy += 0.5 * DT * b[i].ay;
        }
        if (s % report == 0 || s == steps) {
            double ke, pe;
            diagnostics(b, n, &ke, &pe);
            printf("step %5ld  kinetic %.6e  potential %.6e  total %.6e\n", s, ke, pe, ke + pe);
        }
    }

    double ke, pe;
    diagnostics(b, n, &ke, &pe);
    printf("relative energy change: %.3e   virial ratio 2K/|W|: %.4f\n",
           (ke + pe - ke0 - pe0) / fabs(ke0 + pe0), 2.0 * ke / fabs(pe));

    double x0 = b[0].x, x1 = b[0].x, y0 = b[0].y, y1 = b[0].y;
    double mx = 0.0, my = 0.0, px = 0.0, py = 0.0;
    for (int i = 0; i < n; i++) {
        if (b[i].x < x0) x0 = b[i].x;
        if (b[i].x > x1) x1 = b[i].x;
        if (b[i].y < y0) y0 = b[i].y;
        if (b[i].y > y1) y1 = b[i].y;
        mx += b[i].m * b[i].x;
        my += b[i].m * b[i].y;
        px += b[i].m * b[i].vx;
        py += b[i].m * b[i].vy;
    }
    printf("bounding box: x [%.4f, %.4f]  y [%.4f, %.4f]\n", x0, x1, y0, y1);
    printf("centre of mass: (%.5f, %.5f)   momentum: (%.3e, %.3e)\n",
           mx / mtot, my / mtot, px, py);
    printf("final tree: %d cells\n", t.nnodes);

    free(t.nodes);
    free(t.next);
    free(b);
    return 0;
}
