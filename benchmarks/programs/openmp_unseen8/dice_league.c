/*
 * dice_league - Monte Carlo season simulator for a dice-driven league.
 *
 * Each team is described by an attack value (number of six-sided dice it
 * rolls to create chances) and a defence value (a chance only becomes a goal
 * if the finishing die beats the opponent's defence).  The home side rolls
 * one extra attack die.  A season is a double round robin; the table is
 * ordered by points, goal difference, goals scored and finally a deciding
 * coin toss.
 *
 * usage: dice_league <league-file> <seasons> <seed>
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEAMS 32
#define NAME_LEN 32

typedef struct {
    char name[NAME_LEN];
    int attack;
    int defence;
} team_t;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s <league-file> <seasons> <seed>\n", prog);
    exit(2);
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* a stream of d6 rolls: each 64-bit draw is consumed six faces at a time
   by multiply-and-carry, refilled every eight dice */
typedef struct {
    uint64_t state;
    uint64_t bits;
    int left;
} dice_t;

static inline int roll_d6(dice_t *d)
{
    if (d->left == 0) {
        d->bits = splitmix(&d->state);
        d->left = 8;
    }
    d->left--;
    unsigned __int128 r = (unsigned __int128)d->bits * 6u;
    d->bits = (uint64_t)r;
    return 1 + (int)(r >> 64);
}

/* goals scored by a side with `dice` attack dice against defence `def` */
static int attack_goals(dice_t *d, int dice, int def)
{
    int goals = 0;
    for (int k = 0; k < dice; k++) {
        if (roll_d6(d) >= 5 && roll_d6(d) > def)
            goals++;
    }
    return goals;
}

