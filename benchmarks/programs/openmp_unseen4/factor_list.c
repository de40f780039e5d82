/*
 * factor_list - factorise a list of 64-bit integers.
 *
 * Usage: factor_list NUMBERS.txt TRIAL_BOUND
 *
 * NUMBERS.txt holds one unsigned integer (2 .. 2^64-1) per line; blank
 * lines and lines starting with '#' are ignored.  Small factors are removed
 * by trial division by the primes below TRIAL_BOUND, the remaining cofactor
 * is split with Pollard's rho (Brent's variant) and every piece is checked
 * with a deterministic Miller-Rabin test.  The report gives the number of
 * primes, the histogram of the number of prime factors, the entries whose
 * smallest prime factor is largest and the sum of all distinct primes found.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FACTORS 64
#define SUM_MOD 1000000007ULL

typedef unsigned __int128 u128;

typedef struct {
    uint64_t n;
    int nf;                       /* number of prime factors with multiplicity */
    uint64_t f[MAX_FACTORS];      /* prime factors, ascending */
} Entry;

static uint32_t *small_primes;
static int n_small_primes;

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s NUMBERS.txt TRIAL_BOUND\n", prog);
}

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
    static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
    if (n < 2)
        return 0;
    for (int i = 0; i < 12; i++) {
        if (n % bases[i] == 0)
            return n == bases[i];
    }
    uint64_t d = n - 1;
    int s = 0;
    while (!(d & 1)) {
        d >>= 1;
        s++;
    }
    for (int i = 0; i < 12; i++) {
        uint64_t x = powmod(bases[i], d, n);
        if (x == 1 || x == n - 1)
            continue;
        int composite = 1;
        for (int r = 1; r < s; r++) {
            x = mulmod(x, x, n);
            if (x == n - 1) {
                composite = 0;
                break;
            }
        }
        if (composite)
            return 0;
    }
    return 1;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static inline uint64_t absdiff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

/* Brent's cycle-finding version of Pollard's rho.  Returns a non-trivial
 * divisor of the odd composite n. */
static uint64_t pollard_brent(uint64_t n)
{
    const uint64_t m = 128;
    for (uint64_t c = 1;; c++) {
        uint64_t y = 2, x = 2, ys = 2, q = 1, g = 1;
        uint64_t r = 1;
        do {
            x = y;
            for (uint64_t i = 0; i < r; i++)
                y = (mulmod(y, y, n) + c) % n;
            uint64_t k = 0;
            do {
                ys = y;
                uint64_t lim = m < r - k ? m : r - k;
                for (uint64_t i = 0; i < lim; i++) {
                    y = (mulmod(y, y, n) + c) % n;
                    q = mulmod(q, absdiff(x, y), n);
                }
                g = gcd(q, n);
                k += m;
            } while (k < r && g == 1);
            r <<= 1;
        } while (g == 1);
        if (g == n) {
            /* the batch overshot: step through it one value at a time */
            do {
                ys = (mulmod(ys, ys, n) + c) % n;
                g = gcd(absdiff(x, ys), n);
            } while (g == 1);
        }
        if (g != n)
            return g;
    }
}

static void add_factor(Entry *e, uint64_t p)
{
    if (e->nf < MAX_FACTORS)
        e->f[e->nf++] = p;
}

static void split(Entry *e, uint64_t n)
{
    if (n == 1)
        return;
    if (is_prime(n)) {
        add_factor(e, n);
        return;
    }
    /* perfect squares make rho slow; catch them directly */
    uint64_t s = 0;
    for (uint64_t bit = (uint64_t)1 << 31; bit; bit >>= 1) {
        uint64_t t = s | bit;
        if ((u128)t * t <= n)
            s = t;
    }
    if (s * s == n) {
        split(e, s);
        split(e, s);
        return;
    }
    uint64_t d = pollard_brent(n);
    split(e, d);
    split(e, n / d);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void factorise(Entry *e, uint32_t trial_bound)
{
    uint64_t n = e->n;
    e->nf = 0;
    for (int i = 0; i < n_small_primes; i++) {
        uint64_t p = small_primes[i];
        if (p * p > n)
            break;
        while (n % p == 0) {
            add_factor(e, p);
            n /= p;
        }
    }
    if (n > 1) {
        if ((uint64_t)trial_bound * trial_bound > n)
            add_factor(e, n);          /* what remains must be prime */
        else
            split(e, n);
    }
    qsort(e->f, e->nf, sizeof e->f[0], cmp_u64);
}

static Entry *read_numbers(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "factor_list: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    int cap = 1024, n = 0, lineno = 0;
    Entry *v = malloc(cap * sizeof *v);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == '#')
            continue;
        char *end;
        errno = 0;
        unsigned long long val = strtoull(p, &end, 10);
        while (isspace((unsigned char)*end))
            end++;
        if (!isdigit((unsigned char)*p) || errno || *end || val < 2) {
            fprintf(stderr, "factor_list: %s:%d: expected an integer between 2 and 2^64-1\n",
                    path, lineno);
            free(v);
            fclose(f);
            return NULL;
        }
        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
        }
        v[n].n = val;
        v[n].nf = 0;
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "factor_list: %s: no numbers\n", path);
        free(v);
        return NULL;
    }
    *count = n;
    return v;
}

