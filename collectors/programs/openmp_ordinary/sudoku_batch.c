/*
 * sudoku_batch.c - solve a file of sudoku puzzles.
 *
 * usage: sudoku_batch FILE [LIMIT] [REPEAT]
 *
 * FILE holds one puzzle per line: 81 characters, digits 1-9 for givens and
 * '.' or '0' for blanks (blank lines and lines starting with '#' are
 * ignored).  LIMIT solves only the first LIMIT puzzles (0 = all); REPEAT solves the
 * whole batch that many times (for benchmarking).
 *
 * Each puzzle is solved by constraint propagation (naked and hidden singles)
 * plus depth-first search on the cell with the fewest candidates.  Puzzles
 * are independent and are solved in parallel; their difficulty ranges from
 * no search at all to many thousands of search nodes; the search gives up
 * on a puzzle after NODE_LIMIT nodes.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#define ALL 0x1FF
#define NODE_LIMIT 20000   /* give up on a puzzle after this many search nodes */

typedef struct {
    uint16_t cand[81];     /* candidate digits, bit d-1 for digit d */
    uint8_t placed[81];    /* 1 once a single candidate has been propagated */
} state_t;

typedef struct {
    char givens[82];
    long line;             /* line number in the file */
} puzzle_t;

enum { UNSOLVED = 0, SOLVED = 1, BAD_SOLUTION = 2, GAVE_UP = 3 };

static int units[27][9];
static int peers[81][20];

static void init_tables(void)
{
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++) {
            units[i][j] = i * 9 + j;                                   /* rows */
            units[9 + i][j] = j * 9 + i;                               /* columns */
            units[18 + i][j] = (i / 3 * 3 + j / 3) * 9 + i % 3 * 3 + j % 3; /* boxes */
        }
    for (int c = 0; c < 81; c++) {
        int r = c / 9, col = c % 9, n = 0;
        for (int p = 0; p < 81; p++) {
            if (p == c)
                continue;
            int pr = p / 9, pc = p % 9;
            if (pr == r || pc == col || (pr / 3 == r / 3 && pc / 3 == col / 3))
                peers[c][n++] = p;
        }
    }
}

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s FILE [LIMIT] [REPEAT]\n", prog);
    fprintf(stderr, "  FILE    puzzles, one 81-character line each ('.' or '0' = blank)\n");
    fprintf(stderr, "  LIMIT   solve only the first LIMIT puzzles (default or 0: all)\n");
    fprintf(stderr, "  REPEAT  solve the batch this many times (default 1)\n");
    exit(2);
}

