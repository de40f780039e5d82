/*
 * ntt_multiply.c - multiply two big decimal integers with a number-theoretic
 * transform modulo 998244353 (= 119 * 2^23 + 1, primitive root 3).
 *
 * One decimal digit per coefficient; the convolution coefficients are at
 * most 81 * min(len) which stays far below the modulus for inputs of up to
 * a few million digits, so the cyclic convolution is exact.
 *
 * The convolution is computed a second time modulo 469762049 as an
 * independent check; both results must agree exactly.
 *
 * Each butterfly stage of the iterative transform is one parallel loop over
 * its n/2 independent butterflies.
 *
 * usage: ntt_multiply a.txt b.txt
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define MOD1 998244353u      /* 119 * 2^23 + 1 */
#define MOD2 469762049u      /*   7 * 2^26 + 1, used as an independent check */
#define ROOT 3u              /* primitive root of both primes */
#define MAX_DIGITS 4000000L

static uint32_t pow_mod(uint32_t b, uint64_t e, uint32_t mod)
{
    uint64_t r = 1, x = b;
    while (e) {
        if (e & 1)
            r = r * x % mod;
        x = x * x % mod;
        e >>= 1;
    }
    return (uint32_t)r;
}

/* read a decimal number: digits only, possibly wrapped over several lines */
static char *read_number(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "error: cannot open '%s'\n", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    int c;
    long pos = 0;
    while ((c = fgetc(f)) != EOF) {
        pos++;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        if (c < '0' || c > '9') {
            fprintf(stderr, "error: %s: byte %ld: not a decimal digit string\n", path, pos);
            free(s);
            fclose(f);
            return NULL;
        }
        if (n + 1 >= cap) {
            cap *= 2;
            s = realloc(s, cap);
        }
        s[n++] = (char)c;
        if ((long)n > MAX_DIGITS) {
            fprintf(stderr, "error: %s: more than %ld digits\n", path, MAX_DIGITS);
            free(s);
            fclose(f);
            return NULL;
        }
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "error: %s: no digits found\n", path);
        free(s);
        return NULL;
    }
    /* strip leading zeros, keep at least one digit */
    size_t z = 0;
    while (z + 1 < n && s[z] == '0')
        z++;
    memmove(s, s + z, n - z);
    n -= z;
    s[n] = '\0';
    *len = (long)n;
    return s;
}

