/* prime_count: primes and twin primes in consecutive ranges of 64-bit odd numbers (from 2^21 up to 2^62) by deterministic Miller-Rabin, plus digit sums of the primes.
 * Category: compute-bound integer, imbalanced (a parallel loop over blocks per range, ranges one after another; a prime costs 12 Miller-Rabin rounds, most composites none or one).
 * Sizes: MIRTUNE_SIZE=1 -> 14 ranges of 400 blocks x 64 odd numbers; MIRTUNE_SIZE=2 -> 14 ranges of 1700 blocks x 64 odd numbers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MIRTUNE_SIZE
#define MIRTUNE_SIZE 1
#endif
#if MIRTUNE_SIZE >= 2
#define NBLOCKS 1700
#else
#define NBLOCKS 400
#endif
#define BLOCK 64      /* odd numbers per block */
#define NRANGES 14

typedef unsigned __int128 u128;

static const uint32_t small_primes[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73,
                                        79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157};
#define NSMALL ((int)(sizeof(small_primes) / sizeof(small_primes[0])))

/* bases that make Miller-Rabin deterministic for every n < 3.3e24 */
static const uint64_t mr_bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};

static inline uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
    return (uint64_t)((u128)a * b % m);
}

static uint64_t powmod(uint64_t a, uint64_t e, uint64_t m)
{
    uint64_t r = 1;
    a %= m;
    while (e) {
        if (e & 1)
            r = mulmod(r, a, m);
        a = mulmod(a, a, m);
        e >>= 1;
    }
    return r;
}

static int is_prime(uint64_t n)
{
    if (n < 2)
        return 0;
    if (n == 2)
        return 1;
    if ((n & 1) == 0)
        return 0;
    for (int i = 0; i < NSMALL; i++) {
        if (n == small_primes[i])
            return 1;
        if (n % small_primes[i] == 0)
            return 0;
    }
    uint64_t d = n - 1;
    int s = 0;
    while ((d & 1) == 0) {
        d >>= 1;
        s++;
    }
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(mr_bases[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int witness = 1;
        for (int r = 1; r < s; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1) {
                witness = 0;
                break;
            }
        }
        if (witness)
            return 0;
    }
    return 1;
}

static int digit_sum(uint64_t v)
{
    int s = 0;
    while (v) {
        s += (int)(v % 10);
        v /= 10;
    }
    return s;
}

int main(void)
{
    const long nodd = (long)NBLOCKS * BLOCK;
    unsigned char *flag = malloc((size_t)nodd + 1);
    long long *block_digits = malloc(sizeof(long long) * NBLOCKS);
    if (!flag || !block_digits)
        return 1;

    unsigned long long hash = 1469598103934665603ULL;
    long long all_primes = 0, all_twins = 0;

    for (int r = 0; r < NRANGES; r++) {
        /* range r: the odd numbers base, base + 2, ..., base + 2 * (nodd - 1) */
        uint64_t base = (1ULL << (21 + 3 * r)) + 2ULL * (uint64_t)(r * 7919 % 1000) + 1ULL;
        long long nprimes = 0;

#pragma omp parallel for reduction(+:nprimes)
        for (int b = 0; b < NBLOCKS; b++) {
            for (int j = 0; j < BLOCK; j++) {
                long idx = (long)b * BLOCK + j;
                int p = is_prime(base + 2ULL * (uint64_t)idx);
                flag[idx] = (unsigned char)p;
                nprimes += p;
            }
        }
        /* the twin of the last number lies just past the range */
        flag[nodd] = (unsigned char)is_prime(base + 2ULL * (uint64_t)nodd);

        long long ntwins = 0, dsum = 0;
#pragma omp parallel for reduction(+:ntwins, dsum)
        for (int b = 0; b < NBLOCKS; b++) {
            long long s = 0;
            for (int j = 0; j < BLOCK; j++) {
                long idx = (long)b * BLOCK + j;
                if (!flag[idx])
                    continue;
                s += digit_sum(base + 2ULL * (uint64_t)idx);
                ntwins += flag[idx + 1];
            }
            block_digits[b] = s;
            dsum += s;
        }

        for (int b = 0; b < NBLOCKS; b++) {
            hash ^= (unsigned long long)block_digits[b];
            hash *= 1099511628211ULL;
        }
        hash ^= (unsigned long long)(nprimes * 1000003LL + ntwins * 101LL + dsum);
        hash *= 1099511628211ULL;
        all_primes += nprimes;
        all_twins += ntwins;
    }

    printf("checksum: %lld\n", (long long)(hash % 1000000007ULL) + all_primes * 1000LL + all_twins);
    free(flag);
    free(block_digits);
    return 0;
}
