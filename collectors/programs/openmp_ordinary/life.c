/*
 * life.c - Conway's Game of Life (or any Life-like B/S rule) on a torus.
 *
 * usage: life pattern.txt|pattern.rle width height generations [rule] [report_every]
 *
 * The starting pattern is read from a plain-text file ('.' dead, 'O' or '*'
 * alive, lines starting with '!' are comments) or from an RLE file (the
 * format used by most Life pattern collections, detected by the ".rle"
 * extension or an "x = ..." header line).  It is placed in the middle of a
 * width x height grid whose edges wrap around.  Every generation is computed
 * from the previous one into a second buffer (one parallel loop over rows).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    int w, h;
    unsigned char *cells;   /* w*h, 1 = alive */
} pattern_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s pattern width height generations [rule] [report_every]\n", prog);
    fprintf(stderr, "  pattern       plain text ('.'/'O' rows) or RLE file\n");
    fprintf(stderr, "  width height  grid size (wraps around at the edges)\n");
    fprintf(stderr, "  generations   number of generations to run\n");
    fprintf(stderr, "  rule          B.../S... rule, default B3/S23\n");
    fprintf(stderr, "  report_every  print the population every this many generations (default generations/10)\n");
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "B3/S23" -> birth[9], survive[9] */
static int parse_rule(const char *s, unsigned char *birth, unsigned char *survive)
{
    memset(birth, 0, 9);
    memset(survive, 0, 9);
    unsigned char *cur = NULL;
    int seen_b = 0, seen_s = 0;
    for (; *s; s++) {
        int c = toupper((unsigned char)*s);
        if (c == 'B') { cur = birth; seen_b = 1; }
        else if (c == 'S') { cur = survive; seen_s = 1; }
        else if (c == '/') { cur = NULL; }
        else if (c >= '0' && c <= '8' && cur) cur[c - '0'] = 1;
        else return -1;
    }
    return (seen_b && seen_s) ? 0 : -1;
}

static char *read_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 >= cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); buf = NULL; }
            else buf = nb;
        }
    }
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "out of memory reading '%s'", path);
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

static int load_plain(const char *path, char *text, pattern_t *p, char *err, size_t errlen)
{
    /* first pass: dimensions */
    int w = 0, h = 0, lineno = 0;
    for (char *s = text; *s; ) {
        char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        lineno++;
        if (n && s[n - 1] == '\r') n--;
        if (!(n > 0 && s[0] == '!')) {
            for (size_t i = 0; i < n; i++) {
                if (s[i] != '.' && s[i] != 'O' && s[i] != '*') {
                    snprintf(err, errlen, "'%s' line %d: unexpected character '%c'", path, lineno, s[i]);
                    return -1;
                }
            }
            if ((int)n > w) w = (int)n;
            h++;
        }
        s = e ? e + 1 : s + strlen(s);
    }
    if (w == 0 || h == 0) {
        snprintf(err, errlen, "'%s': empty pattern", path);
        return -1;
    }
    p->w = w; p->h = h;
    p->cells = calloc((size_t)w * h, 1);
    int y = 0;
    for (char *s = text; *s; ) {
        char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n && s[n - 1] == '\r') n--;
        if (!(n > 0 && s[0] == '!')) {
            for (size_t i = 0; i < n; i++)
                p->cells[(size_t)y * w + i] = (s[i] != '.');
            y++;
        }
        s = e ? e + 1 : s + strlen(s);
    }
    return 0;
}

static int load_rle(const char *path, char *text, pattern_t *p, char *err, size_t errlen)
{
    char *s = text;
    int w = -1, h = -1;
    /* skip comment lines, read the header */
    while (*s) {
        char *e = strchr(s, '\n');
        if (*s == '#') { s = e ? e + 1 : s + strlen(s); continue; }
        if (sscanf(s, " x = %d , y = %d", &w, &h) != 2) {
            snprintf(err, errlen, "'%s': missing or malformed RLE header", path);
            return -1;
        }
        s = e ? e + 1 : s + strlen(s);
        break;
    }
    if (w <= 0 || h <= 0 || w > 100000 || h > 100000) {
        snprintf(err, errlen, "'%s': bad RLE size", path);
        return -1;
    }
    p->w = w; p->h = h;
    p->cells = calloc((size_t)w * h, 1);
    int x = 0, y = 0, count = 0;
    for (; *s; s++) {
        int c = (unsigned char)*s;
        if (isdigit(c)) { count = count * 10 + (c - '0'); if (count > 1000000) break; continue; }
        if (isspace(c)) continue;
        int n = count ? count : 1;
        count = 0;
        if (c == '!') return 0;
        if (c == 'b' || c == 'o') {
            if (x + n > w || y >= h) {
                snprintf(err, errlen, "'%s': RLE data runs outside %dx%d", path, w, h);
                return -1;
            }
            if (c == 'o')
                memset(p->cells + (size_t)y * w + x, 1, n);
            x += n;
        } else if (c == '$') {
            y += n; x = 0;
        } else {
            snprintf(err, errlen, "'%s': unexpected character '%c' in RLE data", path, c);
            return -1;
        }
    }
    snprintf(err, errlen, "'%s': RLE data has no terminating '!'", path);
    return -1;
}

