/*
 * elevator_sim: discrete-event simulation of elevator groups.
 *
 *   usage: elevator_sim BUILDINGS.txt
 *
 * Each line of BUILDINGS.txt describes one building:
 *   name floors cars capacity floor_time pattern policy population
 * pattern: office | residential | hotel | hospital (shape of the day's traffic)
 * policy:  nearest | zoned | roundrobin | leastload (hall call dispatching)
 *
 * For every building a day (07:00-19:00) of passenger arrivals is drawn
 * from a non-homogeneous Poisson process (by thinning) with a random
 * generator seeded from the building's name, and the elevator group is
 * simulated event by event (passenger arrivals, cars reaching a floor,
 * doors closing).  Cars run a collective (sweep) control over the hall
 * calls the dispatcher assigned to them and the car calls of the people
 * inside.  Buildings are simulated in parallel, one building per
 * iteration; the summary is assembled in input order.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY_START (7 * 3600.0)
#define DAY_END (19 * 3600.0)
#define HARD_STOP (23 * 3600.0)        /* nobody is served after this */
#define DOOR_TIME 4.0                  /* open + close, seconds */
#define TRANSFER_TIME 1.1              /* per passenger entering or leaving */
#define HIST_BINS 3600                 /* 1 s bins for waiting times */
#define HELP_AFTER 30.0                /* idle cars go to calls older than this */

enum { P_OFFICE, P_RESIDENTIAL, P_HOTEL, P_HOSPITAL, NPATTERN };
enum { D_NEAREST, D_ZONED, D_ROUNDROBIN, D_LEASTLOAD, NPOLICY };
static const char *pattern_name[NPATTERN] = {"office", "residential", "hotel", "hospital"};
static const char *policy_name[NPOLICY] = {"nearest", "zoned", "roundrobin", "leastload"};

typedef struct {
    char name[32];
    int floors, cars, capacity, pattern, policy, population;
    double floor_time;
} Building;

typedef struct {
    long arrived, served;
    double sum_wait, sum_trip, max_wait, p95_wait;
    int *hist;                 /* HIST_BINS counts */
} Result;

/* ------------------------------------------------------------ errors */

static void die(const char *msg, const char *arg)
{
    fprintf(stderr, "elevator_sim: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory", NULL);
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) die("out of memory", NULL);
    return p;
}

/* ------------------------------------------------------------- RNG */

typedef struct { uint64_t s; } Rng;

static uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double rng_unif(Rng *r) { return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0); }
static int rng_int(Rng *r, int n) { return (int)((rng_next(r) >> 33) % (uint64_t)n); }

/* ----------------------------------------------------- traffic model */

enum { T_UP, T_DOWN, T_INTER };      /* from lobby, to lobby, between floors */

typedef struct { int type; double weight, mu, sigma; } Component;   /* sigma 0 = uniform */

static int components(int pattern, Component *c)
{
    const double h = 3600.0;
    switch (pattern) {
    case P_OFFICE:
        c[0] = (Component){T_UP, 1.0, 8.5 * h, 0.5 * h};
        c[1] = (Component){T_DOWN, 0.5, 12.0 * h, 0.33 * h};
        c[2] = (Component){T_UP, 0.5, 13.0 * h, 0.33 * h};
        c[3] = (Component){T_DOWN, 1.0, 17.5 * h, 0.66 * h};
        c[4] = (Component){T_INTER, 0.6, 0, 0};
        return 5;
    case P_RESIDENTIAL:
        c[0] = (Component){T_DOWN, 0.8, 8.0 * h, 0.75 * h};
        c[1] = (Component){T_UP, 0.8, 18.0 * h, 1.0 * h};
        c[2] = (Component){T_DOWN, 0.3, 11.0 * h, 1.5 * h};
        c[3] = (Component){T_UP, 0.3, 12.5 * h, 1.5 * h};
        c[4] = (Component){T_INTER, 0.2, 0, 0};
        return 5;
    case P_HOTEL:
        c[0] = (Component){T_UP, 1.0, 0, 0};
        c[1] = (Component){T_DOWN, 1.0, 0, 0};
        c[2] = (Component){T_DOWN, 0.5, 9.0 * h, 1.0 * h};
        c[3] = (Component){T_INTER, 0.5, 0, 0};
        return 4;
    default: /* hospital */
        c[0] = (Component){T_INTER, 2.0, 0, 0};
        c[1] = (Component){T_UP, 0.7, 8.0 * h, 1.0 * h};
        c[2] = (Component){T_DOWN, 0.7, 16.0 * h, 1.0 * h};
        return 3;
    }
}