static int parse_int_arg(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

/* Naked and hidden singles until nothing changes; 0 on contradiction. */
static int propagate(state_t *s)
{
    int progress;
    do {
        progress = 0;
        for (int c = 0; c < 81; c++) {
            uint16_t m = s->cand[c];
            if (m == 0)
                return 0;
            if (s->placed[c] || (m & (m - 1)))
                continue;
            s->placed[c] = 1;
            for (int k = 0; k < 20; k++) {
                int p = peers[c][k];
                if (s->cand[p] & m) {
                    s->cand[p] &= (uint16_t)~m;
                    if (s->cand[p] == 0)
                        return 0;
                    progress = 1;
                }
            }
        }
        for (int u = 0; u < 27; u++) {
            unsigned once = 0, twice = 0;
            for (int j = 0; j < 9; j++) {
                unsigned m = s->cand[units[u][j]];
                twice |= once & m;
                once |= m;
            }
            if (once != ALL)
                return 0;               /* some digit has no place in this unit */
            unsigned exactly = once & ~twice;
            while (exactly) {
                unsigned bit = exactly & -exactly;
                exactly ^= bit;
                for (int j = 0; j < 9; j++) {
                    int c = units[u][j];
                    if ((s->cand[c] & bit) && s->cand[c] != bit) {
                        s->cand[c] = (uint16_t)bit;
                        progress = 1;
                    }
                }
            }
        }
    } while (progress);
    return 1;
}

/* Depth-first search; returns 1 and fills out[] with the first solution. */
static int search(state_t *s, long *nodes, int *out)
{
    if (!propagate(s))
        return 0;
    int best = -1, bestn = 10;
    for (int c = 0; c < 81; c++) {
        int n = __builtin_popcount(s->cand[c]);
        if (n > 1 && n < bestn) {
            bestn = n;
            best = c;
            if (n == 2)
                break;
        }
    }
    if (best < 0) {
        for (int c = 0; c < 81; c++)
            out[c] = __builtin_ctz(s->cand[c]) + 1;
        return 1;
    }
    unsigned m = s->cand[best];
    while (m) {
        unsigned bit = m & -m;
        m ^= bit;
        if (*nodes >= NODE_LIMIT)
            return 0;
        (*nodes)++;
        state_t next = *s;
        next.cand[best] = (uint16_t)bit;
        if (search(&next, nodes, out))
            return 1;
    }
    return 0;
}

/* Check that a grid is a complete valid sudoku agreeing with the givens. */
static int verify(const char *givens, const int *g)
{
    for (int u = 0; u < 27; u++) {
        unsigned seen = 0;
        for (int j = 0; j < 9; j++) {
            int v = g[units[u][j]];
            if (v < 1 || v > 9)
                return 0;
            seen |= 1u << (v - 1);
        }
        if (seen != ALL)
            return 0;
    }
    for (int c = 0; c < 81; c++)
        if (givens[c] >= '1' && givens[c] <= '9' && g[c] != givens[c] - '0')
            return 0;
    return 1;
}

static int solve_one(const char *givens, long *nodes, int *grid)
{
    state_t s;
    for (int c = 0; c < 81; c++) {
        s.cand[c] = ALL;
        s.placed[c] = 0;
    }
    for (int c = 0; c < 81; c++)
        if (givens[c] >= '1' && givens[c] <= '9')
            s.cand[c] = (uint16_t)(1u << (givens[c] - '1'));
    *nodes = 0;
    if (!search(&s, nodes, grid))
        return *nodes >= NODE_LIMIT ? GAVE_UP : UNSOLVED;
    return verify(givens, grid) ? SOLVED : BAD_SOLUTION;
}

static puzzle_t *read_puzzles(const char *path, long *count)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        fprintf(stderr, "sudoku_batch: cannot open '%s': %s\n", path, strerror(errno));
        exit(1);
    }
    long cap = 1024, n = 0, lineno = 0;
    puzzle_t *pz = malloc((size_t)cap * sizeof *pz);
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        size_t len = strcspn(line, "\r\n");
        line[len] = '\0';
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        int ok = len == 81;
        for (size_t i = 0; ok && i < 81; i++)
            ok = (line[i] >= '0' && line[i] <= '9') || line[i] == '.';
        if (!ok) {
            fprintf(stderr, "sudoku_batch: %s:%ld: expected 81 characters of 1-9, '.' or '0'\n",
                    path, lineno);
            exit(1);
        }
        if (n == cap) {
            cap *= 2;
            pz = realloc(pz, (size_t)cap * sizeof *pz);
        }
        for (int i = 0; i < 81; i++)
            pz[n].givens[i] = line[i] == '0' ? '.' : line[i];
        pz[n].givens[81] = '\0';
        pz[n].line = lineno;
        n++;
    }
    fclose(fp);
    if (n == 0) {
        fprintf(stderr, "sudoku_batch: no puzzles in '%s'\n", path);
        exit(1);
    }
    *count = n;
    return pz;
}