static int load_league(const char *path, team_t *teams)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "dice_league: cannot open league file '%s'\n", path);
        exit(1);
    }
    char line[256];
    int n = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p)) p++;
        if (*p == '\0' || *p == '#') continue;
        char name[NAME_LEN + 1];
        int att, def;
        char extra[2];
        if (sscanf(p, "%32s %d %d %1s", name, &att, &def, extra) != 3 ||
            strlen(name) >= NAME_LEN || att < 1 || att > 12 || def < 1 || def > 5) {
            fprintf(stderr, "dice_league: %s:%d: malformed team line\n", path, lineno);
            fclose(f);
            exit(1);
        }
        if (n == MAX_TEAMS) {
            fprintf(stderr, "dice_league: %s: more than %d teams\n", path, MAX_TEAMS);
            fclose(f);
            exit(1);
        }
        strcpy(teams[n].name, name);
        teams[n].attack = att;
        teams[n].defence = def;
        n++;
    }
    fclose(f);
    if (n < 2) {
        fprintf(stderr, "dice_league: %s: need at least two teams\n", path);
        exit(1);
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) usage(argv[0]);

    char *end;
    errno = 0;
    long seasons = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || seasons < 1 || seasons > 100000000L)
        usage(argv[0]);
    errno = 0;
    unsigned long long seed = strtoull(argv[3], &end, 10);
    if (errno || *end || end == argv[3] || argv[3][0] == '-')
        usage(argv[0]);

    static team_t teams[MAX_TEAMS];
    int nt = load_league(argv[1], teams);
    int max_pts = 6 * (nt - 1);
    int nbins = max_pts + 1;

    long long *titles = calloc(nt, sizeof *titles);
    long long *wins = calloc(nt, sizeof *wins);
    long long *draws = calloc(nt, sizeof *draws);
    long long *goals_for = calloc(nt, sizeof *goals_for);
    long long *points_total = calloc(nt, sizeof *points_total);
    long long *hist = calloc((size_t)nt * nbins, sizeof *hist);
    if (!titles || !wins || !draws || !goals_for || !points_total || !hist) {
        fprintf(stderr, "dice_league: out of memory\n");
        return 1;
    }

    #pragma omp parallel for
    for (long s = 0; s < seasons; s++) {
        dice_t rng = { (uint64_t)seed * 0xD1342543DE82EF95ULL + (uint64_t)s, 0, 0 };
        splitmix(&rng.state);
        int pts[MAX_TEAMS] = {0}, gd[MAX_TEAMS] = {0}, gf[MAX_TEAMS] = {0};

        for (int h = 0; h < nt; h++) {
            for (int a = 0; a < nt; a++) {
                if (h == a) continue;
                int gh = attack_goals(&rng, teams[h].attack + 1, teams[a].defence);
                int ga = attack_goals(&rng, teams[a].attack, teams[h].defence);
                gf[h] += gh; gf[a] += ga;
                gd[h] += gh - ga; gd[a] += ga - gh;
                if (gh > ga) {
                    pts[h] += 3;
                    #pragma omp atomic
                    wins[h]++;
                } else if (ga > gh) {
                    pts[a] += 3;
                    #pragma omp atomic
                    wins[a]++;
                } else {
                    pts[h]++; pts[a]++;
                    #pragma omp atomic
                    draws[h]++;
                    #pragma omp atomic
                    draws[a]++;
                }
                #pragma omp atomic
                goals_for[h] += gh;
                #pragma omp atomic
                goals_for[a] += ga;
            }
        }

        /* champion: points, goal difference, goals for, then a coin toss */
        int champ = 0;
        for (int t = 1; t < nt; t++) {
            int better;
            if (pts[t] != pts[champ]) better = pts[t] > pts[champ];
            else if (gd[t] != gd[champ]) better = gd[t] > gd[champ];
            else if (gf[t] != gf[champ]) better = gf[t] > gf[champ];
            else better = roll_d6(&rng) > 3;
            if (better) champ = t;
        }
        #pragma omp atomic
        titles[champ]++;
        for (int t = 0; t < nt; t++) {
            #pragma omp atomic
            hist[(size_t)t * nbins + pts[t]]++;
            #pragma omp atomic
            points_total[t] += pts[t];
        }
    }

    long games = 2L * (nt - 1);
    printf("league: %d teams, %ld seasons of %ld matches, seed %llu\n",
           nt, seasons, (long)nt * (nt - 1), seed);
    printf("%-16s %3s %3s %8s %8s %6s %6s %6s %6s  %s\n", "team", "att", "def",
           "title%", "avg pts", "W", "D", "L", "GF", "p10/p50/p90");
    for (int t = 0; t < nt; t++) {
        double ns = (double)seasons;
        double w = wins[t] / ns, d = draws[t] / ns;
        int pct[3] = {-1, -1, -1};
        const int tenths[3] = {1, 5, 9};
        long long cum = 0;
        for (int p = 0; p < nbins; p++) {
            cum += hist[(size_t)t * nbins + p];
            for (int k = 0; k < 3; k++)
                if (pct[k] < 0 && cum * 10 >= (long long)seasons * tenths[k]) pct[k] = p;
        }
        printf("%-16s %3d %3d %8.3f %8.3f %6.2f %6.2f %6.2f %6.2f  %d/%d/%d\n",
               teams[t].name, teams[t].attack, teams[t].defence,
               100.0 * titles[t] / ns, points_total[t] / ns,
               w, d, games - w - d, goals_for[t] / ns, pct[0], pct[1], pct[2]);
    }

    /* league-wide points histogram in bands of 6 points */
    printf("points distribution (all teams, bands of 6):\n");
    long long total = (long long)seasons * nt;
    for (int lo = 0; lo <= max_pts; lo += 6) {
        long long c = 0;
        for (int t = 0; t < nt; t++)
            for (int p = lo; p < lo + 6 && p <= max_pts; p++)
                c += hist[(size_t)t * nbins + p];
        if (c == 0) continue;
        int bar = (int)((c * 60 + total / 2) / total);
        printf("  %3d-%-3d %7.3f%% ", lo, lo + 5 > max_pts ? max_pts : lo + 5, 100.0 * c / total);
        for (int b = 0; b < bar; b++) putchar('#');
        putchar('\n');
    }

    free(titles); free(wins); free(draws); free(goals_for);
    free(points_total); free(hist);
    return 0;
}
