/* radix_sort: LSD radix sort of 64-bit keys (8 passes of 8 bits) with per-block digit histograms and a stable scatter, repeated on several generated arrays.
 * Category: sorting (a few uniform parallel regions per pass over blocks of keys, sequential prefix sums in between).
 * Sizes: MIRTUNE_SIZE=1 -> 2^20 keys in 128 blocks, 6 arrays; MIRTUNE_SIZE=2 -> 2^22 keys in 512 blocks, 4 arrays. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define LOGN 22
#define NARRAYS 4
#else
#define LOGN 20
#define NARRAYS 6
#endif
#define BLOCK 8192 /* keys per block (one loop iteration) */
#define RADIX 256
#define PASSES 8

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

int main(void)
{
    const long n = 1L << LOGN;
    const long nblocks = n / BLOCK;
    uint64_t *keys = malloc(sizeof(uint64_t) * n);
    uint64_t *tmp = malloc(sizeof(uint64_t) * n);
    long *count = malloc(sizeof(long) * nblocks * RADIX);  /* count[b * RADIX + d] */
    long *offset = malloc(sizeof(long) * nblocks * RADIX); /* first output slot of (b, d) */
    if (!keys || !tmp || !count || !offset)
        return 1;

    unsigned long long check = 0;
    for (int r = 0; r < NARRAYS; r++) {
        /* Key distributions: uniform 64-bit, 24 significant bits, and a few distinct
         * high parts with random low bits (many equal digits in the upper passes). */
        const uint64_t seed = 0x1234567ULL + 7919ULL * (uint64_t)r;
        const int kind = r % 3;
#pragma omp parallel for
        for (long b = 0; b < nblocks; b++) {
            for (long i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
                uint64_t x = splitmix64(seed ^ (uint64_t)i);
                if (kind == 1)
                    x &= 0xFFFFFFULL;
                else if (kind == 2)
                    x = ((x % 13ULL) << 48) ^ (x & 0xFFFFFFFFFFULL);
                keys[i] = x;
            }
        }

        uint64_t *src = keys, *dst = tmp;
        for (int pass = 0; pass < PASSES; pass++) {
            const int shift = 8 * pass;

            /* Digit histogram of each block (each iteration owns one row of count). */
#pragma omp parallel for firstprivate(shift)
            for (long b = 0; b < nblocks; b++) {
                long *row = count + b * RADIX;
                for (int d = 0; d < RADIX; d++)
                    row[d] = 0;
                for (long i = b * BLOCK; i < (b + 1) * BLOCK; i++)
                    row[(src[i] >> shift) & 0xFF]++;
            }

            /* Exclusive prefix sum in (digit, block) order: keeps the sort stable. */
            long sum = 0;
            for (int d = 0; d < RADIX; d++) {
                for (long b = 0; b < nblocks; b++) {
                    offset[b * RADIX + d] = sum;
                    sum += count[b * RADIX + d];
                }
            }

            /* Scatter: each block writes its keys to its own slots of the output. */
#pragma omp parallel for firstprivate(shift)
            for (long b = 0; b < nblocks; b++) {
                long pos[RADIX];
                for (int d = 0; d < RADIX; d++)
                    pos[d] = offset[b * RADIX + d];
                for (long i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
                    const uint64_t x = src[i];
                    dst[pos[(x >> shift) & 0xFF]++] = x;
                }
            }
            uint64_t *t = src;
            src = dst;
            dst = t;
        }
        /* After an even number of passes the sorted keys are back in keys[]. */

        long long unsorted = 0;
        unsigned long long h = 0;
#pragma omp parallel for reduction(+:unsorted, h)
        for (long b = 0; b < nblocks; b++) {
            for (long i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
                if (i + 1 < n && src[i] > src[i + 1])
                    unsorted++;
                h += (src[i] ^ (src[i] >> 29)) * (unsigned long long)(2 * i + 1);
            }
        }
        check = check * 1000003ULL + h + (unsigned long long)unsorted * 0x100000001ULL
                + (src[n / 2] >> 7);
    }

    printf("checksum: %lld\n", (long long)(check >> 1));
    free(keys); free(tmp); free(count); free(offset);
    return 0;
}
