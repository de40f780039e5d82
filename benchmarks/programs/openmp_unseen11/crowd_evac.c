/* crowd_evac: cellular agent-based evacuation of a floor plan.
 * A static floor field (BFS distance to the nearest open exit, 8-neighbour
 * moves) guides the people; every step each person still inside picks a free
 * neighbouring cell closer to an exit (avoiding crowded cells), conflicts on a
 * target cell go to the lowest person id.  The evacuation is run with all
 * exits open and then with each exit blocked in turn.
 *
 * usage: crowd_evac plan.txt people.txt max_steps
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXEXIT 4
#define BLOCK 64     /* people per parallel loop iteration */
static const int DX[8] = {1, -1, 0, 0, 1, 1, -1, -1};
static const int DY[8] = {0, 0, 1, -1, 1, -1, 1, -1};

static int W, H;
static char *grid;      /* '#', '.', '1'..'4' */
static int NP;
static int *px0, *py0, *speed;

static int load_plan(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "crowd_evac: cannot open %s\n", path); return -1; }
    if (fscanf(f, "%d %d", &W, &H) != 2 || W < 3 || H < 3 || W > 5000 || H > 5000) {
        fprintf(stderr, "crowd_evac: %s: bad header\n", path); fclose(f); return -1;
    }
    grid = malloc((size_t)W * H);
    char *line = malloc((size_t)W + 16);
    int c;
    while ((c = fgetc(f)) != '\n' && c != EOF) ;
    for (int y = 0; y < H; y++) {
        if (!fgets(line, W + 16, f) || (int)strcspn(line, "\r\n") != W) {
            fprintf(stderr, "crowd_evac: %s: row %d malformed\n", path, y + 1);
            fclose(f); return -1;
        }
        for (int x = 0; x < W; x++) {
            char ch = line[x];
            if (ch != '#' && ch != '.' && (ch < '1' || ch > '0' + MAXEXIT)) {
                fprintf(stderr, "crowd_evac: %s: bad cell '%c' at %d,%d\n", path, ch, x, y);
                fclose(f); return -1;
            }
            grid[(size_t)y * W + x] = ch;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

static int load_people(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "crowd_evac: cannot open %s\n", path); return -1; }
    if (fscanf(f, "%d", &NP) != 1 || NP < 1 || NP > 1000000) {
        fprintf(stderr, "crowd_evac: %s: bad count\n", path); fclose(f); return -1;
    }
    px0 = malloc(sizeof(int) * NP); py0 = malloc(sizeof(int) * NP); speed = malloc(sizeof(int) * NP);
    char *used = calloc((size_t)W * H, 1);
    for (int i = 0; i < NP; i++) {
        if (fscanf(f, "%d %d %d", &px0[i], &py0[i], &speed[i]) != 3 ||
            px0[i] < 0 || px0[i] >= W || py0[i] < 0 || py0[i] >= H ||
            speed[i] < 1 || speed[i] > 4 || grid[(size_t)py0[i] * W + px0[i]] != '.' ||
            used[(size_t)py0[i] * W + px0[i]]) {
            fprintf(stderr, "crowd_evac: %s: bad person %d\n", path, i + 1);
            fclose(f); return -1;
        }
        used[(size_t)py0[i] * W + px0[i]] = 1;
    }
    free(used);
    fclose(f);
    return 0;
}

/* BFS from all open exit cells; walls and closed exits are impassable */
static void floor_field(int *dist, int blocked)
{
    int n = W * H, *q = malloc(sizeof(int) * n), qh = 0, qt = 0;
    for (int i = 0; i < n; i++) {
        dist[i] = -1;
        char c = grid[i];
        if (c >= '1' && c <= '0' + MAXEXIT && c - '0' != blocked) { dist[i] = 0; q[qt++] = i; }
    }
    while (qh < qt) {
        int c = q[qh++], x = c % W, y = c / W;
        for (int k = 0; k < 8; k++) {
            int nx = x + DX[k], ny = y + DY[k];
            if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
            int nc = ny * W + nx;
            if (grid[nc] != '.' || dist[nc] >= 0) continue;
            if (k >= 4 && (grid[y * W + nx] == '#' || grid[ny * W + x] == '#')) continue;
            dist[nc] = dist[c] + 1;
            q[qt++] = nc;
        }
    }
    free(q);
}

static unsigned hash2(unsigned a, unsigned b)
{
    unsigned h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
    h ^= h >> 15; h *= 0x2C1B3C6Du; h ^= h >> 12;
    return h;
}

typedef struct {
    int steps, out, stuck, per_exit[MAXEXIT + 1];
    int quart[4];
    long long sum_time, waits;
} Result;

