/*
 * puzzle15 - optimal solver for batches of sliding-tile puzzles (8- and 15-puzzle).
 *
 * Each instance is solved with IDA* using the Manhattan distance plus the
 * linear-conflict heuristic.  Instances are independent, so the batch is
 * spread over threads; each search itself is sequential.
 *
 * Input file: one instance per line, "SIZE t0 t1 ... t(SIZE*SIZE-1)", where
 * SIZE is 3 or 4 and 0 is the blank.  Blank lines and lines starting with '#'
 * are ignored.  The goal is 1 2 3 ... with the blank in the last cell.
 *
 * usage: puzzle15 INSTANCES_FILE [max_instances]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <omp.h>

#define MAXN 16
#define MAXDEPTH 100

typedef struct {
    int size;                 /* 3 or 4 */
    unsigned char tiles[MAXN];
    int line_no;
} Instance;

typedef struct {
    int solvable;
    int moves;
    long long nodes;
    int start_h;
} Result;

/* search state for one instance */
typedef struct {
    int size, n;
    unsigned char board[MAXN];
    int blank;
    int bound;
    int next_bound;
    long long nodes;
    int found;
    int row_lc[4], col_lc[4];
    int md;
} Search;

static int goal_row(int t, int size) { return (t - 1) / size; }
static int goal_col(int t, int size) { return (t - 1) % size; }

/* number of tiles that must leave the line so the rest are in goal order:
   count - length of longest increasing subsequence */
static int line_conflict_vals(const int *v, int k)
{
    int best[4];
    int lis = 0;
    for (int i = 0; i < k; i++) {
        best[i] = 1;
        for (int j = 0; j < i; j++)
            if (v[j] < v[i] && best[j] + 1 > best[i]) best[i] = best[j] + 1;
        if (best[i] > lis) lis = best[i];
    }
    return k - lis;
}

static int row_conflict(const Search *s, int r)
{
    int v[4], k = 0;
    for (int c = 0; c < s->size; c++) {
        int t = s->board[r * s->size + c];
        if (t && goal_row(t, s->size) == r) v[k++] = goal_col(t, s->size);
    }
    return k > 1 ? line_conflict_vals(v, k) : 0;
}

static int col_conflict(const Search *s, int c)
{
    int v[4], k = 0;
    for (int r = 0; r < s->size; r++) {
        int t = s->board[r * s->size + c];
        if (t && goal_col(t, s->size) == c) v[k++] = goal_row(t, s->size);
    }
    return k > 1 ? line_conflict_vals(v, k) : 0;
}

static int heuristic(const Search *s)
{
    int lc = 0;
    for (int i = 0; i < s->size; i++) lc += s->row_lc[i] + s->col_lc[i];
    return s->md + 2 * lc;
}

static void init_search(Search *s, const Instance *in)
{
    s->size = in->size;
    s->n = in->size * in->size;
    memcpy(s->board, in->tiles, (size_t)s->n);
    s->md = 0;
    for (int p = 0; p < s->n; p++) {
        int t = s->board[p];
        if (t == 0) { s->blank = p; continue; }
        s->md += abs(p / s->size - goal_row(t, s->size)) + abs(p % s->size - goal_col(t, s->size));
    }
    for (int i = 0; i < s->size; i++) {
        s->row_lc[i] = row_conflict(s, i);
        s->col_lc[i] = col_conflict(s, i);
    }
    s->nodes = 0;
    s->found = 0;
}

