/* game_of_life: Conway's Game of Life (B3/S23) on an N x N byte grid with dead borders, random soup plus Gosper glider guns.
 * Category: cellular automaton (uniform integer work: a row loop for the next generation and a row loop with an integer reduction per generation).
 * Sizes: MIRTUNE_SIZE=1 -> N=1024, 600 generations; MIRTUNE_SIZE=2 -> N=2048, 600 generations. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 2048
#define GENS 600
#else
#define N 1024
#define GENS 600
#endif
#define W (N + 2) /* row stride including the dead border */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static unsigned long long xorshift64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Gosper glider gun, 36 x 9 cells. */
static const char *gun[9] = {
    "........................O...........",
    "......................O.O...........",
    "............OO......OO............OO",
    "...........O...O....OO............OO",
    "OO........O.....O...OO..............",
    "OO........O...O.OO....O.O...........",
    "..........O.....O.......O...........",
    "...........O...O....................",
    "............OO......................",
};

static void place_gun(unsigned char *g, int top, int left)
{
    for (int r = -3; r < 12; r++) /* clear a margin around the gun */
        for (int c = -3; c < 39; c++)
            g[(long)(top + r) * W + left + c] = 0;
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 36; c++)
            g[(long)(top + r) * W + left + c] = (unsigned char)(gun[r][c] == 'O');
}

int main(void)
{
    unsigned char *cur = calloc((size_t)W * W, 1);
    unsigned char *nxt = calloc((size_t)W * W, 1);
    long long *history = malloc(sizeof(long long) * GENS);
    if (!cur || !nxt || !history)
        return 1;

    /* Random soup with about 30% live cells (rows and columns 1..N hold the board). */
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++)
            cur[(long)i * W + j] = (unsigned char)((xorshift64() >> 33) % 10 < 3);
    /* A few glider guns in the upper-left quarter. */
    for (int k = 0; k < 4; k++)
        place_gun(cur, 8 + 40 * k, 8 + 60 * k);

    for (int g = 0; g < GENS; g++) {
#pragma omp parallel for
        for (int i = 1; i <= N; i++) {
            const unsigned char *up = cur + (long)(i - 1) * W;
            const unsigned char *mid = cur + (long)i * W;
            const unsigned char *dn = cur + (long)(i + 1) * W;
            unsigned char *out = nxt + (long)i * W;
            for (int j = 1; j <= N; j++) {
                const int n = up[j - 1] + up[j] + up[j + 1] + mid[j - 1] + mid[j + 1]
                              + dn[j - 1] + dn[j] + dn[j + 1];
                out[j] = (unsigned char)((n == 3) | (mid[j] & (n == 2)));
            }
        }

        long long live = 0;
#pragma omp parallel for reduction(+:live)
        for (int i = 1; i <= N; i++) {
            const unsigned char *row = nxt + (long)i * W;
            int rowcount = 0;
            for (int j = 1; j <= N; j++)
                rowcount += row[j];
            live += rowcount;
        }
        history[g] = live;

        unsigned char *tmp = cur;
        cur = nxt;
        nxt = tmp;
    }

    /* Sequential checksum: the population history plus an FNV-1a hash of the final board. */
    unsigned long long h = 1469598103934665603ULL;
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++) {
            h ^= (unsigned long long)cur[(long)i * W + j] * (unsigned long long)(1 + ((i * 31 + j) & 255));
            h *= 1099511628211ULL;
        }
    long long sum = 0;
    for (int g = 0; g < GENS; g++)
        sum += history[g] * (long long)(g + 1);
    printf("checksum: %lld\n", sum + (long long)(h & 0xFFFFFFFFULL));
    free(cur); free(nxt); free(history);
    return 0;
}
