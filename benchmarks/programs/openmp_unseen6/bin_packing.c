/*
 * bin_packing - compare simple packing heuristics on a set of one-dimensional
 * bin-packing instances.
 *
 * For each instance: first-fit decreasing, best-fit decreasing, and a local
 * search that starts from the better of the two and keeps moving / swapping
 * items while the sum of squared bin loads grows (this pushes items out of the
 * emptiest bins until some of them empty completely).  Every result is
 * compared with the Martello-Toth L2 lower bound.
 *
 * Input format (whitespace separated, '#' starts a comment line):
 *     instance NAME capacity C items N
 *     s1 s2 ... sN
 *   repeated for every instance.
 *
 * usage: bin_packing INSTANCE_FILE [max_rounds]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_LEN 32

typedef struct {
    char name[NAME_LEN];
    int capacity;
    int n;
    int *size;          /* item sizes as read */
} Instance;

typedef struct {
    int lb;             /* L2 lower bound */
    int ffd, bfd, ls;   /* bins used */
    long long ls_moves; /* moves + swaps applied by the local search */
} Result;

static int cmp_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

/* Martello-Toth L2 bound; s must be sorted in decreasing order */
static int lower_bound_l2(const int *s, int n, int cap)
{
    long long total = 0;
    for (int i = 0; i < n; i++) total += s[i];
    int best = (int)((total + cap - 1) / cap);

    /* candidate K values: 0 and every distinct size <= cap/2 */
    for (int k = n; k >= 0; k--) {
        int K = (k == n) ? 0 : s[k];
        if (K > cap / 2) break;
        if (k < n && k + 1 < n && s[k + 1] == K) continue;
        int n1 = 0, n2 = 0;
        long long sum2 = 0, sum3 = 0;
        for (int i = 0; i < n; i++) {
            if (s[i] > cap - K) n1++;
            else if (s[i] > cap / 2) { n2++; sum2 += s[i]; }
            else if (s[i] >= K) sum3 += s[i];
        }
        long long free2 = (long long)n2 * cap - sum2;
        long long extra = sum3 - free2;
        int l = n1 + n2;
        if (extra > 0) l += (int)((extra + cap - 1) / cap);
        if (l > best) best = l;
    }
    return best;
}

static int first_fit_decreasing(const int *s, int n, int cap, int *bin, int *load)
{
    int nb = 0;
    for (int i = 0; i < n; i++) {
        int b = 0;
        while (b < nb && load[b] + s[i] > cap) b++;
        if (b == nb) load[nb++] = 0;
        load[b] += s[i];
        bin[i] = b;
    }
    return nb;
}

static int best_fit_decreasing(const int *s, int n, int cap, int *bin, int *load)
{
    int nb = 0;
    for (int i = 0; i < n; i++) {
        int best = -1, best_left = cap + 1;
        for (int b = 0; b < nb; b++) {
            int left = cap - load[b] - s[i];
            if (left >= 0 && left < best_left) {
                best_left = left;
                best = b;
                if (left == 0) break;
            }
        }
        if (best < 0) {
            best = nb;
            load[nb++] = 0;
        }
        load[best] += s[i];
        bin[i] = best;
    }
    return nb;
}

/* Move / swap items between bins while the sum of squared loads increases.
   Returns the number of non-empty bins at the end. */
static int local_search(const int *s, int n, int cap, int *bin, int *load, int nb,
                        int max_rounds, long long *applied)
{
    long long count = 0;
    for (int round = 0; round < max_rounds; round++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            int a = bin[i];
            /* move item i into a fuller bin that still has room */
            int target = -1;
            for (int b = 0; b < nb; b++) {
                if (b == a || load[b] == 0) continue;
                if (load[b] + s[i] <= cap && load[b] + s[i] > load[a]) {
                    if (target < 0 || load[b] > load[target]) target = b;
                }
            }
            if (target >= 0) {
                load[a] -= s[i];
                load[target] += s[i];
                bin[i] = target;
                changed++;
                continue;
            }
            /* swap with a larger item of a bin that is not fuller than a */
            for (int j = 0; j < n; j++) {
                int b = bin[j];
                if (b == a) continue;
                int d = s[j] - s[i];
                if (d <= 0) continue;
                if (load[a] + d <= cap && load[a] - load[b] + d > 0) {
                    load[a] += d;
                    load[b] -= d;
                    bin[i] = b;
                    bin[j] = a;
                    a = b;
                    changed++;
                }
            }
        }
        count += changed;
        if (!changed) break;
    }
    *applied = count;
    int used = 0;
    for (int b = 0; b < nb; b++)
        if (load[b] > 0) used++;
    return used;
}