static int cmp_by_smallest(const void *a, const void *b)
{
    const Entry *x = *(const Entry *const *)a, *y = *(const Entry *const *)b;
    if (x->f[0] != y->f[0])
        return x->f[0] > y->f[0] ? -1 : 1;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        usage(argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    long bound = strtol(argv[2], &end, 10);
    if (errno || *end || end == argv[2] || bound < 2 || bound > 1000000) {
        usage(argv[0]);
        return 2;
    }

    int count;
    Entry *nums = read_numbers(argv[1], &count);
    if (!nums)
        return 1;

    /* primes below the trial-division bound (sieve of Eratosthenes) */
    char *composite = calloc((size_t)bound, 1);
    small_primes = malloc((size_t)bound * sizeof *small_primes);
    for (long i = 2; i < bound; i++) {
        if (composite[i])
            continue;
        small_primes[n_small_primes++] = (uint32_t)i;
        for (long j = i * i; j < bound; j += i)
            composite[j] = 1;
    }
    free(composite);

    #pragma omp parallel for
    for (int i = 0; i < count; i++)
        factorise(&nums[i], (uint32_t)bound);

    /* independent check: product of the factors and primality of each */
    int bad = 0;
    #pragma omp parallel for reduction(+:bad)
    for (int i = 0; i < count; i++) {
        const Entry *e = &nums[i];
        u128 prod = 1;
        int ok = e->nf > 0 && e->nf < MAX_FACTORS;
        for (int k = 0; k < e->nf && ok; k++) {
            prod *= e->f[k];
            if (prod > e->n || !is_prime(e->f[k]))
                ok = 0;
        }
        if (!ok || prod != e->n)
            bad++;
    }

    int primes = 0, max_nf = 0;
    long hist[MAX_FACTORS + 1] = {0};
    long total_factors = 0;
    for (int i = 0; i < count; i++) {
        int nf = nums[i].nf;
        hist[nf]++;
        total_factors += nf;
        if (nf == 1)
            primes++;
        if (nf > max_nf)
            max_nf = nf;
    }

    /* distinct primes over the whole list */
    uint64_t *all = malloc((size_t)total_factors * sizeof *all);
    long k = 0;
    for (int i = 0; i < count; i++)
        for (int j = 0; j < nums[i].nf; j++)
            all[k++] = nums[i].f[j];
    qsort(all, (size_t)total_factors, sizeof *all, cmp_u64);
    long distinct = 0;
    uint64_t sum_mod = 0, largest = 0;
    for (long i = 0; i < total_factors; i++) {
        if (i > 0 && all[i] == all[i - 1])
            continue;
        distinct++;
        sum_mod = (sum_mod + all[i] % SUM_MOD) % SUM_MOD;
        largest = all[i];
    }

    /* composites ranked by their smallest prime factor */
    Entry **comp = malloc((size_t)count * sizeof *comp);
    int ncomp = 0;
    for (int i = 0; i < count; i++)
        if (nums[i].nf > 1)
            comp[ncomp++] = &nums[i];
    qsort(comp, ncomp, sizeof *comp, cmp_by_smallest);

    printf("numbers: %d  (primes %d, composites %d)\n", count, primes, count - primes);
    printf("trial division bound: %ld (%d primes)\n", bound, n_small_primes);
    printf("factorisations failing verification: %d\n", bad);
    printf("prime factors (with multiplicity) per number:\n");
    for (int nf = 1; nf <= max_nf; nf++)
        if (hist[nf])
            printf("  %2d: %5ld\n", nf, hist[nf]);
    printf("composites with the largest smallest factor:\n");
    int top = ncomp < 8 ? ncomp : 8;
    for (int i = 0; i < top; i++) {
        const Entry *e = comp[i];
        printf("  %20llu =", (unsigned long long)e->n);
        for (int j = 0; j < e->nf; j++)
            printf("%s%llu", j ? " * " : " ", (unsigned long long)e->f[j]);
        printf("\n");
    }
    printf("distinct primes found: %ld, largest %llu\n", distinct, (unsigned long long)largest);
    printf("sum of distinct primes mod %llu: %llu\n", (unsigned long long)SUM_MOD,
           (unsigned long long)sum_mod);

    free(comp);
    free(all);
    free(small_primes);
    free(nums);
    return 0;
}
