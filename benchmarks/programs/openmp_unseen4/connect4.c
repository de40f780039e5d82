/*
 * connect4 - evaluate Connect Four positions with a depth-limited
 * alpha-beta search.
 *
 * Usage: connect4 POSITIONS.txt DEPTH
 *
 * POSITIONS.txt holds one position per line as the sequence of moves
 * played so far (column digits 1-7, first player first); '#' lines are
 * comments.  Each position is searched with negamax and alpha-beta pruning
 * to DEPTH plies; leaves are scored with a window-counting heuristic and
 * wins found inside the horizon get a score that prefers the fastest win.
 * The report summarises the predicted outcomes, the distribution of best
 * moves and the most clear-cut positions.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 7
#define HEIGHT 6
#define CELLS (WIDTH * HEIGHT)
#define WIN_SCORE 100000
#define FORCED (WIN_SCORE - 100)
#define EDGE 20            /* heuristic margin counted as an advantage */
#define MAX_LINE 128

typedef struct {
    char moves[CELLS + 1];
    int nmoves;
    uint64_t pos;          /* stones of the side to move */
    uint64_t mask;         /* all stones */
    int best_col;          /* 1-based */
    int score;
    long nodes;
} Position;

static const int order[WIDTH] = {3, 2, 4, 1, 5, 0, 6};
static uint64_t windows[69];
static int nwindows;
static const int weight[4] = {0, 1, 6, 30};

static inline uint64_t bottom_mask(int col) { return (uint64_t)1 << (col * (HEIGHT + 1)); }
static inline uint64_t top_mask(int col) { return (uint64_t)1 << (HEIGHT - 1 + col * (HEIGHT + 1)); }
static inline uint64_t column_mask(int col) { return (((uint64_t)1 << HEIGHT) - 1) << (col * (HEIGHT + 1)); }
static inline uint64_t cell_bit(int col, int row) { return (uint64_t)1 << (col * (HEIGHT + 1) + row); }

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s POSITIONS.txt DEPTH\n", prog);
}

static int four_in_a_row(uint64_t p)
{
    static const int shifts[4] = {1, HEIGHT, HEIGHT + 1, HEIGHT + 2};
    for (int i = 0; i < 4; i++) {
        int s = shifts[i];
        uint64_t m = p & (p >> s);
        if (m & (m >> (2 * s)))
            return 1;
    }
    return 0;
}

static inline int can_play(uint64_t mask, int col)
{
    return (mask & top_mask(col)) == 0;
}

static inline int winning_move(uint64_t pos, uint64_t mask, int col)
{
    uint64_t p = pos | ((mask + bottom_mask(col)) & column_mask(col));
    return four_in_a_row(p);
}

static void build_windows(void)
{
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    for (int c = 0; c < WIDTH; c++)
        for (int r = 0; r < HEIGHT; r++)
            for (int d = 0; d < 4; d++) {
                int ec = c + 3 * dirs[d][0], er = r + 3 * dirs[d][1];
                if (ec < 0 || ec >= WIDTH || er < 0 || er >= HEIGHT)
                    continue;
                uint64_t w = 0;
                for (int k = 0; k < 4; k++)
                    w |= cell_bit(c + k * dirs[d][0], r + k * dirs[d][1]);
                windows[nwindows++] = w;
            }
}

/* Static evaluation from the point of view of the side to move. */
static int evaluate(uint64_t me, uint64_t opp)
{
    int s = 0;
    for (int i = 0; i < nwindows; i++) {
        int a = __builtin_popcountll(windows[i] & me);
        int b = __builtin_popcountll(windows[i] & opp);
        if (b == 0)
            s += weight[a];
        else if (a == 0)
            s -= weight[b];
    }
    s += 3 * (__builtin_popcountll(me & column_mask(3)) - __builtin_popcountll(opp & column_mask(3)));
    return s;
}

static int negamax(uint64_t pos, uint64_t mask, int moves, int depth,
                   int alpha, int beta, int ply, long *nodes)
{
    (*nodes)++;
    if (moves == CELLS)
        return 0;
    for (int c = 0; c < WIDTH; c++)
        if (can_play(mask, c) && winning_move(pos, mask, c))
            return WIN_SCORE - (ply + 1);
    if (depth == 0)
        return evaluate(pos, pos ^ mask);

    int best = -WIN_SCORE - 1;
    for (int i = 0; i < WIDTH; i++) {
        int c = order[i];
        if (!can_play(mask, c))
            continue;
        uint64_t nmask = mask | (mask + bottom_mask(c));
        int s = -negamax(pos ^ mask, nmask, moves + 1, depth - 1, -beta, -alpha, ply + 1, nodes);
        if (s > best) {
            best = s;
            if (s > alpha) {
                alpha = s;
                if (alpha >= beta)
                    break;
            }
        }
    }
    return best;
}