/* trips per second per person of one component at time t */
static double comp_rate(const Component *c, double t)
{
    if (c->sigma == 0.0) return c->weight / (DAY_END - DAY_START);
    double z = (t - c->mu) / c->sigma;
    return c->weight * exp(-0.5 * z * z) / (c->sigma * 2.5066282746310002);
}

static double comp_peak(const Component *c)
{
    if (c->sigma == 0.0) return c->weight / (DAY_END - DAY_START);
    return c->weight / (c->sigma * 2.5066282746310002);
}

/* ---------------------------------------------------------- events */

typedef struct { double t; long seq; int car; } Event;   /* car -1 = arrival */

typedef struct { Event *a; int n, cap; } Heap;

static int ev_less(const Event *x, const Event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void heap_push(Heap *h, Event e)
{
    if (h->n == h->cap) { h->cap = h->cap ? 2 * h->cap : 64; h->a = xrealloc(h->a, sizeof(Event) * h->cap); }
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ev_less(&e, &h->a[p])) break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
}

static Event heap_pop(Heap *h)
{
    Event top = h->a[0], last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        const Event *mv = &last;
        if (l < h->n && ev_less(&h->a[l], mv)) { m = l; mv = &h->a[l]; }
        if (r < h->n && ev_less(&h->a[r], mv)) { m = r; }
        if (m == i) break;
        h->a[i] = h->a[m];
        i = m;
    }
    if (h->n > 0) h->a[i] = last;
    return top;
}

/* ---------------------------------------------------------- building */

enum { IDLE, MOVING, DOORS };

typedef struct {
    int floor, dir, state, pending, load, ncalls;
    int target;                /* floor an otherwise idle car is heading to, or -1 */
    int *onboard;              /* passenger ids, capacity entries */
    int *car_call;             /* per floor: passengers inside going there */
} Car;

typedef struct {
    const Building *b;
    int F, C, cap;
    Car *car;
    int *qhead, *qtail;        /* [floor*2 + d]: FIFO of waiting passengers */
    int *hall;                 /* [floor*2 + d]: assigned car or -1 */
    /* passengers */
    double *arr;
    int *orig, *dest, *next;
    int np, pcap;
    Heap heap;
    long seq;
    double now;
    int rr;                    /* round robin pointer */
    /* statistics */
    double *waits;
    long served;
    double sum_wait, sum_trip, max_wait;
    double *board_time;
} Sim;

static int didx(int dir) { return dir > 0 ? 0 : 1; }

static void schedule(Sim *s, double t, int car)
{
    Event e = {t, s->seq++, car};
    heap_push(&s->heap, e);
}

static int has_ahead(const Sim *s, int c, int dir)
{
    const Car *k = &s->car[c];
    for (int f = k->floor + dir; f >= 0 && f < s->F; f += dir)
        if (k->car_call[f] || s->hall[2 * f] == c || s->hall[2 * f + 1] == c || f == k->target) return 1;
    return 0;
}

/* farthest requested floor of car c in direction dir (its own floor if none) */
static int extreme(const Sim *s, int c, int dir)
{
    const Car *k = &s->car[c];
    int ext = k->floor;
    for (int f = k->floor + dir; f >= 0 && f < s->F; f += dir)
        if (k->car_call[f] || s->hall[2 * f] == c || s->hall[2 * f + 1] == c || f == k->target) ext = f;
    return ext;
}

/* rough travel estimate (in floors) for car c to reach hall call (f, dir) */
static int eta_floors(const Sim *s, int c, int f, int dir)
{
    const Car *k = &s->car[c];
    if (k->dir == 0) return abs(k->floor - f);
    int ahead = (f - k->floor) * k->dir;
    if (k->dir == dir && (ahead > 0 || (ahead == 0 && k->state != MOVING))) return abs(f - k->floor);
    int ext = extreme(s, c, k->dir);
    return abs(ext - k->floor) + abs(ext - f);
}

static void assign_call(Sim *s, int f, int d, int exclude);

static void wake(Sim *s, int c)
{
    Car *k = &s->car[c];
    if (k->state == IDLE && !k->pending) {
        k->pending = 1;
        schedule(s, s->now, c);
    }
}

