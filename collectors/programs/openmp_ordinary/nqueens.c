/*
 * nqueens.c - count all solutions of the N-queens problem.
 *
 * usage: nqueens [-m] N [PREFIX_ROWS]
 *
 * The valid placements of queens in the first PREFIX_ROWS rows (default 3)
 * are enumerated into a work list; every work item is then finished by an
 * independent bitmask backtracking search.  Work items have very different
 * subtree sizes, so the parallel loop over them is badly balanced when split
 * into equal contiguous blocks.  Besides the total, the program reports how
 * many solutions start with the queen of the first row in each column, and
 * the largest and smallest work items.  With -m only first-row columns in
 * the left half are searched and the counts are mirrored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define MAXN 20

typedef struct {
    unsigned cols;       /* occupied columns */
    unsigned ld;         /* attacked squares on the next row via "\" diagonals */
    unsigned rd;         /* attacked squares on the next row via "/" diagonals */
    int first_col;       /* column of the queen in row 0 */
    unsigned char place[8]; /* columns of the prefix queens */
} work_t;

typedef struct {
    work_t *items;
    long n;
    long cap;
} worklist_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-m] N [PREFIX_ROWS]\n", prog);
    fprintf(stderr, "  -m           use mirror symmetry (search only the left half of the first row)\n");
    fprintf(stderr, "  N            board size, 4..%d\n", MAXN);
    fprintf(stderr, "  PREFIX_ROWS  rows enumerated up front as parallel work items, 1..6 (default 3)\n");
    exit(2);
}

static int parse_int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}

static void push(worklist_t *wl, const work_t *w)
{
    if (wl->n == wl->cap) {
        wl->cap = wl->cap ? 2 * wl->cap : 1024;
        wl->items = realloc(wl->items, (size_t)wl->cap * sizeof *wl->items);
        if (!wl->items) {
            fprintf(stderr, "nqueens: out of memory\n");
            exit(1);
        }
    }
    wl->items[wl->n++] = *w;
}

/* Enumerate all placements of the first `depth` rows (sequential). */
static void enumerate_prefixes(int n, int depth, int row, int first_cols, work_t *cur,
                               worklist_t *wl)
{
    unsigned all = (1u << n) - 1;
    if (row == depth) {
        push(wl, cur);
        return;
    }
    unsigned free_sq = all & ~(cur->cols | cur->ld | cur->rd);
    int ncols = row == 0 ? first_cols : n;
    for (int c = 0; c < ncols; c++) {
        unsigned bit = 1u << c;
        if (!(free_sq & bit))
            continue;
        work_t next = *cur;
        next.cols = cur->cols | bit;
        next.ld = ((cur->ld | bit) << 1) & all;
        next.rd = (cur->rd | bit) >> 1;
        next.place[row] = (unsigned char)c;
        if (row == 0)
            next.first_col = c;
        enumerate_prefixes(n, depth, row + 1, first_cols, &next, wl);
    }
}

/* Bitmask backtracking with an explicit stack: count the completions of a
 * partial placement in which `left` (>= 2) rows are still empty.  nodes
 * receives the number of queens placed during the search. */
static long long solve(unsigned all, int left, unsigned cols, unsigned ld, unsigned rd,
                       long long *nodes)
{
    unsigned st_c[MAXN], st_l[MAXN], st_r[MAXN], st_a[MAXN];
    long long count = 0, nd = 0;
    int d = 0;
    unsigned c = cols, l = ld, r = rd;
    unsigned a = all & ~(c | l | r);
    for (;;) {
        if (a == 0) {
            if (d == 0)
                break;
            d--;                       /* backtrack */
            a = st_a[d];
            c = st_c[d];
            l = st_l[d];
            r = st_r[d];
            continue;
        }
        unsigned bit = a & -a;
        a ^= bit;
        nd++;
        if (d == left - 2) {
            /* second-to-last row: every free square below completes a solution */
            unsigned below = all & ~(c | bit | ((l | bit) << 1) | ((r | bit) >> 1));
            int k = __builtin_popcount(below);
            nd += k;
            count += k;
            continue;
        }
        st_a[d] = a;
        st_c[d] = c;
        st_l[d] = l;
        st_r[d] = r;
        d++;
        c |= bit;
        l = ((l | bit) << 1) & all;
        r = (r | bit) >> 1;
        a = all & ~(c | l | r);
    }
    *nodes = nd;
    return count;
}

/* Check one complete placement; used to validate a sample solution. */
static int valid_board(int n, const int *q)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (q[i] == q[j] || abs(q[i] - q[j]) == j - i)
                return 0;
    return 1;
}