/* returns 1 when the goal is reached within the bound */
static int dfs(Search *s, int g, int prev_blank)
{
    int h = heuristic(s);
    int f = g + h;
    if (f > s->bound) {
        if (f < s->next_bound) s->next_bound = f;
        return 0;
    }
    if (h == 0) return 1;
    s->nodes++;

    int size = s->size;
    int b = s->blank;
    int br = b / size, bc = b % size;
    static const int dr[4] = { -1, 0, 0, 1 };
    static const int dc[4] = { 0, -1, 1, 0 };
    for (int d = 0; d < 4; d++) {
        int nr = br + dr[d], nc = bc + dc[d];
        if (nr < 0 || nr >= size || nc < 0 || nc >= size) continue;
        int np = nr * size + nc;
        if (np == prev_blank) continue;
        int t = s->board[np];
        int gr = goal_row(t, size), gc = goal_col(t, size);
        /* tile t moves from np to b */
        int dmd = abs(br - gr) + abs(bc - gc) - abs(nr - gr) - abs(nc - gc);
        int saved_a, saved_b;
        s->board[b] = (unsigned char)t;
        s->board[np] = 0;
        s->blank = np;
        s->md += dmd;
        if (dr[d] != 0) {
            /* vertical move: the tile changes row */
            saved_a = s->row_lc[nr];
            saved_b = s->row_lc[br];
            s->row_lc[nr] = row_conflict(s, nr);
            s->row_lc[br] = row_conflict(s, br);
        } else {
            saved_a = s->col_lc[nc];
            saved_b = s->col_lc[bc];
            s->col_lc[nc] = col_conflict(s, nc);
            s->col_lc[bc] = col_conflict(s, bc);
        }
        int ok = dfs(s, g + 1, b);
        /* undo */
        if (dr[d] != 0) {
            s->row_lc[nr] = saved_a;
            s->row_lc[br] = saved_b;
        } else {
            s->col_lc[nc] = saved_a;
            s->col_lc[bc] = saved_b;
        }
        s->md -= dmd;
        s->blank = b;
        s->board[np] = (unsigned char)t;
        s->board[b] = 0;
        if (ok) return 1;
    }
    return 0;
}

static int is_solvable(const Instance *in)
{
    int n = in->size * in->size;
    int inv = 0, blank_row = 0;
    for (int i = 0; i < n; i++) {
        if (in->tiles[i] == 0) { blank_row = i / in->size; continue; }
        for (int j = i + 1; j < n; j++)
            if (in->tiles[j] && in->tiles[j] < in->tiles[i]) inv++;
    }
    if (in->size % 2 == 1) return inv % 2 == 0;
    /* even width: inversions + blank row counted from the bottom (goal blank on bottom row) */
    return (inv + (in->size - 1 - blank_row)) % 2 == 0;
}

static Result solve(const Instance *in)
{
    Result r = { 0, -1, 0, 0 };
    if (!is_solvable(in)) return r;
    r.solvable = 1;
    Search s;
    init_search(&s, in);
    r.start_h = heuristic(&s);
    s.bound = r.start_h;
    while (s.bound <= MAXDEPTH) {
        s.next_bound = 1 << 30;
        if (dfs(&s, 0, -1)) {
            r.moves = s.bound;
            break;
        }
        s.bound = s.next_bound;
    }
    r.nodes = s.nodes;
    return r;
}

static int read_instances(const char *path, Instance **out, int limit)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "puzzle15: cannot open '%s'\n", path);
        return -1;
    }
    int cap = 256, count = 0;
    Instance *v = malloc(sizeof(Instance) * (size_t)cap);
    char line[512];
    int line_no = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0' || *p == '#') continue;
        if (limit > 0 && count >= limit) break;
        Instance in;
        int size, used;
        if (sscanf(p, "%d%n", &size, &used) != 1 || (size != 3 && size != 4)) {
            fprintf(stderr, "puzzle15: %s:%d: bad puzzle size\n", path, line_no);
            goto bad;
        }
        p += used;
        in.size = size;
        in.line_no = line_no;
        int seen[MAXN] = { 0 };
        for (int i = 0; i < size * size; i++) {
            int t;
            if (sscanf(p, "%d%n", &t, &used) != 1 || t < 0 || t >= size * size || seen[t]) {
                fprintf(stderr, "puzzle15: %s:%d: tiles are not a permutation of 0..%d\n",
                        path, line_no, size * size - 1);
                goto bad;
            }
            seen[t] = 1;
            in.tiles[i] = (unsigned char)t;
            p += used;
        }
        if (count == cap) {
            cap *= 2;
            v = realloc(v, sizeof(Instance) * (size_t)cap);
        }
        v[count++] = in;
    }
    fclose(f);
    if (count == 0) {
        fprintf(stderr, "puzzle15: %s: no instances\n", path);
        free(v);
        return -1;
    }
    *out = v;
    return count;
