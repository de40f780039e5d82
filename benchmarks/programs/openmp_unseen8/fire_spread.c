/*
 * fire_spread - deterministic forest-fire cellular automaton.
 *
 * Map file: first line "<rows> <cols>", then <rows> lines of <cols> chars:
 *   '1'..'9'  forest, the digit is the fuel load
 *   '.'       grass (light fuel)
 *   '#'       rock (does not burn)
 *   '~'       water (does not burn, cools its neighbours)
 *   '*'       forest that is burning at step 0 (ignition point)
 *
 * An unburnt cell collects heat from burning neighbours every step, more from
 * the upwind side, loses a little to the air (and more next to water) and
 * ignites once its heat passes a threshold that grows with its fuel load.
 * A burning cell consumes one unit of fuel per step and then burns out.
 *
 * usage: fire_spread <map-file> <wind-dir N|NE|E|SE|S|SW|W|NW|calm> <wind-strength 0-6> <max-steps>
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UNBURNT = 0, BURNING = 1, BURNT = 2, INERT = 3 };

/* the grid is stored with a one-cell inert border so that every interior
   cell has eight neighbours; fields are kept in separate arrays */
typedef struct {
    int rows, cols, stride;
    unsigned char *state;   /* UNBURNT / BURNING / BURNT / INERT */
    short *fuel;            /* remaining fuel units */
    int *heat;              /* accumulated heat */
} layer_t;

#define FUEL_PER_LEVEL 300
#define GRASS_FUEL 60
#define IGNITION_HEAT 1500

static const int DR[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
static const int DC[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const char *DIRS[8] = {"N", "NE", "E", "SE", "S", "SW", "W", "NW"};

static void __attribute__((noreturn)) usage(const char *prog)
{
    fprintf(stderr, "usage: %s <map-file> <wind-dir N|NE|E|SE|S|SW|W|NW|calm> "
                    "<wind-strength 0-6> <max-steps>\n", prog);
    exit(2);
}

static void __attribute__((noreturn)) bad_map(const char *path, int line, const char *why)
{
    fprintf(stderr, "fire_spread: %s:%d: %s\n", path, line, why);
    exit(1);
}

static void alloc_layer(layer_t *L, int rows, int cols)
{
    size_t n = (size_t)(rows + 2) * (cols + 2);
    L->rows = rows;
    L->cols = cols;
    L->stride = cols + 2;
    L->state = malloc(n);
    L->fuel = calloc(n, sizeof *L->fuel);
    L->heat = calloc(n, sizeof *L->heat);
    if (!L->state || !L->fuel || !L->heat) {
        fprintf(stderr, "fire_spread: out of memory\n");
        exit(1);
    }
    memset(L->state, INERT, n);
}

/* reads the map into L; water cells are flagged in *water_out */
static void load_map(const char *path, layer_t *L, unsigned char **water_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "fire_spread: cannot open map file '%s'\n", path);
        exit(1);
    }
    int rows = 0, cols = 0;
    char tail;
    char buf[1100];
    if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%d %d %c", &rows, &cols, &tail) != 2 ||
        rows < 3 || cols < 3 || rows > 1000 || cols > 1000)
        bad_map(path, 1, "expected '<rows> <cols>' header");
    alloc_layer(L, rows, cols);
    unsigned char *water = calloc((size_t)(rows + 2) * (cols + 2), 1);
    if (!water) {
        fprintf(stderr, "fire_spread: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < rows; r++) {
        if (!fgets(buf, sizeof buf, f)) bad_map(path, r + 2, "map ends early");
        size_t len = strcspn(buf, "\r\n");
        if ((int)len != cols) bad_map(path, r + 2, "row has the wrong width");
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)(r + 1) * L->stride + c + 1;
            char ch = buf[c];
            if (ch >= '1' && ch <= '9') {
                L->state[i] = UNBURNT; L->fuel[i] = (short)((ch - '0') * FUEL_PER_LEVEL);
            } else if (ch == '*') {
                L->state[i] = BURNING; L->fuel[i] = 5 * FUEL_PER_LEVEL;
            } else if (ch == '.') {
                L->state[i] = UNBURNT; L->fuel[i] = GRASS_FUEL;
            } else if (ch == '#') {
                L->state[i] = INERT;
            } else if (ch == '~') {
                L->state[i] = INERT; water[i] = 1;
            } else {
                bad_map(path, r + 2, "unknown map symbol");
            }
        }
    }
    fclose(f);
    *water_out = water;
}

