/*
 * walksat - run WalkSAT (SKC variant) on a batch of 3-SAT instances.
 *
 * Usage: walksat <instances.cnf> <max_flips> <noise>
 *
 *   instances.cnf  "instances <K>" followed by K DIMACS-style instances, each
 *                  "c <name>", "p cnf <vars> <clauses>", then clause lines
 *                  "l1 l2 l3 0"
 *   max_flips      flip budget per instance
 *   noise          probability of a random walk step (e.g. 0.5)
 *
 * Each instance is searched with its own deterministic random stream, so
 * the outcome does not depend on the order in which instances are solved.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN 48
#define HARDEST 10

typedef struct {
    char name[NAME_LEN];
    int nvars;
    int nclauses;
    long first;      /* index of first clause in the global clause array */
} Instance;

typedef struct {
    int solved;
    long flips;      /* flips used (== budget when not solved) */
    int best_unsat;  /* fewest unsatisfied clauses seen */
    int verified;    /* solution re-checked from scratch */
} Result;

/* --------------------- xorshift-style RNG (splitmix64) ----------------- */
typedef struct { uint64_t s; } Rng;

static inline uint64_t rng_next(Rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint32_t rng_below(Rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* ------------------------------ input ---------------------------------- */
static int (*clauses)[3];   /* all literals of all instances */
static Instance *inst;
static int ninst;

static int parse_error(const char *path, long line, const char *what)
{
    fprintf(stderr, "walksat: %s:%ld: %s\n", path, line, what);
    return -1;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "walksat: cannot open '%s': %s\n", path, strerror(errno));
        return -1;
    }
    char buf[512];
    long line = 0;
    int rc = -1;
    if (!fgets(buf, sizeof buf, f) || sscanf(buf, "instances %d", &ninst) != 1 || ninst <= 0) {
        parse_error(path, 1, "expected \"instances <count>\"");
        goto out;
    }
    line = 1;
    inst = calloc((size_t)ninst, sizeof(Instance));
    long cap = 1 << 16, used = 0;
    clauses = malloc(sizeof(*clauses) * (size_t)cap);
    if (!inst || !clauses) {
        fprintf(stderr, "walksat: out of memory\n");
        exit(1);
    }
    int k = -1;          /* current instance */
    int pending = 0;     /* clauses still expected for instance k */
    char name[NAME_LEN] = "";
    while (fgets(buf, sizeof buf, f)) {
        line++;
        char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\n' || *p == '\0') continue;
        if (*p == 'c') {
            if (sscanf(p + 1, " %47s", name) != 1) name[0] = '\0';
            continue;
        }
        if (*p == 'p') {
            if (pending) { parse_error(path, line, "previous instance has too few clauses"); goto out; }
            int nv, nc;
            if (sscanf(p, "p cnf %d %d", &nv, &nc) != 2 || nv <= 0 || nc <= 0) {
                parse_error(path, line, "bad problem line");
                goto out;
            }
            if (++k >= ninst) { parse_error(path, line, "more instances than announced"); goto out; }
            inst[k].nvars = nv;
            inst[k].nclauses = nc;
            inst[k].first = used;
            if (name[0]) snprintf(inst[k].name, NAME_LEN, "%s", name);
            else snprintf(inst[k].name, NAME_LEN, "instance-%d", k);
            name[0] = '\0';
            pending = nc;
            continue;
        }
        if (k < 0 || pending == 0) { parse_error(path, line, "clause outside an instance"); goto out; }
        int a, b, c, z;
        if (sscanf(p, "%d %d %d %d", &a, &b, &c, &z) != 4 || z != 0) {
            parse_error(path, line, "expected a 3-literal clause terminated by 0");
            goto out;
        }
        int nv = inst[k].nvars;
        if (a == 0 || b == 0 || c == 0 || abs(a) > nv || abs(b) > nv || abs(c) > nv) {
            parse_error(path, line, "literal out of range");
            goto out;
        }
        if (used == cap) {
            cap *= 2;
            clauses = realloc(clauses, sizeof(*clauses) * (size_t)cap);
            if (!clauses) { fprintf(stderr, "walksat: out of memory\n"); exit(1); }
        }
        clauses[used][0] = a;
        clauses[used][1] = b;
        clauses[used][2] = c;
        used++;
        pending--;
    }
    if (pending || k != ninst - 1) {
        parse_error(path, line, "file ends before all instances are complete");
        goto out;
    }
    rc = 0;
out:
    fclose(f);
    return rc;
}