static Result solve(const Instance *in, int max_rounds)
{
    Result r;
    int n = in->n, cap = in->capacity;
    int *s = malloc(sizeof(int) * (size_t)n);
    int *bin = malloc(sizeof(int) * (size_t)n);
    int *bin2 = malloc(sizeof(int) * (size_t)n);
    int *load = malloc(sizeof(int) * (size_t)n);
    int *load2 = malloc(sizeof(int) * (size_t)n);
    memcpy(s, in->size, sizeof(int) * (size_t)n);
    qsort(s, (size_t)n, sizeof(int), cmp_desc);

    r.lb = lower_bound_l2(s, n, cap);
    r.ffd = first_fit_decreasing(s, n, cap, bin, load);
    r.bfd = best_fit_decreasing(s, n, cap, bin2, load2);
    int nb = r.ffd;
    if (r.bfd < r.ffd) {
        memcpy(bin, bin2, sizeof(int) * (size_t)n);
        memcpy(load, load2, sizeof(int) * (size_t)n);
        nb = r.bfd;
    }
    r.ls = local_search(s, n, cap, bin, load, nb, max_rounds, &r.ls_moves);

    free(s); free(bin); free(bin2); free(load); free(load2);
    return r;
}

static void free_instances(Instance *v, int count)
{
    for (int i = 0; i < count; i++) free(v[i].size);
    free(v);
}