static int pick_nearest(const Sim *s, int f, int dir, int exclude)
{
    int best = -1, bc = 0;
    for (int c = 0; c < s->C; c++) {
        if (c == exclude) continue;
        int cost = 2 * eta_floors(s, c, f, dir) + s->car[c].ncalls + (s->car[c].load >= s->cap ? 20 : 0);
        if (best < 0 || cost < bc) { best = c; bc = cost; }
    }
    return best;
}

static void assign_call(Sim *s, int f, int d, int exclude)
{
    int dir = d == 0 ? 1 : -1, c = -1;
    if (s->C == 1) exclude = -1;
    switch (s->b->policy) {
    case D_NEAREST:
        c = pick_nearest(s, f, dir, exclude);
        break;
    case D_ZONED:
        if (f == 0) c = pick_nearest(s, f, dir, exclude);
        else {
            c = (int)((long)(f - 1) * s->C / (s->F - 1));
            if (c == exclude) c = pick_nearest(s, f, dir, exclude);
        }
        break;
    case D_ROUNDROBIN:
        c = s->rr % s->C;
        s->rr++;
        if (c == exclude) { c = s->rr % s->C; s->rr++; }
        break;
    default: { /* least loaded: fewest assigned calls + passengers, then nearest */
        long bc = 0;
        for (int k = 0; k < s->C; k++) {
            if (k == exclude) continue;
            long cost = 1000L * (s->car[k].ncalls + s->car[k].load) + eta_floors(s, k, f, dir);
            if (c < 0 || cost < bc) { c = k; bc = cost; }
        }
    }
    }
    s->hall[2 * f + d] = c;
    s->car[c].ncalls++;
    wake(s, c);
}

static void clear_call(Sim *s, int f, int d)
{
    int c = s->hall[2 * f + d];
    if (c >= 0) { s->car[c].ncalls--; s->hall[2 * f + d] = -1; }
}

static void move_car(Sim *s, int c, int dir)
{
    Car *k = &s->car[c];
    k->dir = dir;
    k->state = MOVING;
    k->pending = 1;
    schedule(s, s->now + s->b->floor_time, c);
}

/* doors open at the car's floor, serving direction dir */
static void open_doors(Sim *s, int c, int dir)
{
    Car *k = &s->car[c];
    int f = k->floor, moved = 0, d = didx(dir);
    k->dir = dir;
    k->state = DOORS;
    /* people leaving */
    for (int i = 0; i < k->load;) {
        int p = k->onboard[i];
        if (s->dest[p] == f) {
            double trip = s->now - s->arr[p];
            s->sum_trip += trip;
            k->onboard[i] = k->onboard[--k->load];
            moved++;
        } else {
            i++;
        }
    }
    k->car_call[f] = 0;
    /* people entering */
    while (s->qhead[2 * f + d] >= 0 && k->load < s->cap) {
        int p = s->qhead[2 * f + d];
        s->qhead[2 * f + d] = s->next[p];
        if (s->qhead[2 * f + d] < 0) s->qtail[2 * f + d] = -1;
        double w = s->now - s->arr[p];
        s->waits[s->served++] = w;
        s->sum_wait += w;
        if (w > s->max_wait) s->max_wait = w;
        k->onboard[k->load++] = p;
        k->car_call[s->dest[p]]++;
        moved++;
    }
    if (s->qhead[2 * f + d] < 0) clear_call(s, f, d);
    else if (s->hall[2 * f + d] < 0 || s->hall[2 * f + d] == c) {
        clear_call(s, f, d);
        assign_call(s, f, d, c);     /* car is full: hand the call to another car */
    }
    k->pending = 1;
    schedule(s, s->now + DOOR_TIME + moved * TRANSFER_TIME, c);
}

static int waiting(const Sim *s, int f, int dir) { return s->qhead[2 * f + didx(dir)] >= 0; }

