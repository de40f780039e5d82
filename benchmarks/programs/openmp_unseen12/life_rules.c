/*
 * life_rules.c - run several Life-like cellular automata on a 640x480 torus.
 *
 * Usage: life_rules <rule file> <pattern file> <generations>
 *
 * The rule file lists rules in B/S notation (e.g. B3/S23), one per line,
 * optionally followed by a name; '#' starts a comment line.  The pattern file
 * starts with "width height" followed by rows of '.' and 'O'; the pattern is
 * placed in the middle of the torus.  Every rule starts from the same pattern
 * and runs for the given number of generations.  The program prints the
 * population every 50 generations and the final bounding box of each rule.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 640
#define H 480
#define MAX_RULES 64

typedef struct {
    char text[32];
    char name[64];
    unsigned char born[9];
    unsigned char survive[9];
} Rule;

static int parse_rule(const char *s, Rule *r)
{
    memset(r->born, 0, 9);
    memset(r->survive, 0, 9);
    if (toupper((unsigned char)*s) != 'B')
        return 0;
    s++;
    while (*s >= '0' && *s <= '8')
        r->born[*s++ - '0'] = 1;
    if (*s++ != '/')
        return 0;
    if (toupper((unsigned char)*s) != 'S')
        return 0;
    s++;
    while (*s >= '0' && *s <= '8')
        r->survive[*s++ - '0'] = 1;
    return *s == '\0';
}

static int load_rules(const char *path, Rule *rules, int *nrules)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "life_rules: cannot open %s\n", path);
        return 0;
    }
    char line[256];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (*s == '#' || *s == '\n' || *s == '\r' || *s == '\0')
            continue;
        char tok[32];
        int used;
        if (sscanf(s, "%31s%n", tok, &used) != 1 || n == MAX_RULES || !parse_rule(tok, &rules[n])) {
            fprintf(stderr, "life_rules: %s:%d: not a B/S rule\n", path, lineno);
            fclose(f);
            return 0;
        }
        strcpy(rules[n].text, tok);
        char *name = s + used;
        while (*name == ' ' || *name == '\t') name++;
        size_t l = strcspn(name, "\r\n");
        if (l > sizeof rules[n].name - 1)
            l = sizeof rules[n].name - 1;
        memcpy(rules[n].name, name, l);
        rules[n].name[l] = '\0';
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "life_rules: %s: no rules\n", path);
        return 0;
    }
    *nrules = n;
    return 1;
}

static int load_pattern(const char *path, unsigned char *grid)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "life_rules: cannot open %s\n", path);
        return 0;
    }
    int pw, ph;
    if (fscanf(f, "%d %d", &pw, &ph) != 2 || pw < 1 || ph < 1 || pw > W || ph > H) {
        fprintf(stderr, "life_rules: %s: bad header (need \"width height\" up to %dx%d)\n", path, W, H);
        fclose(f);
        return 0;
    }
    int c;
    while ((c = fgetc(f)) != '\n' && c != EOF)
        ;
    memset(grid, 0, W * H);
    int ox = (W - pw) / 2, oy = (H - ph) / 2;
    char *line = malloc((size_t)pw + 8);
    for (int y = 0; y < ph; y++) {
        if (!fgets(line, pw + 8, f) || (int)strcspn(line, "\r\n") != pw) {
            fprintf(stderr, "life_rules: %s: row %d missing or not %d cells long\n", path, y + 1, pw);
            free(line);
            fclose(f);
            return 0;
        }
        for (int x = 0; x < pw; x++) {
            if (line[x] == 'O')
                grid[(oy + y) * W + ox + x] = 1;
            else if (line[x] != '.') {
                fprintf(stderr, "life_rules: %s: row %d: bad cell character '%c'\n", path, y + 1, line[x]);
                free(line);
                fclose(f);
                return 0;
            }
        }
    }
    free(line);
    fclose(f);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s <rule file> <pattern file> <generations>\n", argv[0]);
        return 2;
    }
    char *end;
    long gens = strtol(argv[3], &end, 10);
    if (*end != '\0' || gens < 0 || gens > 1000000) {
        fprintf(stderr, "usage: %s <rule file> <pattern file> <generations>  (generations: 0..1000000)\n", argv[0]);
        return 2;
    }
    static Rule rules[MAX_RULES];
    int nrules;
    if (!load_rules(argv[1], rules, &nrules))
        return 1;
    unsigned char *start = malloc(W * H);
    unsigned char *cur = malloc(W * H);
    unsigned char *next = malloc(W * H);
    if (!start || !cur || !next) {
        fprintf(stderr, "life_rules: out of memory\n");
        return 1;
    }
    if (!load_pattern(argv[2], start))
        return 1;
    long pop0 = 0;
    for (int i = 0; i < W * H; i++)
        pop0 += start[i];
    printf("torus %dx%d, initial population %ld, %ld generations per rule\n", W, H, pop0, gens);

    for (int r = 0; r < nrules; r++) {
        const Rule *rule = &rules[r];
        unsigned char table[2][9];
        memcpy(table[0], rule->born, 9);
        memcpy(table[1], rule->survive, 9);
        memcpy(cur, start, W * H);
        printf("rule %s%s%s%s\n", rule->text, rule->name[0] ? " (" : "", rule->name, rule->name[0] ? ")" : "");
        printf("  population:");
        long pop = pop0;
        printf(" %ld", pop);
        for (long g = 1; g <= gens; g++) {
            pop = 0;
#pragma omp parallel for reduction(+:pop)
            for (int y = 0; y < H; y++) {
                const unsigned char *up = cur + ((y + H - 1) % H) * W;
                const unsigned char *mid = cur + y * W;
                const unsigned char *dn = cur + ((y + 1) % H) * W;
                unsigned char *out = next + y * W;
                long rowpop = 0;
                for (int x = 0; x < W; x++) {
                    int xl = x == 0 ? W - 1 : x - 1;
                    int xr = x == W - 1 ? 0 : x + 1;
                    int n = up[xl] + up[x] + up[xr] + mid[xl] + mid[xr] + dn[xl] + dn[x] + dn[xr];
                    unsigned char v = table[mid[x]][n];
                    out[x] = v;
                    rowpop += v;
                }
                pop += rowpop;
            }
            unsigned char *t = cur;
            cur = next;
            next = t;
            if (g % 50 == 0)
                printf(" %ld", pop);
        }
        printf("\n");
        int minx = W, maxx = -1, miny = H, maxy = -1;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (cur[y * W + x]) {
                    if (x < minx) minx = x;
                    if (x > maxx) maxx = x;
                    if (y < miny) miny = y;
                    if (y > maxy) maxy = y;
                }
        if (maxx < 0)
            printf("  final: population 0, no live cells\n");
        else
            printf("  final: population %ld, bounding box x %d..%d, y %d..%d (%d x %d)\n",
                   pop, minx, maxx, miny, maxy, maxx - minx + 1, maxy - miny + 1);
    }
    free(start);
    free(cur);
    free(next);
    return 0;
}