static int next_token(FILE *f, char *buf, size_t len)
{
    int c;
    for (;;) {
        c = fgetc(f);
        if (c == EOF) return 0;
        if (c == '#') {
            while (c != '\n' && c != EOF) c = fgetc(f);
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    }
    size_t k = 0;
    while (c != EOF && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        if (k + 1 < len) buf[k++] = (char)c;
        c = fgetc(f);
    }
    buf[k] = '\0';
    return 1;
}

static int parse_int(const char *t, int lo, int hi, int *out)
{
    char *end;
    long v = strtol(t, &end, 10);
    if (*t == '\0' || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

static int read_instances(const char *path, Instance **out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bin_packing: cannot open '%s'\n", path);
        return -1;
    }
    int cap = 64, count = 0;
    Instance *v = malloc(sizeof(Instance) * (size_t)cap);
    char tok[64];
    while (next_token(f, tok, sizeof tok)) {
        Instance in;
        char name[64], kw1[64], capv[64], kw2[64], nv[64];
        if (strcmp(tok, "instance") != 0 ||
            !next_token(f, name, sizeof name) ||
            !next_token(f, kw1, sizeof kw1) || strcmp(kw1, "capacity") != 0 ||
            !next_token(f, capv, sizeof capv) || !parse_int(capv, 1, 1000000000, &in.capacity) ||
            !next_token(f, kw2, sizeof kw2) || strcmp(kw2, "items") != 0 ||
            !next_token(f, nv, sizeof nv) || !parse_int(nv, 1, 1000000, &in.n)) {
            fprintf(stderr, "bin_packing: %s: malformed header of instance %d\n", path, count + 1);
            goto bad;
        }
        snprintf(in.name, NAME_LEN, "%s", name);
        in.size = malloc(sizeof(int) * (size_t)in.n);
        for (int i = 0; i < in.n; i++) {
            if (!next_token(f, tok, sizeof tok) || !parse_int(tok, 1, in.capacity, &in.size[i])) {
                fprintf(stderr, "bin_packing: %s: instance %s: item %d missing or larger than the capacity\n",
                        path, in.name, i + 1);
                free(in.size);
                goto bad;
            }
        }
        if (count == cap) {
            cap *= 2;
            v = realloc(v, sizeof(Instance) * (size_t)cap);
        }
        v[count++] = in;
    }
    fclose(f);
    if (count == 0) {
        fprintf(stderr, "bin_packing: %s: no instances\n", path);
        free(v);
        return -1;
    }
    *out = v;
    return count;
bad:
    fclose(f);
    free_instances(v, count);
    return -1;
}

static double gap_pct(int bins, int lb) { return 100.0 * (bins - lb) / lb; }

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s INSTANCE_FILE [max_rounds]\n", argv[0]);
        return 2;
    }
    int max_rounds = 50;
    if (argc == 3 && !parse_int(argv[2], 1, 100000, &max_rounds)) {
        fprintf(stderr, "usage: %s INSTANCE_FILE [max_rounds]\n", argv[0]);
        return 2;
    }

    Instance *inst;
    int count = read_instances(argv[1], &inst);
    if (count < 0) return 1;

    Result *res = malloc(sizeof(Result) * (size_t)count);

    #pragma omp parallel for
    for (int i = 0; i < count; i++)
        res[i] = solve(&inst[i], max_rounds);

    long long items = 0, lb_total = 0, ffd_total = 0, bfd_total = 0, ls_total = 0, moves = 0;
    int at_lb[3] = { 0, 0, 0 }, ls_better = 0;
    double gap_sum[3] = { 0, 0, 0 };
    for (int i = 0; i < count; i++) {
        const Result *r = &res[i];
        items += inst[i].n;
        lb_total += r->lb;
        ffd_total += r->ffd;
        bfd_total += r->bfd;
        ls_total += r->ls;
        moves += r->ls_moves;
        at_lb[0] += r->ffd == r->lb;
        at_lb[1] += r->bfd == r->lb;
        at_lb[2] += r->ls == r->lb;
        ls_better += r->ls < (r->ffd < r->bfd ? r->ffd : r->bfd);
        gap_sum[0] += gap_pct(r->ffd, r->lb);
        gap_sum[1] += gap_pct(r->bfd, r->lb);
        gap_sum[2] += gap_pct(r->ls, r->lb);
    }

    printf("instances: %d, items: %lld, local search rounds <= %d\n", count, items, max_rounds);
    printf("L2 lower bound, total bins: %lld\n", lb_total);
    printf("%-14s %10s %10s %12s\n", "method", "bins", "at bound", "mean gap %");
    printf("%-14s %10lld %10d %12.3f\n", "first-fit dec", ffd_total, at_lb[0], gap_sum[0] / count);
    printf("%-14s %10lld %10d %12.3f\n", "best-fit dec", bfd_total, at_lb[1], gap_sum[1] / count);
    printf("%-14s %10lld %10d %12.3f\n", "local search", ls_total, at_lb[2], gap_sum[2] / count);
    printf("local search improved %d instances with %lld moves/swaps\n", ls_better, moves);

    /* ten worst instances by local search gap (ties: larger instance, then file order) */
    int *order = malloc(sizeof(int) * (size_t)count);
    int nw = 0;
    for (int i = 0; i < count; i++) {
        int pos = nw;
        while (pos > 0) {
            const Result *p = &res[order[pos - 1]], *q = &res[i];
            /* compare gaps exactly: (q.ls-q.lb)/q.lb > (p.ls-p.lb)/p.lb */
            long long lhs = (long long)(q->ls - q->lb) * p->lb;
            long long rhs = (long long)(p->ls - p->lb) * q->lb;
            if (lhs > rhs || (lhs == rhs && inst[i].n > inst[order[pos - 1]].n)) pos--;
            else break;
        }
        if (pos >= 10) continue;
        if (nw < 10) nw++;
        for (int k = nw - 1; k > pos; k--) order[k] = order[k - 1];
        order[pos] = i;
    }
    printf("worst instances (gap of local search to L2):\n");
    printf("  %-12s %6s %6s %6s %6s %6s %6s %8s\n", "name", "items", "cap", "L2", "FFD", "BFD", "LS", "gap %");
    for (int k = 0; k < nw; k++) {
        int i = order[k];
        const Result *r = &res[i];
        printf("  %-12s %6d %6d %6d %6d %6d %6d %8.2f\n", inst[i].name, inst[i].n, inst[i].capacity,
               r->lb, r->ffd, r->bfd, r->ls, gap_pct(r->ls, r->lb));
    }

    free(order);
    free(res);
    free_instances(inst, count);
    return 0;
}