/* decide what to do next when doors have closed (or an idle car is woken) */
static void next_action(Sim *s, int c)
{
    Car *k = &s->car[c];
    int f = k->floor, d = k->dir, full = k->load >= s->cap;
    if (!full && d != 0 && waiting(s, f, d)) { open_doors(s, c, d); return; }
    if (!full && d == 0) {
        if (s->hall[2 * f] == c && waiting(s, f, 1)) { open_doors(s, c, 1); return; }
        if (s->hall[2 * f + 1] == c && waiting(s, f, -1)) { open_doors(s, c, -1); return; }
    }
    if (d != 0 && has_ahead(s, c, d)) { move_car(s, c, d); return; }
    if (d != 0 && has_ahead(s, c, -d)) { move_car(s, c, -d); return; }
    if (d == 0) {
        int up = has_ahead(s, c, 1), down = has_ahead(s, c, -1);
        if (up && down) {
            /* go towards the nearer request */
            int eu = f, ed = f;
            for (int g = f + 1; g < s->F; g++)
                if (k->car_call[g] || s->hall[2 * g] == c || s->hall[2 * g + 1] == c) { eu = g; break; }
            for (int g = f - 1; g >= 0; g--)
                if (k->car_call[g] || s->hall[2 * g] == c || s->hall[2 * g + 1] == c) { ed = g; break; }
            move_car(s, c, eu - f <= f - ed ? 1 : -1);
            return;
        }
        if (up) { move_car(s, c, 1); return; }
        if (down) { move_car(s, c, -1); return; }
    }
    if (!full) {
        if (waiting(s, f, 1)) { open_doors(s, c, 1); return; }
        if (waiting(s, f, -1)) { open_doors(s, c, -1); return; }
    }
    /* nothing to do: help out at the floor where someone has waited longest */
    int best = -1;
    for (int q = 0; q < 2 * s->F; q++)
        if (s->qhead[q] >= 0 && (best < 0 || s->arr[s->qhead[q]] < s->arr[s->qhead[best]])) best = q;
    if (!full && best >= 0 && s->now - s->arr[s->qhead[best]] > HELP_AFTER) {
        k->target = best / 2;
        move_car(s, c, k->target > f ? 1 : -1);
        return;
    }
    k->state = IDLE;
    k->dir = 0;
}

static void car_arrives(Sim *s, int c)
{
    Car *k = &s->car[c];
    k->floor += k->dir;
    int f = k->floor, d = k->dir, full = k->load >= s->cap;
    if (f == k->target) {
        k->target = -1;
        if (!full && waiting(s, f, d)) { open_doors(s, c, d); return; }
        if (!full && waiting(s, f, -d)) { open_doors(s, c, -d); return; }
    }
    int ahead = has_ahead(s, c, d);
    if (k->car_call[f] || (!full && (s->hall[2 * f + didx(d)] == c || waiting(s, f, d)))) {
        open_doors(s, c, d);
        return;
    }
    if (!ahead && !full && (s->hall[2 * f + didx(-d)] == c || waiting(s, f, -d))) {
        open_doors(s, c, -d);
        return;
    }
    if (ahead) { move_car(s, c, d); return; }
    next_action(s, c);
}