/* Find the lexicographically first solution that extends a prefix. */
static int first_solution(int n, int row, unsigned cols, unsigned ld, unsigned rd, int *q)
{
    unsigned all = (1u << n) - 1;
    if (row == n)
        return 1;
    unsigned avail = all & ~(cols | ld | rd);
    for (int c = 0; c < n; c++) {
        unsigned bit = 1u << c;
        if (!(avail & bit))
            continue;
        q[row] = c;
        if (first_solution(n, row + 1, cols | bit, ((ld | bit) << 1) & all, (rd | bit) >> 1, q))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int n, depth = 3, mirror = 0, a = 1;
    if (argc > 1 && strcmp(argv[1], "-m") == 0) {
        mirror = 1;
        a = 2;
    }
    if (argc - a < 1 || argc - a > 2)
        usage(argv[0]);
    if (!parse_int_arg(argv[a], 4, MAXN, &n))
        usage(argv[0]);
    if (argc - a > 1 && !parse_int_arg(argv[a + 1], 1, 6, &depth))
        usage(argv[0]);
    if (depth > n - 2)
        depth = n - 2;

    unsigned all = (1u << n) - 1;
    worklist_t wl = {NULL, 0, 0};
    work_t root;
    memset(&root, 0, sizeof root);
    /* with -m only first-row columns in the left half (and the middle one)
       are searched; the right half is the mirror image */
    int first_cols = mirror ? (n + 1) / 2 : n;
    enumerate_prefixes(n, depth, 0, first_cols, &root, &wl);

    long long *sols = calloc((size_t)wl.n, sizeof *sols);
    long long *nodes = calloc((size_t)wl.n, sizeof *nodes);
    if (!sols || !nodes) {
        fprintf(stderr, "nqueens: out of memory\n");
        return 1;
    }

    long long searched = 0, total_nodes = 0;
#pragma omp parallel for reduction(+:searched, total_nodes)
    for (long i = 0; i < wl.n; i++) {
        const work_t *w = &wl.items[i];
        long long nd = 0;
        long long c = solve(all, n - depth, w->cols, w->ld, w->rd, &nd);
        sols[i] = c;
        nodes[i] = nd;
        searched += c;
        total_nodes += nd;
    }

    /* per-column table for the first row (sequential, in work-list order) */
    long long by_col[MAXN] = {0};
    long long nodes_by_col[MAXN] = {0};
    long empty_items = 0, biggest = 0, smallest = 0;
    for (long i = 0; i < wl.n; i++) {
        by_col[wl.items[i].first_col] += sols[i];
        nodes_by_col[wl.items[i].first_col] += nodes[i];
        if (sols[i] == 0)
            empty_items++;
        if (nodes[i] > nodes[biggest])
            biggest = i;
        if (nodes[i] < nodes[smallest])
            smallest = i;
    }
    if (mirror)
        for (int c = 0; c < n / 2; c++)
            by_col[n - 1 - c] = by_col[c];
    long long total = 0;
    for (int c = 0; c < n; c++)
        total += by_col[c];

    printf("N = %d, %d prefix rows -> %ld work items (%ld without solutions)%s\n",
           n, depth, wl.n, empty_items, mirror ? ", mirror symmetry used" : "");
    printf("total solutions: %lld (%lld found by search)\n", total, searched);
    printf("search nodes:    %lld\n", total_nodes);

    if (!mirror) {
        int sym_ok = 1;
        for (int c = 0; c < n; c++)
            if (by_col[c] != by_col[n - 1 - c])
                sym_ok = 0;
        printf("mirror symmetry of first-row counts: %s\n", sym_ok ? "ok" : "BROKEN");
    }

    printf("\nfirst-row column  solutions      nodes\n");
    for (int c = 0; c < n; c++) {
        if (c < first_cols)
            printf("%16d  %9lld  %9lld\n", c, by_col[c], nodes_by_col[c]);
        else
            printf("%16d  %9lld  (mirror of column %d)\n", c, by_col[c], n - 1 - c);
    }

    printf("\nlargest work item:  prefix");
    for (int r = 0; r < depth; r++)
        printf(" %d", wl.items[biggest].place[r]);
    printf(", %lld nodes, %lld solutions\n", nodes[biggest], sols[biggest]);
    printf("smallest work item: prefix");
    for (int r = 0; r < depth; r++)
        printf(" %d", wl.items[smallest].place[r]);
    printf(", %lld nodes, %lld solutions\n", nodes[smallest], sols[smallest]);

    /* show and check the first solution in lexicographic order */
    int q[MAXN];
    if (first_solution(n, 0, 0, 0, 0, q)) {
        printf("first solution:");
        for (int r = 0; r < n; r++)
            printf(" %d", q[r]);
        printf(" (%s)\n", valid_board(n, q) ? "valid" : "INVALID");
    }

    free(sols);
    free(nodes);
    free(wl.items);
    return 0;
}