bad:
    fclose(f);
    free(v);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s INSTANCES_FILE [max_instances]\n", argv[0]);
        return 2;
    }
    int limit = 0;
    if (argc == 3) {
        char *end;
        long v = strtol(argv[2], &end, 10);
        if (*end || v <= 0 || v > 1000000) {
            fprintf(stderr, "usage: %s INSTANCES_FILE [max_instances]\n", argv[0]);
            return 2;
        }
        limit = (int)v;
    }

    Instance *inst;
    int n = read_instances(argv[1], &inst, limit);
    if (n < 0) return 1;

    Result *res = calloc((size_t)n, sizeof(Result));
    long long total_nodes = 0;
    #pragma omp parallel for reduction(+:total_nodes)
    for (int i = 0; i < n; i++) {
        res[i] = solve(&inst[i]);
        total_nodes += res[i].nodes;
    }

    int solved[5] = { 0 }, unsolvable = 0, failed = 0;
    long long move_sum[5] = { 0 }, h_sum[5] = { 0 };
    int max_moves[5] = { 0 };
    int hist[MAXDEPTH / 10 + 1] = { 0 };
    for (int i = 0; i < n; i++) {
        int sz = inst[i].size;
        if (!res[i].solvable) { unsolvable++; continue; }
        if (res[i].moves < 0) { failed++; continue; }
        solved[sz]++;
        move_sum[sz] += res[i].moves;
        h_sum[sz] += res[i].start_h;
        if (res[i].moves > max_moves[sz]) max_moves[sz] = res[i].moves;
        hist[res[i].moves / 10]++;
    }

    printf("instances read      : %d\n", n);
    printf("solved              : %d (unsolvable %d, over depth limit %d)\n",
           solved[3] + solved[4], unsolvable, failed);
    for (int sz = 3; sz <= 4; sz++) {
        if (!solved[sz]) continue;
        printf("%dx%d puzzles         : %d solved, mean optimal %.2f moves, max %d, mean initial h %.2f\n",
               sz, sz, solved[sz], (double)move_sum[sz] / solved[sz], max_moves[sz],
               (double)h_sum[sz] / solved[sz]);
    }
    printf("optimal length histogram:\n");
    for (int b = 0; b <= MAXDEPTH / 10; b++)
        if (hist[b]) printf("  %3d-%3d moves : %d\n", b * 10, b * 10 + 9, hist[b]);
    printf("nodes expanded      : %lld\n", total_nodes);

    /* five hardest by nodes expanded (ties: earlier instance first) */
    int top[5], ntop = 0;
    for (int i = 0; i < n; i++) {
        if (!res[i].solvable) continue;
        int pos = ntop;
        while (pos > 0 && res[top[pos - 1]].nodes < res[i].nodes) pos--;
        if (pos >= 5) continue;
        if (ntop < 5) ntop++;
        for (int k = ntop - 1; k > pos; k--) top[k] = top[k - 1];
        top[pos] = i;
    }
    printf("hardest instances:\n");
    for (int k = 0; k < ntop; k++) {
        int i = top[k];
        printf("  #%-4d (line %d, %dx%d): %d moves, %lld nodes\n", i + 1, inst[i].line_no,
               inst[i].size, inst[i].size, res[i].moves, res[i].nodes);
    }

    free(res);
    free(inst);
    return 0;
}