static void bit_reverse(uint32_t *a, long n)
{
    for (long i = 1, j = 0; i < n; i++) {
        long bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            uint32_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

/* roots[h + k] = w_{2h}^k for every stage half-length h (powers of two) */
static void ntt(uint32_t *a, long n, const uint32_t *roots, uint32_t mod)
{
    bit_reverse(a, n);
    for (long half = 1; half < n; half <<= 1) {
        #pragma omp parallel for
        for (long t = 0; t < n / 2; t++) {
            long block = t / half, k = t % half;
            long i = block * 2 * half + k;
            uint32_t u = a[i];
            uint32_t v = (uint32_t)((uint64_t)a[i + half] * roots[half + k] % mod);
            uint32_t s = u + v;
            a[i] = s >= mod ? s - mod : s;
            a[i + half] = u >= v ? u - v : u + mod - v;
        }
    }
}

/* cyclic convolution of the digit vectors x (length la) and y (length lb)
 * modulo mod, transform length n; result in out[0..n-1] */
static int convolve(const uint32_t *x, long la, const uint32_t *y, long lb,
                    long n, uint32_t mod, uint32_t *out)
{
    uint32_t *A = calloc((size_t)n, sizeof *A);
    uint32_t *B = calloc((size_t)n, sizeof *B);
    uint32_t *roots = malloc(sizeof *roots * (size_t)n);
    if (!A || !B || !roots) {
        free(A);
        free(B);
        free(roots);
        return -1;
    }
    memcpy(A, x, sizeof *A * (size_t)la);
    memcpy(B, y, sizeof *B * (size_t)lb);

    for (long half = 1; half < n; half <<= 1) {
        uint32_t w = pow_mod(ROOT, (mod - 1) / (uint64_t)(2 * half), mod);
        uint64_t r = 1;
        for (long k = 0; k < half; k++) {
            roots[half + k] = (uint32_t)r;
            r = r * w % mod;
        }
    }

    ntt(A, n, roots, mod);
    ntt(B, n, roots, mod);

    #pragma omp parallel for
    for (long k = 0; k < n; k++)
        A[k] = (uint32_t)((uint64_t)A[k] * B[k] % mod);

    /* inverse transform: forward transform, reverse entries 1..n-1, scale */
    ntt(A, n, roots, mod);
    uint64_t inv_n = pow_mod((uint32_t)n, mod - 2, mod);
    out[0] = (uint32_t)(A[0] * inv_n % mod);
    #pragma omp parallel for
    for (long k = 1; k < n; k++)
        out[k] = (uint32_t)(A[n - k] * inv_n % mod);

    free(A);
    free(B);
    free(roots);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s a.txt b.txt\n", argv[0]);
        return 2;
    }
    long la, lb;
    char *sa = read_number(argv[1], &la);
    if (!sa)
        return 1;
    char *sb = read_number(argv[2], &lb);
    if (!sb) {
        free(sa);
        return 1;
    }

    long need = la + lb - 1, n = 1;
    int logn = 0;
    while (n < need) {
        n <<= 1;
        logn++;
    }
    if (n < 2) {
        n = 2;
        logn = 1;
    }

    uint32_t *X = calloc((size_t)n, sizeof *X);
    uint32_t *Y = calloc((size_t)n, sizeof *Y);
    uint32_t *C1 = malloc(sizeof *C1 * (size_t)n);
    uint32_t *C2 = malloc(sizeof *C2 * (size_t)n);
    if (!X || !Y || !C1 || !C2) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }
    /* coefficient k = digit of 10^k (little-endian) */
    for (long k = 0; k < la; k++)
        X[k] = (uint32_t)(sa[la - 1 - k] - '0');
    for (long k = 0; k < lb; k++)
        Y[k] = (uint32_t)(sb[lb - 1 - k] - '0');

    if (convolve(X, la, Y, lb, n, MOD1, C1) || convolve(X, la, Y, lb, n, MOD2, C2)) {
        fprintf(stderr, "error: out of memory\n");
        return 1;
    }

    /* both convolutions are exact, so they must agree coefficient by coefficient */
    long mismatches = 0;
    #pragma omp parallel for reduction(+:mismatches)
    for (long k = 0; k < n; k++)
        mismatches += C1[k] != C2[k];

    /* carry propagation into a little-endian digit array */
    unsigned char *digits = malloc((size_t)need + 24);
    uint64_t carry = 0;
    long nd = 0;
    for (long k = 0; k < need; k++) {
        uint64_t v = (uint64_t)C1[k] + carry;
        digits[nd++] = (unsigned char)(v % 10);
        carry = v / 10;
    }
    while (carry) {
        digits[nd++] = (unsigned char)(carry % 10);
        carry /= 10;
    }
    while (nd > 1 && digits[nd - 1] == 0)
        nd--;

    uint64_t dsum = 0;
    long zeros = 0;
    for (long k = 0; k < nd; k++) {
        dsum += digits[k];
        zeros += digits[k] == 0;
    }

    printf("factor A: %ld digits\n", la);
    printf("factor B: %ld digits\n", lb);
    printf("transform length: %ld (2^%d)\n", n, logn);
    printf("product: %ld digits\n", nd);
    int show = nd < 50 ? (int)nd : 50;
    printf("first %d digits: ", show);
    for (long k = nd - 1; k >= nd - show; k--)
        putchar('0' + digits[k]);
    printf("\nlast %d digits:  ", show);
    for (long k = show - 1; k >= 0; k--)
        putchar('0' + digits[k]);
    printf("\ndigit sum of product: %llu\n", (unsigned long long)dsum);
    printf("zero digits in product: %ld\n", zeros);
    printf("cross-check modulo %u: %s (%ld mismatching coefficients)\n",
           MOD2, mismatches ? "FAILED" : "ok", mismatches);

    free(digits);
    free(X);
    free(Y);
    free(C1);
    free(C2);
    free(sa);
    free(sb);
    return 0;
}