static void add_passenger(Sim *s, Rng *r, int type)
{
    int F = s->F, o, t;
    if (type == T_INTER && F < 3) type = rng_int(r, 2) ? T_UP : T_DOWN;
    if (type == T_UP) { o = 0; t = 1 + rng_int(r, F - 1); }
    else if (type == T_DOWN) { o = 1 + rng_int(r, F - 1); t = 0; }
    else {
        o = 1 + rng_int(r, F - 1);
        t = 1 + rng_int(r, F - 2);
        if (t >= o) t++;
    }
    if (s->np == s->pcap) {
        s->pcap *= 2;
        s->arr = xrealloc(s->arr, sizeof(double) * s->pcap);
        s->orig = xrealloc(s->orig, sizeof(int) * s->pcap);
        s->dest = xrealloc(s->dest, sizeof(int) * s->pcap);
        s->next = xrealloc(s->next, sizeof(int) * s->pcap);
        s->waits = xrealloc(s->waits, sizeof(double) * s->pcap);
    }
    int p = s->np++;
    s->arr[p] = s->now; s->orig[p] = o; s->dest[p] = t; s->next[p] = -1;
    int q = 2 * o + (t > o ? 0 : 1);
    if (s->qtail[q] >= 0) s->next[s->qtail[q]] = p; else s->qhead[q] = p;
    s->qtail[q] = p;
    if (s->hall[q] < 0) assign_call(s, o, q & 1, -1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void simulate(const Building *b, Result *res)
{
    Sim s;
    memset(&s, 0, sizeof s);
    s.b = b; s.F = b->floors; s.C = b->cars; s.cap = b->capacity;
    s.car = xmalloc(sizeof(Car) * s.C);
    for (int c = 0; c < s.C; c++) {
        Car *k = &s.car[c];
        memset(k, 0, sizeof *k);
        k->target = -1;
        k->floor = (int)((long)c * s.F / s.C);     /* cars start spread out */
        k->onboard = xmalloc(sizeof(int) * s.cap);
        k->car_call = calloc(s.F, sizeof(int));
        if (!k->car_call) die("out of memory", NULL);
    }
    s.qhead = xmalloc(sizeof(int) * 2 * s.F);
    s.qtail = xmalloc(sizeof(int) * 2 * s.F);
    s.hall = xmalloc(sizeof(int) * 2 * s.F);
    for (int i = 0; i < 2 * s.F; i++) s.qhead[i] = s.qtail[i] = s.hall[i] = -1;
    s.pcap = 1024;
    s.arr = xmalloc(sizeof(double) * s.pcap);
    s.orig = xmalloc(sizeof(int) * s.pcap);
    s.dest = xmalloc(sizeof(int) * s.pcap);
    s.next = xmalloc(sizeof(int) * s.pcap);
    s.waits = xmalloc(sizeof(double) * s.pcap);

    Rng r = {0x243f6a8885a308d3ULL};
    for (const char *c = b->name; *c; c++) r.s = (r.s ^ (unsigned char)*c) * 0x100000001b3ULL;
    Component comp[8];
    int nc = components(b->pattern, comp);
    double peak = 0.0;
    for (int i = 0; i < nc; i++) peak += comp_peak(&comp[i]);
    double lam_max = peak * b->population;

    double t_arr = DAY_START;
    /* first candidate arrival */
    t_arr += -log(1.0 - rng_unif(&r)) / lam_max;
    if (t_arr < DAY_END) schedule(&s, t_arr, -1);

    while (s.heap.n > 0) {
        Event e = heap_pop(&s.heap);
        if (e.t > HARD_STOP) break;
        s.now = e.t;
        if (e.car < 0) {
            /* thinning: accept the candidate with probability rate/lam_max */
            double rates[8], tot = 0.0;
            for (int i = 0; i < nc; i++) { rates[i] = comp_rate(&comp[i], s.now); tot += rates[i]; }
            double u = rng_unif(&r) * peak;
            if (u < tot) {
                int i = 0;
                while (i < nc - 1 && u >= rates[i]) { u -= rates[i]; i++; }
                add_passenger(&s, &r, comp[i].type);
            }
            double nt = s.now - log(1.0 - rng_unif(&r)) / lam_max;
            if (nt < DAY_END) schedule(&s, nt, -1);
            continue;
        }
        Car *k = &s.car[e.car];
        k->pending = 0;
        if (k->state == MOVING) car_arrives(&s, e.car);
        else next_action(&s, e.car);
    }

    res->arrived = s.np;
    res->served = s.served;
    res->sum_wait = s.sum_wait;
    res->sum_trip = s.sum_trip;
    res->max_wait = s.max_wait;
    res->hist = calloc(HIST_BINS, sizeof(int));
    if (!res->hist) die("out of memory", NULL);
    for (long i = 0; i < s.served; i++) {
        long bin = (long)s.waits[i];
        res->hist[bin < HIST_BINS ? bin : HIST_BINS - 1]++;
    }
    if (s.served) {
        qsort(s.waits, s.served, sizeof(double), cmp_double);
        res->p95_wait = s.waits[(long)(0.95 * (s.served - 1))];
    }
    for (int c = 0; c < s.C; c++) { free(s.car[c].onboard); free(s.car[c].car_call); }
    free(s.car); free(s.qhead); free(s.qtail); free(s.hall);
    free(s.arr); free(s.orig); free(s.dest); free(s.next); free(s.waits);
    free(s.heap.a);
}

/* ------------------------------------------------------------- input */

static int lookup(const char *w, const char **names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(w, names[i]) == 0) return i;
    return -1;
}

static Building *read_buildings(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open", path);
    int n = 0, cap = 64, lineno = 0;
    Building *b = xmalloc(sizeof(Building) * cap);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char name[64], pat[32], pol[32], extra[8];
        int floors, cars, capacity, population;
        double ft;
        int k = sscanf(line, "%63s %d %d %d %lf %31s %31s %d %7s", name, &floors, &cars, &capacity,
                       &ft, pat, pol, &population, extra);
        if (k <= 0) continue;
        int ip = lookup(pat, pattern_name, NPATTERN), iq = lookup(pol, policy_name, NPOLICY);
        if (k != 8 || strlen(name) >= sizeof b->name || floors < 2 || floors > 200 || cars < 1 || cars > 64 ||
            capacity < 1 || capacity > 100 || !(ft > 0.1 && ft < 60.0) || population < 0 ||
            population > 1000000 || ip < 0 || iq < 0) {
            fprintf(stderr, "elevator_sim: %s:%d: malformed building line\n", path, lineno);
            exit(1);
        }
        if (n == cap) { cap *= 2; b = xrealloc(b, sizeof(Building) * cap); }
        Building *x = &b[n++];
        strcpy(x->name, name);
        x->floors = floors; x->cars = cars; x->capacity = capacity; x->floor_time = ft;
        x->pattern = ip; x->policy = iq; x->population = population;
    }
    fclose(f);
    if (n == 0) die("no buildings in", path);
    *count = n;
    return b;
}