static void evacuate(int blocked, int max_steps, Result *res)
{
    int n = W * H;
    int *dist = malloc(sizeof(int) * n), *occ = malloc(sizeof(int) * n);
    int *pos = malloc(sizeof(int) * NP), *target = malloc(sizeof(int) * NP);
    int *act = malloc(sizeof(int) * NP);
    char *win = malloc(NP);
    floor_field(dist, blocked);
    for (int i = 0; i < n; i++) occ[i] = -1;
    int nact = 0;
    memset(res, 0, sizeof *res);
    for (int i = 0; i < NP; i++) {
        pos[i] = py0[i] * W + px0[i];
        if (dist[pos[i]] < 0) { res->stuck++; continue; }   /* cannot reach any open exit */
        occ[pos[i]] = i;
        act[nact++] = i;
    }
    int reachable = nact, marks[4], nextq = 0;
    for (int k = 0; k < 4; k++) marks[k] = (reachable * (k + 1) + 3) / 4;
    long long waits = 0;
    int step;
    for (step = 1; step <= max_steps && nact > 0; step++) {
        /* 1: every person chooses a target cell */
        int nblk = (nact + BLOCK - 1) / BLOCK;
        #pragma omp parallel for reduction(+:waits)
        for (int bk = 0; bk < nblk; bk++)
        for (int i = bk * BLOCK; i < nact && i < (bk + 1) * BLOCK; i++) {
            int a = act[i], c = pos[a], x = c % W, y = c / W;
            target[a] = -1;
            if ((step * speed[a]) / 4 == ((step - 1) * speed[a]) / 4) continue;   /* resting */
            int dc = dist[c], best = -1, bestcost = 1 << 30;
            int side_ok = (hash2((unsigned)a, (unsigned)step) & 3) == 0;
            for (int k = 0; k < 8; k++) {
                int nx = x + DX[k], ny = y + DY[k];
                if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                int nc = ny * W + nx;
                if (dist[nc] < 0 || occ[nc] >= 0) continue;
                if (k >= 4 && (grid[y * W + nx] == '#' || grid[ny * W + x] == '#')) continue;
                if (dist[nc] > dc || (dist[nc] == dc && !side_ok)) continue;
                /* crowding around the candidate: occupied cells in its 5x5 window */
                int crowd = 0;
                for (int yy = ny - 2; yy <= ny + 2; yy++) {
                    if (yy < 0 || yy >= H) continue;
                    for (int xx = nx - 2; xx <= nx + 2; xx++)
                        if (xx >= 0 && xx < W && occ[yy * W + xx] >= 0) crowd++;
                }
                int cost = dist[nc] * 64 + crowd * 3 + (k >= 4 ? 2 : 0);
                if (cost < bestcost) { bestcost = cost; best = nc; }
            }
            target[a] = best;
            if (best < 0) waits++;
        }
        /* 2: a claim wins unless a lower id next to the same cell claims it too */
        #pragma omp parallel for
        for (int bk = 0; bk < nblk; bk++)
        for (int i = bk * BLOCK; i < nact && i < (bk + 1) * BLOCK; i++) {
            int a = act[i], t = target[a];
            win[a] = 0;
            if (t < 0) continue;
            int x = t % W, y = t / W, ok = 1;
            for (int k = 0; k < 8 && ok; k++) {
                int nx = x + DX[k], ny = y + DY[k];
                if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                int b = occ[ny * W + nx];
                if (b >= 0 && b < a && target[b] == t) ok = 0;
            }
            win[a] = (char)ok;
        }
        /* 3: winners move (their targets are distinct free cells) */
        #pragma omp parallel for reduction(+:waits)
        for (int bk = 0; bk < nblk; bk++)
        for (int i = bk * BLOCK; i < nact && i < (bk + 1) * BLOCK; i++) {
            int a = act[i];
            if (!win[a]) { if (target[a] >= 0) waits++; continue; }
            occ[pos[a]] = -1;
            pos[a] = target[a];
            occ[pos[a]] = a;
        }
        /* people on exit cells leave the building (in id order) */
        int m = 0;
        for (int i = 0; i < nact; i++) {
            int a = act[i];
            if (dist[pos[a]] == 0) {
                occ[pos[a]] = -1;
                res->per_exit[grid[pos[a]] - '0']++;
                res->out++;
                res->sum_time += step;
                while (nextq < 4 && res->out >= marks[nextq]) res->quart[nextq++] = step;
            } else {
                act[m++] = a;
            }
        }
        nact = m;
    }
    res->steps = nact == 0 ? step - 1 : -1;
    res->waits = waits;
    for (; nextq < 4; nextq++) res->quart[nextq] = -1;
    free(dist); free(occ); free(pos); free(target); free(act); free(win);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s plan.txt people.txt max_steps\n", argv[0]);
        return 2;
    }
    char *end;
    long max_steps = strtol(argv[3], &end, 10);
    if (*end || max_steps < 1 || max_steps > 10000000) {
        fprintf(stderr, "usage: %s plan.txt people.txt max_steps (1..10000000)\n", argv[0]);
        return 2;
    }
    if (load_plan(argv[1]) || load_people(argv[2])) return 1;
    int nexits[MAXEXIT + 1] = {0};
    for (int i = 0; i < W * H; i++)
        if (grid[i] >= '1' && grid[i] <= '0' + MAXEXIT) nexits[grid[i] - '0']++;
    printf("floor plan %dx%d, %d people, exit widths:", W, H, NP);
    for (int e = 1; e <= MAXEXIT; e++) printf(" %d", nexits[e]);
    printf("\n");
    for (int blocked = 0; blocked <= MAXEXIT; blocked++) {
        if (blocked && !nexits[blocked]) continue;
        Result r;
        evacuate(blocked, (int)max_steps, &r);
        if (blocked) printf("exit %d blocked:\n", blocked);
        else printf("all exits open:\n");
        if (r.steps >= 0) printf("  evacuation time %d steps", r.steps);
        else printf("  not finished after %ld steps, %d still inside", max_steps,
                    NP - r.stuck - r.out);
        printf(", %d trapped\n", r.stuck);
        printf("  out per exit:");
        for (int e = 1; e <= MAXEXIT; e++) printf(" %d", r.per_exit[e]);
        printf("\n  25/50/75/100%% out at steps %d %d %d %d, mean exit time %.2f, blocked moves %lld\n",
               r.quart[0], r.quart[1], r.quart[2], r.quart[3],
               r.out ? (double)r.sum_time / r.out : 0.0, r.waits);
    }
    return 0;
}
