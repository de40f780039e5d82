/* collatz_stats: total stopping time of the Collatz map n -> n/2 or 3n+1 for every n in [1, N], its histogram, the largest trajectory value and the stopping-time record holders.
 * Category: irregular integer (a parallel loop over n costing 1 to ~580 steps each, then a histogram loop with an array-section reduction, then a sequential record scan).
 * Sizes: MIRTUNE_SIZE=1 -> N = 1,000,000; MIRTUNE_SIZE=2 -> N = 3,600,000. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define N 3600000L
#else
#define N 1000000L
#endif
#define MAXSTEPS 1024   /* every n below 10^8 reaches 1 in fewer steps */

int main(void)
{
    uint16_t *steps = malloc(sizeof(uint16_t) * (N + 1));
    uint64_t *peak = malloc(sizeof(uint64_t) * (N + 1));
    if (!steps || !peak)
        return 1;
    steps[0] = 0;
    peak[0] = 0;

#pragma omp parallel for
    for (long n = 1; n <= N; n++) {
        uint64_t x = (uint64_t)n, top = x;
        int s = 0;
        while (x != 1) {
            if (x & 1) {
                x = 3 * x + 1;
                if (x > top)
                    top = x;
            } else {
                x >>= 1;
            }
            s++;
        }
        steps[n] = (uint16_t)s;
        peak[n] = top;
    }

    long long hist[MAXSTEPS] = {0};
    long long total_steps = 0;
#pragma omp parallel for reduction(+:hist[:MAXSTEPS]) reduction(+:total_steps)
    for (long n = 1; n <= N; n++) {
        int s = steps[n];
        hist[s < MAXSTEPS ? s : MAXSTEPS - 1]++;
        total_steps += s;
    }

    /* sequential scans: stopping-time records (n with more steps than every smaller n) and path records */
    unsigned long long hash = 1469598103934665603ULL;
    int best = -1, nrec = 0, npath = 0;
    uint64_t best_peak = 0;
    for (long n = 1; n <= N; n++) {
        if (steps[n] > best) {
            best = steps[n];
            nrec++;
            hash ^= (unsigned long long)n * 1000ULL + (unsigned long long)best;
            hash *= 1099511628211ULL;
        }
        if (peak[n] > best_peak) {
            best_peak = peak[n];
            npath++;
            hash ^= (unsigned long long)best_peak;
            hash *= 1099511628211ULL;
        }
    }
    int mode = 0;
    for (int s = 1; s < MAXSTEPS; s++)
        if (hist[s] > hist[mode])
            mode = s;
    for (int s = 0; s < MAXSTEPS; s++) {
        hash ^= (unsigned long long)hist[s];
        hash *= 1099511628211ULL;
    }

    printf("checksum: %lld\n", (long long)(hash % 1000000007ULL) + total_steps + 1000000LL * (nrec + npath) + mode);
    free(steps);
    free(peak);
    return 0;
}