static int load_pattern(const char *path, pattern_t *p, char *err, size_t errlen)
{
    char *text = read_file(path, err, errlen);
    if (!text)
        return -1;
    size_t len = strlen(path);
    int rle = len > 4 && strcmp(path + len - 4, ".rle") == 0;
    for (char *s = text; *s && !rle; ) {
        if (*s != '#') { char *t = s; while (*t == ' ') t++; rle = (*t == 'x'); break; }
        char *e = strchr(s, '\n');
        s = e ? e + 1 : s + strlen(s);
    }
    int rc = rle ? load_rle(path, text, p, err, errlen) : load_plain(path, text, p, err, errlen);
    free(text);
    return rc;
}

static long count_live(const unsigned char *g, int w, int h)
{
    long live = 0;
#pragma omp parallel for reduction(+:live)
    for (int y = 0; y < h; y++) {
        const unsigned char *row = g + (size_t)y * w;
        for (int x = 0; x < w; x++)
            live += row[x];
    }
    return live;
}

/* one generation: src -> dst, rule as a 18-entry table indexed by alive*9+neighbours */
static long step(const unsigned char *src, unsigned char *dst, int w, int h, const unsigned char *table)
{
    long live = 0;
#pragma omp parallel for reduction(+:live)
    for (int y = 0; y < h; y++) {
        const unsigned char *up = src + (size_t)((y + h - 1) % h) * w;
        const unsigned char *mid = src + (size_t)y * w;
        const unsigned char *dn = src + (size_t)((y + 1) % h) * w;
        unsigned char *out = dst + (size_t)y * w;
        /* column sums of three rows, sliding along x */
        int left = up[w - 1] + mid[w - 1] + dn[w - 1];
        int here = up[0] + mid[0] + dn[0];
        for (int x = 0; x < w; x++) {
            int xr = (x + 1 == w) ? 0 : x + 1;
            int right = up[xr] + mid[xr] + dn[xr];
            int alive = mid[x];
            int nb = left + here + right - alive;
            unsigned char v = table[alive * 9 + nb];
            out[x] = v;
            live += v;
            left = here;
            here = right;
        }
    }
    return live;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) {
        usage(argv[0]);
        return 2;
    }
    long w, h, gens, every = 0;
    if (parse_int(argv[2], 3, 20000, &w) || parse_int(argv[3], 3, 20000, &h) ||
        parse_int(argv[4], 0, 100000000, &gens)) {
        usage(argv[0]);
        return 2;
    }
    unsigned char birth[9], survive[9];
    const char *rule = argc > 5 ? argv[5] : "B3/S23";
    if (parse_rule(rule, birth, survive)) {
        fprintf(stderr, "%s: bad rule '%s' (expected something like B3/S23)\n", argv[0], rule);
        return 2;
    }
    if (argc > 6 && parse_int(argv[6], 1, 100000000, &every)) {
        usage(argv[0]);
        return 2;
    }
    if (every == 0)
        every = gens >= 10 ? gens / 10 : 1;

    char err[512];
    pattern_t pat;
    if (load_pattern(argv[1], &pat, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", argv[0], err);
        return 1;
    }
    if (pat.w > w || pat.h > h) {
        fprintf(stderr, "%s: pattern is %dx%d, larger than the %ldx%ld grid\n", argv[0], pat.w, pat.h, w, h);
        return 1;
    }

    unsigned char table[18];
    for (int n = 0; n < 9; n++) {
        table[n] = birth[n];
        table[9 + n] = survive[n];
    }

    size_t ncell = (size_t)w * h;
    unsigned char *a = malloc(ncell), *b = malloc(ncell);
    if (!a || !b) {
        fprintf(stderr, "%s: out of memory for a %ldx%ld grid\n", argv[0], w, h);
        return 1;
    }
    memset(a, 0, ncell);
    int ox = (int)(w - pat.w) / 2, oy = (int)(h - pat.h) / 2;
    for (int y = 0; y < pat.h; y++)
        memcpy(a + (size_t)(oy + y) * w + ox, pat.cells + (size_t)y * pat.w, pat.w);

    long pop0 = count_live(a, (int)w, (int)h);
    printf("pattern %s: %dx%d, %ld live cells, rule %s, grid %ldx%ld (torus)\n",
           argv[1], pat.w, pat.h, pop0, rule, w, h);

    long pop = pop0, peak = pop0, peak_gen = 0;
    for (long g = 1; g <= gens; g++) {
        pop = step(a, b, (int)w, (int)h, table);
        unsigned char *t = a; a = b; b = t;
        if (pop > peak) { peak = pop; peak_gen = g; }
        if (g % every == 0 || g == gens)
            printf("generation %6ld: %ld live\n", g, pop);
    }

    /* bounding box of the live cells (on the unwrapped grid) */
    int minx = (int)w, maxx = -1, miny = (int)h, maxy = -1;
#pragma omp parallel for reduction(min:minx, miny) reduction(max:maxx, maxy)
    for (int y = 0; y < (int)h; y++) {
        const unsigned char *row = a + (size_t)y * w;
        for (int x = 0; x < (int)w; x++) {
            if (row[x]) {
                if (x < minx) minx = x;
                if (x > maxx) maxx = x;
                if (y < miny) miny = y;
                if (y > maxy) maxy = y;
            }
        }
    }
    printf("final population: %ld (start %ld, peak %ld at generation %ld)\n", pop, pop0, peak, peak_gen);
    if (maxx < 0)
        printf("bounding box: empty\n");
    else
        printf("bounding box: x %d..%d, y %d..%d (%d x %d)\n", minx, maxx, miny, maxy,
               maxx - minx + 1, maxy - miny + 1);
    free(a);
    free(b);
    free(pat.cells);
    return 0;
}
