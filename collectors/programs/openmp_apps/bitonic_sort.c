/* bitonic_sort: bitonic sorting network on 2^K unsigned 32-bit keys, repeated on several generated arrays, then a sortedness check and an order hash.
 * Category: sorting network (K*(K+1)/2 short parallel regions per array of cheap uniform compare-exchanges; memory bound).
 * Sizes: MIRTUNE_SIZE=1 -> 2^18 keys, 14 arrays; MIRTUNE_SIZE=2 -> 2^21 keys, 5 arrays. */
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define LOGN 21
#define NARRAYS 5
#else
#define LOGN 18
#define NARRAYS 14
#endif
#define PAIRS_PER_ITER 512 /* compare-exchange pairs per loop iteration (a block of 2 * 512 keys) */

static unsigned int mix32(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return (unsigned int)x;
}

int main(void)
{
    const long n = 1L << LOGN;
    const long npairs = n / 2;
    const long nblocks = npairs / PAIRS_PER_ITER;
    unsigned int *a = malloc(sizeof(unsigned int) * n);
    if (!a)
        return 1;

    unsigned long long check = 0;
    long long unsorted_total = 0;
    for (int r = 0; r < NARRAYS; r++) {
        /* Keys: a hash of (array, index); every third array has many duplicates. */
        const unsigned long long seed = 0x9E3779B97F4A7C15ULL * (unsigned long long)(r + 1);
        const unsigned int mask = (r % 3 == 2) ? 0xFFFu : 0xFFFFFFFFu;
#pragma omp parallel for
        for (long b = 0; b < nblocks; b++)
            for (long i = 2 * b * PAIRS_PER_ITER; i < 2 * (b + 1) * PAIRS_PER_ITER; i++)
                a[i] = mix32(seed + (unsigned long long)i) & mask;

        /* Stage size kk, substage distance j: pair p compares i and i + j, where i is p with a
         * zero bit inserted at position log2(j); bit kk of i gives the direction. Pairs with
         * consecutive p form runs of up to j consecutive i with the same direction. */
        for (long kk = 2; kk <= n; kk <<= 1) {
            for (long j = kk >> 1; j > 0; j >>= 1) {
#pragma omp parallel for firstprivate(j, kk)
                for (long b = 0; b < nblocks; b++) {
                    long p = b * PAIRS_PER_ITER;
                    const long pend = p + PAIRS_PER_ITER;
                    while (p < pend) {
                        const long i0 = ((p & ~(j - 1)) << 1) | (p & (j - 1));
                        long run = j - (p & (j - 1));
                        if (run > pend - p)
                            run = pend - p;
                        unsigned int *x = a + i0, *y = a + i0 + j;
                        if ((i0 & kk) == 0) {
                            for (long k = 0; k < run; k++) {
                                const unsigned int u = x[k], v = y[k];
                                x[k] = u < v ? u : v;
                                y[k] = u < v ? v : u;
                            }
                        } else {
                            for (long k = 0; k < run; k++) {
                                const unsigned int u = x[k], v = y[k];
                                x[k] = u < v ? v : u;
                                y[k] = u < v ? u : v;
                            }
                        }
                        p += run;
                    }
                }
            }
        }

        /* Sortedness check and a position-weighted hash of the sorted keys. */
        long long unsorted = 0;
        unsigned long long h = 0;
#pragma omp parallel for reduction(+:unsorted, h)
        for (long b = 0; b < nblocks; b++) {
            for (long i = 2 * b * PAIRS_PER_ITER; i < 2 * (b + 1) * PAIRS_PER_ITER; i++) {
                if (i + 1 < n && a[i] > a[i + 1])
                    unsorted++;
                h += (unsigned long long)a[i] * (unsigned long long)(2 * i + 1);
            }
        }
        unsorted_total += unsorted;
        check = check * 1000003ULL + (h ^ (unsigned long long)a[0] ^ ((unsigned long long)a[n - 1] << 20));
    }

    printf("checksum: %lld\n", (long long)(check >> 2) + unsorted_total);
    free(a);
    return 0;
}