/* ------------------------------------------------------------ report */

typedef struct { double mean; int idx; } Rank;

static int cmp_rank(const void *a, const void *b)
{
    const Rank *x = a, *y = b;
    if (x->mean != y->mean) return x->mean > y->mean ? -1 : 1;
    return x->idx - y->idx;
}

static int hist_percentile(const long *h, long total, double q)
{
    long need = (long)ceil(q * total), acc = 0;
    for (int i = 0; i < HIST_BINS; i++) {
        acc += h[i];
        if (acc >= need && need > 0) return i + 1;
    }
    return HIST_BINS;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s BUILDINGS.txt\n", argv[0]);
        return 2;
    }
    int nb;
    Building *b = read_buildings(argv[1], &nb);
    Result *res = xmalloc(sizeof(Result) * nb);
    memset(res, 0, sizeof(Result) * nb);

    #pragma omp parallel for
    for (int i = 0; i < nb; i++)
        simulate(&b[i], &res[i]);

    long arrived = 0, served = 0;
    long pol_n[NPOLICY] = {0}, pol_b[NPOLICY] = {0};
    double pol_wait[NPOLICY] = {0}, pol_trip[NPOLICY] = {0};
    long *pol_hist = calloc((size_t)NPOLICY * HIST_BINS, sizeof(long));
    if (!pol_hist) die("out of memory", NULL);
    Rank *rk = xmalloc(sizeof(Rank) * nb);
    for (int i = 0; i < nb; i++) {
        int p = b[i].policy;
        arrived += res[i].arrived;
        served += res[i].served;
        pol_b[p]++;
        pol_n[p] += res[i].served;
        pol_wait[p] += res[i].sum_wait;
        pol_trip[p] += res[i].sum_trip;
        for (int k = 0; k < HIST_BINS; k++) pol_hist[(size_t)p * HIST_BINS + k] += res[i].hist[k];
        rk[i].mean = res[i].served ? res[i].sum_wait / res[i].served : 0.0;
        rk[i].idx = i;
    }
    qsort(rk, nb, sizeof(Rank), cmp_rank);

    printf("buildings: %d, passengers arrived: %ld, served: %ld, still waiting at 23:00: %ld\n",
           nb, arrived, served, arrived - served);
    printf("%-11s %9s %11s %10s %9s %10s\n", "policy", "buildings", "passengers", "mean wait", "p95 wait",
           "mean trip");
    for (int p = 0; p < NPOLICY; p++) {
        if (!pol_b[p]) continue;
        printf("%-11s %9ld %11ld %9.1fs %8ds %9.1fs\n", policy_name[p], pol_b[p], pol_n[p],
               pol_n[p] ? pol_wait[p] / pol_n[p] : 0.0,
               hist_percentile(pol_hist + (size_t)p * HIST_BINS, pol_n[p], 0.95),
               pol_n[p] ? pol_trip[p] / pol_n[p] : 0.0);
    }
    printf("worst 10 buildings by mean wait:\n");
    printf("  %-9s %6s %4s %4s %-11s %-10s %7s %8s %8s %8s\n", "name", "floors", "cars", "cap", "pattern",
           "policy", "served", "mean", "p95", "max");
    for (int k = 0; k < 10 && k < nb; k++) {
        int i = rk[k].idx;
        printf("  %-9s %6d %4d %4d %-11s %-10s %7ld %7.1fs %7.1fs %7.1fs\n", b[i].name, b[i].floors,
               b[i].cars, b[i].capacity, pattern_name[b[i].pattern], policy_name[b[i].policy],
               res[i].served, rk[k].mean, res[i].p95_wait, res[i].max_wait);
    }
    for (int i = 0; i < nb; i++) free(res[i].hist);
    free(res); free(b); free(pol_hist); free(rk);
    return 0;
}