int main(int argc, char **argv)
{
    if (argc != 5) usage(argv[0]);

    int wind_dir = -1;
    for (int d = 0; d < 8; d++)
        if (strcmp(argv[2], DIRS[d]) == 0) wind_dir = d;
    if (wind_dir < 0 && strcmp(argv[2], "calm") != 0) usage(argv[0]);

    char *end;
    errno = 0;
    long strength = strtol(argv[3], &end, 10);
    if (errno || *end || end == argv[3] || strength < 0 || strength > 6) usage(argv[0]);
    errno = 0;
    long max_steps = strtol(argv[4], &end, 10);
    if (errno || *end || end == argv[4] || max_steps < 1 || max_steps > 10000000L) usage(argv[0]);
    if (wind_dir < 0) strength = 0;

    layer_t cur, next;
    unsigned char *water;
    load_map(argv[1], &cur, &water);
    const int rows = cur.rows, cols = cur.cols, W = cur.stride;
    const size_t ncell = (size_t)(rows + 2) * W;
    alloc_layer(&next, rows, cols);
    memcpy(next.state, cur.state, ncell);

    /* heat a burning neighbour in direction d (seen from the receiving cell)
       passes on: the wind blows towards wind_dir, so a neighbour lying
       upwind of the receiver (direction opposite to wind_dir) gives most */
    int weight[8];
    for (int d = 0; d < 8; d++) {
        int base = (d % 2 == 0) ? 4 : 3;          /* edge vs corner contact */
        int w = base;
        if (wind_dir >= 0) {
            int rel = (d - (wind_dir + 4) + 16) % 8; /* 0 = straight upwind */
            static const int gain[8] = {3, 2, 0, -1, -2, -1, 0, 2};
            w = base + (int)strength * gain[rel] / 2;
            if (w < 0) w = 0;
        }
        weight[d] = w;
    }
    int off[8];
    for (int d = 0; d < 8; d++) off[d] = DR[d] * W + DC[d];

    /* per-cell constants: heat lost each step (air plus adjacent water) and
       the ignition threshold, which grows with the fuel load */
    int *loss = calloc(ncell, sizeof *loss);
    int *threshold = calloc(ncell, sizeof *threshold);
    int *ignited = malloc(ncell * sizeof *ignited);
    if (!loss || !threshold || !ignited) {
        fprintf(stderr, "fire_spread: out of memory\n");
        return 1;
    }
    int burnable = 0, burning = 0, burnt = 0;
    for (int r = 1; r <= rows; r++) {
        for (int c = 1; c <= cols; c++) {
            size_t i = (size_t)r * W + c;
            int wet = 0;
            for (int d = 0; d < 8; d++) wet += water[i + off[d]];
            loss[i] = 1 + wet;
            threshold[i] = IGNITION_HEAT + cur.fuel[i];
            burnable += cur.state[i] != INERT;
            burning += cur.state[i] == BURNING;
        }
    }
    for (size_t i = 0; i < ncell; i++) ignited[i] = cur.state[i] == BURNING ? 0 : -1;

    printf("map %dx%d, %d burnable cells, wind %s %ld, step limit %ld\n",
           rows, cols, burnable, wind_dir < 0 ? "calm" : DIRS[wind_dir], strength, max_steps);
    printf("%8s %9s %9s %9s\n", "step", "burning", "burnt", "affected");

    long checkpoint = max_steps / 20 > 0 ? max_steps / 20 : 1;
    long step = 0;

    while (step < max_steps && burning > 0) {
        int nb = 0, nt = 0;
        const int s1 = (int)(step + 1);
        const unsigned char *st = cur.state;
        const short *fu = cur.fuel;
        const int *he = cur.heat;
        unsigned char *nst = next.state;
        short *nfu = next.fuel;
        int *nhe = next.heat;

        #pragma omp parallel for reduction(+:nb, nt)
        for (int r = 1; r <= rows; r++) {
            for (int c = 1; c <= cols; c++) {
                size_t i = (size_t)r * W + c;
                unsigned char s = st[i];
                int fuel = fu[i], heat = he[i];
                if (s == BURNING) {
                    fuel--;
                    if (fuel <= 0) { fuel = 0; s = BURNT; }
                } else if (s == UNBURNT) {
                    int gain = 0;
                    for (int d = 0; d < 8; d++)
                        gain += (st[i + off[d]] == BURNING) ? weight[d] : 0;
                    heat += gain - loss[i];
                    if (heat < 0) heat = 0;
                    if (heat >= threshold[i]) {
                        s = BURNING;
                        ignited[i] = s1;
                    }
                }
                nst[i] = s;
                nfu[i] = (short)fuel;
                nhe[i] = heat;
                nb += s == BURNING;
                nt += s == BURNT;
            }
        }

        layer_t tmp = cur; cur = next; next = tmp;
        step = s1;
        burning = nb;
        burnt = nt;
        if (step % checkpoint == 0)
            printf("%8ld %9d %9d %8.2f%%\n", step, burning, burnt,
                   100.0 * (burning + burnt) / burnable);
    }

    int last_r = -1, last_c = -1, last_step = -1;
    for (int r = 1; r <= rows; r++)
        for (int c = 1; c <= cols; c++)
            if (ignited[(size_t)r * W + c] > last_step) {
                last_step = ignited[(size_t)r * W + c];
                last_r = r - 1;
                last_c = c - 1;
            }

    if (burning == 0)
        printf("fire burnt out after %ld steps\n", step);
    else
        printf("step limit reached with %d cells still burning\n", burning);
    printf("burnt share: %.2f%% of burnable cells (%d of %d), %d still burning\n",
           100.0 * burnt / burnable, burnt, burnable, burning);
    if (last_r >= 0)
        printf("last cell to ignite: row %d col %d at step %d\n", last_r, last_c, last_step);

    free(cur.state); free(cur.fuel); free(cur.heat);
    free(next.state); free(next.fuel); free(next.heat);
    free(water); free(loss); free(threshold); free(ignited);
    return 0;
}