int main(int argc, char **argv)
{
    long limit = -1, repeat = 1;
    if (argc < 2 || argc > 4)
        usage(argv[0]);
    if (argc > 2 && !parse_int_arg(argv[2], 0, 100000000L, &limit))
        usage(argv[0]);
    if (argc > 3 && !parse_int_arg(argv[3], 1, 100000L, &repeat))
        usage(argv[0]);

    init_tables();
    long n;
    puzzle_t *pz = read_puzzles(argv[1], &n);
    if (limit > 0 && limit < n)
        n = limit;

    long *nodes = malloc((size_t)n * sizeof *nodes);
    int *status = malloc((size_t)n * sizeof *status);
    int (*solution)[81] = malloc((size_t)n * sizeof *solution);
    long solved = 0, bad = 0, gave_up = 0, total_nodes = 0;

    for (long rep = 0; rep < repeat; rep++) {
        solved = bad = gave_up = total_nodes = 0;
#pragma omp parallel for reduction(+:solved, bad, gave_up, total_nodes)
        for (long i = 0; i < n; i++) {
            status[i] = solve_one(pz[i].givens, &nodes[i], solution[i]);
            solved += status[i] == SOLVED;
            bad += status[i] == BAD_SOLUTION;
            gave_up += status[i] == GAVE_UP;
            total_nodes += nodes[i];
        }
    }

    /* ---- report ---- */
    long clues_min = 81, clues_max = 0, clues_sum = 0, no_search = 0;
    for (long i = 0; i < n; i++) {
        long cl = 0;
        for (int c = 0; c < 81; c++)
            cl += pz[i].givens[c] != '.';
        clues_sum += cl;
        if (cl < clues_min) clues_min = cl;
        if (cl > clues_max) clues_max = cl;
        no_search += nodes[i] == 0 && status[i] == SOLVED;
    }
    printf("file %s: %ld puzzles (clues %ld..%ld, mean %.1f)\n", argv[1], n, clues_min,
           clues_max, (double)clues_sum / n);
    printf("solved: %ld, no solution: %ld, gave up after %d nodes: %ld, failed verification: %ld\n",
           solved, n - solved - bad - gave_up, NODE_LIMIT, gave_up, bad);
    printf("search nodes: %ld total, %ld puzzles solved by propagation alone\n", total_nodes,
           no_search);

    /* difficulty histogram by decades of search nodes */
    long hist[8] = {0};
    for (long i = 0; i < n; i++) {
        int b = 0;
        for (long v = nodes[i]; v > 0 && b < 7; v /= 10)
            b++;
        hist[b]++;
    }
    printf("\nsearch nodes   puzzles\n");
    printf("%12s   %7ld\n", "0", hist[0]);
    for (int b = 1; b < 8; b++) {
        if (!hist[b])
            continue;
        long lo = 1;
        for (int j = 1; j < b; j++)
            lo *= 10;
        if (b < 7)
            printf("%5ld-%-6ld   %7ld\n", lo, lo * 10 - 1, hist[b]);
        else
            printf("%11ld+   %7ld\n", lo, hist[b]);
    }

    /* hardest three puzzles (ties: earlier line first) */
    long top[3] = {-1, -1, -1};
    for (long i = 0; i < n; i++) {
        for (int t = 0; t < 3; t++) {
            if (top[t] < 0 || nodes[i] > nodes[top[t]]) {
                for (int s = 2; s > t; s--)
                    top[s] = top[s - 1];
                top[t] = i;
                break;
            }
        }
    }
    printf("\nhardest puzzles:\n");
    for (int t = 0; t < 3 && top[t] >= 0; t++) {
        long i = top[t];
        printf("  line %-6ld %8ld nodes  %s\n", pz[i].line, nodes[i],
               status[i] == SOLVED ? "solved" : status[i] == BAD_SOLUTION ? "BAD"
               : status[i] == GAVE_UP ? "gave up" : "no solution");
    }

    /* first solved puzzle, for a visual check */
    for (long i = 0; i < n; i++) {
        if (status[i] != SOLVED)
            continue;
        printf("\nfirst puzzle (line %ld) and its solution:\n", pz[i].line);
        for (int r = 0; r < 9; r++) {
            printf("  ");
            for (int c = 0; c < 9; c++)
                printf("%c%s", pz[i].givens[r * 9 + c], c % 3 == 2 && c < 8 ? " " : "");
            printf("   ");
            for (int c = 0; c < 9; c++)
                printf("%d%s", solution[i][r * 9 + c], c % 3 == 2 && c < 8 ? " " : "");
            printf("\n");
        }
        break;
    }

    free(solution);
    free(status);
    free(nodes);
    free(pz);
    return 0;
}