/* literal -> index: variable v (1-based) positive 2v, negative 2v+1 */
static inline int lit_index(int l) { return l > 0 ? 2 * l : 2 * (-l) + 1; }

static void solve(int k, long max_flips, uint32_t noise_thr, Result *res)
{
    const Instance *in = &inst[k];
    const int n = in->nvars, m = in->nclauses;
    int (*cl)[3] = clauses + in->first;

    int *occ_start = calloc((size_t)(2 * n + 3), sizeof(int));
    int *occ = malloc(sizeof(int) * (size_t)(3 * m));
    unsigned char *val = malloc((size_t)n + 1);
    int *numtrue = malloc(sizeof(int) * (size_t)m);
    int *falselist = malloc(sizeof(int) * (size_t)m);
    int *wherefalse = malloc(sizeof(int) * (size_t)m);
    if (!occ_start || !occ || !val || !numtrue || !falselist || !wherefalse) {
        fprintf(stderr, "walksat: out of memory\n");
        exit(1);
    }

    /* occurrence lists */
    for (int c = 0; c < m; c++)
        for (int j = 0; j < 3; j++)
            occ_start[lit_index(cl[c][j]) + 1]++;
    for (int i = 0; i < 2 * n + 2; i++)
        occ_start[i + 1] += occ_start[i];
    int *fill = malloc(sizeof(int) * (size_t)(2 * n + 2));
    memcpy(fill, occ_start, sizeof(int) * (size_t)(2 * n + 2));
    for (int c = 0; c < m; c++)
        for (int j = 0; j < 3; j++)
            occ[fill[lit_index(cl[c][j])]++] = c;
    free(fill);

    Rng rng = { 0x2545f4914f6cdd1dULL ^ ((uint64_t)(k + 1) * 0xd1342543de82ef95ULL) };
    for (int v = 1; v <= n; v++)
        val[v] = (unsigned char)(rng_next(&rng) & 1);

    int nfalse = 0;
    for (int c = 0; c < m; c++) {
        int t = 0;
        for (int j = 0; j < 3; j++) {
            int l = cl[c][j];
            t += (l > 0) == (val[abs(l)] != 0);
        }
        numtrue[c] = t;
        if (t == 0) {
            wherefalse[c] = nfalse;
            falselist[nfalse++] = c;
        }
    }

    int best = nfalse;
    long flips = 0;
    while (nfalse > 0 && flips < max_flips) {
        int c = falselist[rng_below(&rng, (uint32_t)nfalse)];
        int minb = 1 << 30, nmin = 0, cand[3];
        for (int j = 0; j < 3; j++) {
            int v = abs(cl[c][j]);
            int tl = val[v] ? 2 * v : 2 * v + 1;   /* the currently true literal of v */
            int b = 0;
            for (int e = occ_start[tl]; e < occ_start[tl + 1]; e++)
                b += numtrue[occ[e]] == 1;
            if (b < minb) { minb = b; nmin = 0; }
            if (b == minb) cand[nmin++] = j;
        }
        int pick;
        if (minb == 0)
            pick = cand[nmin == 1 ? 0 : rng_below(&rng, (uint32_t)nmin)];
        else if ((uint32_t)(rng_next(&rng) >> 32) < noise_thr)
            pick = (int)rng_below(&rng, 3);
        else
            pick = cand[nmin == 1 ? 0 : rng_below(&rng, (uint32_t)nmin)];

        int v = abs(cl[c][pick]);
        int now_false = val[v] ? 2 * v : 2 * v + 1;
        int now_true = now_false ^ 1;
        val[v] ^= 1;
        flips++;
        for (int e = occ_start[now_true]; e < occ_start[now_true + 1]; e++) {
            int d = occ[e];
            if (numtrue[d]++ == 0) {
                int last = falselist[--nfalse];
                falselist[wherefalse[d]] = last;
                wherefalse[last] = wherefalse[d];
            }
        }
        for (int e = occ_start[now_false]; e < occ_start[now_false + 1]; e++) {
            int d = occ[e];
            if (--numtrue[d] == 0) {
                wherefalse[d] = nfalse;
                falselist[nfalse++] = d;
            }
        }
        if (nfalse < best) best = nfalse;
    }

    res->solved = nfalse == 0;
    res->flips = flips;
    res->best_unsat = best;
    res->verified = 0;
    if (res->solved) {
        int ok = 1;
        for (int c = 0; c < m && ok; c++) {
            int t = 0;
            for (int j = 0; j < 3; j++) {
                int l = cl[c][j];
                t |= (l > 0) == (val[abs(l)] != 0);
            }
            ok = t;
        }
        res->verified = ok;
    }

    free(occ_start);
    free(occ);
    free(val);
    free(numtrue);
    free(falselist);
    free(wherefalse);
}