static void search(Position *p, int depth)
{
    long nodes = 1;
    int best = -WIN_SCORE - 1, best_col = -1;

    for (int c = 0; c < WIDTH && best_col < 0; c++)
        if (can_play(p->mask, c) && winning_move(p->pos, p->mask, c)) {
            best = WIN_SCORE - 1;
            best_col = c;
        }
    if (best_col < 0) {
        for (int i = 0; i < WIDTH; i++) {
            int c = order[i];
            if (!can_play(p->mask, c))
                continue;
            uint64_t nmask = p->mask | (p->mask + bottom_mask(c));
            int s = -negamax(p->pos ^ p->mask, nmask, p->nmoves + 1, depth - 1,
                             -WIN_SCORE - 1, -best, 1, &nodes);
            if (s > best) {
                best = s;
                best_col = c;
            }
        }
    }
    p->best_col = best_col + 1;
    p->score = best;
    p->nodes = nodes;
}

/* Replays a move string; returns an error message or NULL. */
static const char *setup(Position *p, const char *s)
{
    uint64_t pos = 0, mask = 0;
    int n = 0;
    for (; *s; s++, n++) {
        if (*s < '1' || *s > '0' + WIDTH)
            return "moves must be column digits 1-7";
        if (n >= CELLS)
            return "too many moves";
        int c = *s - '1';
        if (!can_play(mask, c))
            return "move into a full column";
        if (winning_move(pos, mask, c))
            return "game is already decided";
        pos ^= mask;
        mask |= mask + bottom_mask(c);
        p->moves[n] = *s;
    }
    if (n == 0)
        return "empty position";
    if (n == CELLS)
        return "board is full";
    p->moves[n] = '\0';
    p->nmoves = n;
    p->pos = pos;
    p->mask = mask;
    return NULL;
}

static Position *read_positions(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "connect4: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int cap = 64, n = 0, lineno = 0;
    Position *v = malloc(cap * sizeof *v);
    char line[MAX_LINE];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
        }
        const char *err = setup(&v[n], p);
        if (err) {
            fprintf(stderr, "connect4: %s:%d: %s\n", path, lineno, err);
            free(v);
            fclose(f);
            return NULL;
        }
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "connect4: %s: no positions\n", path);
        free(v);
        return NULL;
    }
    *count = n;
    return v;
}

static void describe(const Position *p, char *buf, size_t len)
{
    if (p->score >= FORCED)
        snprintf(buf, len, "wins in %d", WIN_SCORE - p->score);
    else if (p->score <= -FORCED)
        snprintf(buf, len, "loses in %d", WIN_SCORE + p->score);
    else
        snprintf(buf, len, "%+d", p->score);
}

static int cmp_decisive(const void *a, const void *b)
{
    const Position *x = *(const Position *const *)a, *y = *(const Position *const *)b;
    int ax = abs(x->score), ay = abs(y->score);
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    long depth = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || depth < 1 || depth > 20) {
        usage(argv[0]);
        return 2;
    }
    int count;
    Position *ps = read_positions(argv[1], &count);
    if (!ps)
        return 1;
    build_windows();

    #pragma omp parallel for
    for (int i = 0; i < count; i++)
        search(&ps[i], (int)depth);

    int win = 0, fwin = 0, loss = 0, floss = 0, draw = 0;
    int colhist[WIDTH] = {0};
    long total_nodes = 0;
    int busiest = 0;
    for (int i = 0; i < count; i++) {
        const Position *p = &ps[i];
        if (p->score >= FORCED) { win++; fwin++; }
        else if (p->score > EDGE) win++;
        else if (p->score <= -FORCED) { loss++; floss++; }
        else if (p->score < -EDGE) loss++;
        else draw++;
        colhist[p->best_col - 1]++;
        total_nodes += p->nodes;
        if (p->nodes > ps[busiest].nodes)
            busiest = i;
    }

    printf("%d positions searched to depth %ld, %ld nodes\n", count, depth, total_nodes);
    printf("predicted for the side to move: %d wins (%d forced), %d draws, %d losses (%d forced)\n",
           win, fwin, draw, loss, floss);
    printf("best column:");
    for (int c = 0; c < WIDTH; c++)
        printf("  %d:%d", c + 1, colhist[c]);
    printf("\n");

    Position **rank = malloc(count * sizeof *rank);
    for (int i = 0; i < count; i++)
        rank[i] = &ps[i];
    qsort(rank, count, sizeof *rank, cmp_decisive);
    printf("most clear-cut positions:\n");
    printf("    #  to move  best  score          moves\n");
    int top = count < 10 ? count : 10;
    char buf[32];
    for (int i = 0; i < top; i++) {
        const Position *p = rank[i];
        describe(p, buf, sizeof buf);
        printf("  %3d  %-7s  %4d  %-13s  %s\n", (int)(p - ps) + 1,
               p->nmoves % 2 ? "second" : "first", p->best_col, buf, p->moves);
    }
    describe(&ps[busiest], buf, sizeof buf);
    printf("largest search: position %d (%ld nodes, best column %d, %s)\n", busiest + 1,
           ps[busiest].nodes, ps[busiest].best_col, buf);

    free(rank);
    free(ps);
    return 0;
}
