/* knapsack: 0/1 knapsack by dynamic programming over items, best[c] = max(best[c], best[c - w_i] + v_i), with traceback.
 * Category: dynamic programming (one short parallel region per item over blocks of capacities; many uniform regions).
 * Sizes: MIRTUNE_SIZE=1 -> 2 instances of 1800 items, capacity 100000; MIRTUNE_SIZE=2 -> 2 instances of 2000 items, capacity 360000. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NINST 2
#define NITEMS 2000
#define CAP 360000
#else
#define NINST 2
#define NITEMS 1800
#define CAP 100000
#endif
#define CBLOCK 256 /* capacities per loop iteration, a multiple of 64 */

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;

static unsigned int next_u32(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned int)(rng_state >> 32);
}

int main(void)
{
    const int n = NITEMS;
    const int cap = CAP;
    const int words = (cap + 1 + 63) / 64;        /* decision bits per item */
    const int nblocks = (cap + CBLOCK) / CBLOCK;  /* blocks covering 0..cap */
    int *weight = malloc(sizeof(int) * n);
    long long *value = malloc(sizeof(long long) * n);
    long long *old_row = malloc(sizeof(long long) * (cap + 1));
    long long *new_row = malloc(sizeof(long long) * (cap + 1));
    uint64_t *take_bits = malloc(sizeof(uint64_t) * (size_t)n * (size_t)words);
    if (!weight || !value || !old_row || !new_row || !take_bits)
        return 1;

    unsigned long long check = 0;
    for (int inst = 0; inst < NINST; inst++) {
        /* Items: weights mostly between 1% and 4% of the capacity, every 17th tiny;
         * values roughly proportional to weight with noise. */
        for (int i = 0; i < n; i++) {
            unsigned int r = next_u32();
            int w;
            if (i % 17 == 0)
                w = 1 + (int)(r % 50u);
            else
                w = cap / 100 + (int)(r % (unsigned int)(cap / 33));
            weight[i] = w;
            value[i] = (long long)w * (900 + (long long)(next_u32() % 300u)) / 100
                       + (long long)(next_u32() % 97u);
        }

        /* Row of the empty item set: best value is 0 for every capacity. */
#pragma omp parallel for
        for (int c = 0; c <= cap; c++)
            old_row[c] = 0;

        /* One dynamic programming row per item (sequential over items). Each block of
         * CBLOCK capacities also records which capacities take item i (for the traceback). */
        for (int i = 0; i < n; i++) {
            const int w = weight[i];
            const long long v = value[i];
            uint64_t *bits_i = take_bits + (size_t)i * (size_t)words;
#pragma omp parallel for firstprivate(w, v)
            for (int b = 0; b < nblocks; b++) {
                const int c0 = b * CBLOCK;
                const int c1 = (c0 + CBLOCK <= cap + 1) ? c0 + CBLOCK : cap + 1;
                for (int g = c0; g < c1; g += 64) {
                    const int ge = (g + 64 < c1) ? g + 64 : c1;
                    uint64_t bits = 0;
                    for (int c = g; c < ge; c++) {
                        long long best = old_row[c];
                        if (c >= w && old_row[c - w] + v > best) {
                            best = old_row[c - w] + v;
                            bits |= (uint64_t)1 << (c - g);
                        }
                        new_row[c] = best;
                    }
                    bits_i[g / 64] = bits;
                }
            }
            long long *tmp = old_row;
            old_row = new_row;
            new_row = tmp;
        }

        /* old_row now holds the final row: a few integer statistics over it. */
        long long row_sum = 0;
        long long steps = 0;
#pragma omp parallel for reduction(+:row_sum, steps)
        for (int c = 0; c <= cap; c++) {
            row_sum += old_row[c] % 1000003;
            if (c > 0 && old_row[c] != old_row[c - 1])
                steps++;
        }

        /* Sequential traceback of the chosen items. */
        int c = cap;
        long long chosen = 0, chosen_hash = 0, chosen_value = 0;
        for (int i = n - 1; i >= 0; i--) {
            if ((take_bits[(size_t)i * (size_t)words + (size_t)(c / 64)] >> (c % 64)) & 1u) {
                chosen++;
                chosen_hash = (chosen_hash * 31 + i) % 1000000007LL;
                chosen_value += value[i];
                c -= weight[i];
            }
        }
        const long long best = old_row[cap];
        if (chosen_value != best)
            check += 1000000000000ULL; /* traceback disagrees with the table */
        check = check * 1000003ULL + (unsigned long long)(best * 7 + row_sum * 3 + steps)
                + (unsigned long long)(chosen * 101 + chosen_hash);
    }

    printf("checksum: %lld\n", (long long)(check >> 1));
    free(weight); free(value); free(old_row); free(new_row); free(take_bits);
    return 0;
}