static void usage(void)
{
    fprintf(stderr, "usage: walksat <instances.cnf> <max_flips> <noise>\n");
    exit(2);
}

/* hardest first: unsolved, then more flips, then more remaining unsat, then file order */
static const Result *g_res;
static int cmp_hard(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    const Result *x = &g_res[a], *y = &g_res[b];
    if (x->solved != y->solved) return x->solved - y->solved;
    if (x->flips != y->flips) return x->flips > y->flips ? -1 : 1;
    if (x->best_unsat != y->best_unsat) return y->best_unsat - x->best_unsat;
    return a - b;
}

int main(int argc, char **argv)
{
    if (argc != 4) usage();
    char *end;
    long max_flips = strtol(argv[2], &end, 10);
    if (*end || max_flips < 1) usage();
    double noise = strtod(argv[3], &end);
    if (*end || !(noise >= 0.0 && noise <= 1.0)) usage();
    uint32_t noise_thr = noise >= 1.0 ? UINT32_MAX : (uint32_t)(noise * 4294967296.0);

    if (load(argv[1]) != 0) return 1;

    Result *res = calloc((size_t)ninst, sizeof(Result));
    #pragma omp parallel for
    for (int k = 0; k < ninst; k++)
        solve(k, max_flips, noise_thr, &res[k]);

    long solved = 0, verified = 0;
    long long total_flips = 0, solved_flips = 0;
    for (int k = 0; k < ninst; k++) {
        total_flips += res[k].flips;
        if (res[k].solved) {
            solved++;
            solved_flips += res[k].flips;
            verified += res[k].verified;
        }
    }

    printf("instances: %d, flip budget %ld, noise %.2f\n", ninst, max_flips, noise);
    printf("solved: %ld (%.1f%%), solutions verified: %ld, total flips: %lld\n",
           solved, 100.0 * (double)solved / ninst, verified, total_flips);
    if (solved)
        printf("mean flips per solved instance: %.1f\n", (double)solved_flips / (double)solved);

    /* histogram of flips used by solved instances, by decade */
    long hist[12] = {0}, unsolved = 0;
    for (int k = 0; k < ninst; k++) {
        if (!res[k].solved) { unsolved++; continue; }
        int b = 0;
        for (long lim = 10; res[k].flips >= lim && b < 11; lim *= 10) b++;
        hist[b]++;
    }
    printf("flips used (solved instances):\n");
    long lo = 0, hi = 10;
    for (int b = 0; b < 12 && lo <= max_flips; b++, lo = hi, hi *= 10)
        printf("  %9ld - %9ld: %4ld\n", lo, hi - 1, hist[b]);
    printf("  budget exhausted     : %4ld\n", unsolved);

    int *order = malloc(sizeof(int) * (size_t)ninst);
    for (int k = 0; k < ninst; k++) order[k] = k;
    g_res = res;
    qsort(order, (size_t)ninst, sizeof(int), cmp_hard);
    printf("hardest instances:\n");
    for (int i = 0; i < HARDEST && i < ninst; i++) {
        int k = order[i];
        printf("  %-24s vars %4d clauses %5d ratio %.2f  %-8s flips %9ld  best unsat %d\n",
               inst[k].name, inst[k].nvars, inst[k].nclauses,
               (double)inst[k].nclauses / inst[k].nvars,
               res[k].solved ? "solved" : "UNKNOWN", res[k].flips, res[k].best_unsat);
    }

    free(order);
    free(res);
    free(inst);
    free(clauses);
    return 0;
}
