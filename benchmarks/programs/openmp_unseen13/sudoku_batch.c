/*
 * sudoku_batch: solve a batch of 9x9 sudoku puzzles.
 *
 * Each puzzle is solved by depth-first search with constraint propagation
 * (naked singles) and "fewest candidates first" branching.
 * The search counts solutions up to a limit of 2, so it can tell apart
 * puzzles with no solution, a unique solution or several solutions.
 *
 * usage: sudoku_batch PUZZLE_FILE MAX_PUZZLES
 *   PUZZLE_FILE  one puzzle per line, 81 characters '1'..'9' or '.'/'0'
 *   MAX_PUZZLES  solve at most this many puzzles (0 = all)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>

#define ALL 0x1FFu

typedef struct {
    uint8_t cell[81];          /* 0 = empty, else digit 1..9 */
    uint16_t row[9], col[9], box[9];   /* used-digit masks */
} Board;

typedef struct {
    int solutions;             /* capped at 2 */
    long long nodes;           /* search nodes visited */
} Result;

static int box_of[81];

static void init_tables(void)
{
    for (int i = 0; i < 81; i++)
        box_of[i] = (i / 27) * 3 + (i % 9) / 3;
}

static inline int popcount9(unsigned m) { return __builtin_popcount(m); }

static inline unsigned candidates(const Board *b, int i)
{
    return ALL & ~(unsigned)(b->row[i / 9] | b->col[i % 9] | b->box[box_of[i]]);
}

static inline void place(Board *b, int i, int d)
{
    unsigned bit = 1u << (d - 1);
    b->cell[i] = (uint8_t)d;
    b->row[i / 9] |= bit;
    b->col[i % 9] |= bit;
    b->box[box_of[i]] |= bit;
}

/* Fill in naked singles (cells with exactly one candidate) until nothing
 * changes.  Returns 0 on a contradiction (a cell without candidates). */
static int propagate(Board *b)
{
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 0; i < 81; i++) {
            if (b->cell[i])
                continue;
            unsigned c = candidates(b, i);
            if (c == 0)
                return 0;
            if ((c & (c - 1)) == 0) {
                place(b, i, __builtin_ctz(c) + 1);
                changed = 1;
            }
        }
    }
    return 1;
}

static void search(Board *b, Result *res)
{
    res->nodes++;
    if (!propagate(b))
        return;

    int best = -1, best_count = 10;
    unsigned best_mask = 0;
    for (int i = 0; i < 81; i++) {
        if (b->cell[i])
            continue;
        unsigned c = candidates(b, i);
        int n = popcount9(c);
        if (n < best_count) {
            best = i;
            best_count = n;
            best_mask = c;
            if (n == 2)
                break;
        }
    }
    if (best < 0) {
        res->solutions++;
        return;
    }
    while (best_mask && res->solutions < 2) {
        int d = __builtin_ctz(best_mask) + 1;
        best_mask &= best_mask - 1;
        Board child = *b;
        place(&child, best, d);
        search(&child, res);
    }
}

/* Build the board from a puzzle string; returns 0 if the givens clash. */
static int load_board(const char *s, Board *b)
{
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 81; i++) {
        int d = (s[i] >= '1' && s[i] <= '9') ? s[i] - '0' : 0;
        if (!d)
            continue;
        unsigned bit = 1u << (d - 1);
        if ((b->row[i / 9] | b->col[i % 9] | b->box[box_of[i]]) & bit)
            return 0;
        place(b, i, d);
    }
    return 1;
}

static void usage(void)
{
    fprintf(stderr, "usage: sudoku_batch PUZZLE_FILE MAX_PUZZLES   (MAX_PUZZLES >= 0, 0 = all)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage();
    char *end;
    errno = 0;
    long max_puzzles = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || max_puzzles < 0)
        usage();

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "sudoku_batch: cannot open %s\n", argv[1]);
        return 1;
    }
    size_t cap = 1024, n = 0;
    char (*puz)[82] = malloc(cap * sizeof *puz);
    char line[256];
    long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strcspn(line, "\r\n");
        if (len == 0)
            continue;
        int ok = (len == 81);
        for (size_t k = 0; ok && k < 81; k++)
            ok = (line[k] == '.' || (line[k] >= '0' && line[k] <= '9'));
        if (!ok) {
            fprintf(stderr, "sudoku_batch: %s line %ld is not an 81-character puzzle\n", argv[1], lineno);
            fclose(f);
            return 1;
        }
        if (max_puzzles && (long)n >= max_puzzles)
            break;
        if (n == cap) {
            cap *= 2;
            puz = realloc(puz, cap * sizeof *puz);
        }
        memcpy(puz[n], line, 81);
        puz[n][81] = '\0';
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "sudoku_batch: %s contains no puzzles\n", argv[1]);
        return 1;
    }

    init_tables();
    int *sols = malloc(n * sizeof *sols);
    long long *nodes = malloc(n * sizeof *nodes);
    long long total_nodes = 0;
    long count0 = 0, count1 = 0, count2 = 0;

    #pragma omp parallel for reduction(+:total_nodes,count0,count1,count2)
    for (long p = 0; p < (long)n; p++) {
        Board b;
        Result r = {0, 0};
        if (load_board(puz[p], &b))
            search(&b, &r);
        sols[p] = r.solutions;
        nodes[p] = r.nodes;
        total_nodes += r.nodes;
        if (r.solutions == 0)
            count0++;
        else if (r.solutions == 1)
            count1++;
        else
            count2++;
    }

    long hardest = 0;
    for (long p = 1; p < (long)n; p++)
        if (nodes[p] > nodes[hardest])
            hardest = p;

    printf("puzzles solved:          %zu\n", n);
    printf("no solution:             %ld\n", count0);
    printf("unique solution:         %ld\n", count1);
    printf("two or more solutions:   %ld\n", count2);
    printf("total search nodes:      %lld\n", total_nodes);
    printf("mean nodes per puzzle:   %.2f\n", (double)total_nodes / (double)n);
    printf("hardest puzzle:          #%ld (%lld nodes, %s)\n", hardest, nodes[hardest],
           sols[hardest] == 0 ? "no solution" : sols[hardest] == 1 ? "unique" : "multiple");
    printf("hardest puzzle givens:   %s\n", puz[hardest]);

    free(sols);
    free(nodes);
    free(puz);
    return 0;
}
