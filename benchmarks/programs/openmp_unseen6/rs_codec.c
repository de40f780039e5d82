/*
 * rs_codec - Reed-Solomon RS(255,223) round trip over GF(2^8).
 *
 * The input file is cut into 223-byte blocks (the last one zero padded) and
 * every block is encoded into a systematic 255-byte codeword (32 parity
 * bytes, corrects up to 16 byte errors).  For each trial a seeded pattern of
 * byte errors is applied to every codeword: many blocks stay clean, many get
 * a handful of errors, some get more than the code can correct.  The
 * receiver computes syndromes, runs Berlekamp-Massey, a Chien search and
 * Forney's algorithm, and the result is compared with the original data.
 *
 * Field: primitive polynomial x^8+x^4+x^3+x^2+1 (0x11d), generator
 * polynomial roots alpha^1 .. alpha^32.
 *
 * usage: rs_codec INPUT_FILE [trials] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define NN 255
#define KK 223
#define NPAR (NN - KK)
#define TT (NPAR / 2)

static uint8_t gf_exp[512];
static uint8_t gf_log[256];
static uint8_t genpoly[NPAR + 1];   /* genpoly[i] = coefficient of x^i, monic */

static void gf_init(void)
{
    int x = 1;
    for (int i = 0; i < 255; i++) {
        gf_exp[i] = (uint8_t)x;
        gf_log[x] = (uint8_t)i;
        x <<= 1;
        if (x & 0x100) x ^= 0x11d;
    }
    for (int i = 255; i < 512; i++) gf_exp[i] = gf_exp[i - 255];
    gf_log[0] = 0;   /* never used */

    /* g(x) = prod_{i=1..32} (x + alpha^i) */
    memset(genpoly, 0, sizeof genpoly);
    genpoly[0] = 1;
    for (int i = 1; i <= NPAR; i++) {
        uint8_t root = gf_exp[i];
        for (int j = i; j > 0; j--) {
            uint8_t t = genpoly[j] ? gf_exp[gf_log[genpoly[j]] + gf_log[root]] : 0;
            genpoly[j] = genpoly[j - 1] ^ t;
        }
        genpoly[0] = genpoly[0] ? gf_exp[gf_log[genpoly[0]] + gf_log[root]] : 0;
    }
}

static inline uint8_t gf_mul(uint8_t a, uint8_t b)
{
    if (a == 0 || b == 0) return 0;
    return gf_exp[gf_log[a] + gf_log[b]];
}

static inline uint8_t gf_div(uint8_t a, uint8_t b)
{
    if (a == 0) return 0;
    return gf_exp[gf_log[a] + 255 - gf_log[b]];
}

/* codeword byte k is the coefficient of x^(254-k): data first, parity last */
static void rs_encode(const uint8_t *data, uint8_t *cw)
{
    uint8_t reg[NPAR];   /* remainder, reg[0] = highest degree */
    memset(reg, 0, sizeof reg);
    for (int k = 0; k < KK; k++) {
        uint8_t fb = data[k] ^ reg[0];
        memmove(reg, reg + 1, NPAR - 1);
        reg[NPAR - 1] = 0;
        if (fb) {
            int lf = gf_log[fb];
            for (int j = 0; j < NPAR; j++) {
                uint8_t g = genpoly[NPAR - 1 - j];
                if (g) reg[j] ^= gf_exp[lf + gf_log[g]];
            }
        }
    }
    memcpy(cw, data, KK);
    memcpy(cw + KK, reg, NPAR);
}

/* S_i = r(alpha^(i+1)); returns nonzero when any syndrome is nonzero */
static int syndromes(const uint8_t *r, uint8_t *S)
{
    int any = 0;
    for (int i = 0; i < NPAR; i++) {
        uint8_t s = 0;
        int la = i + 1;
        for (int k = 0; k < NN; k++)
            s = (s ? gf_exp[gf_log[s] + la] : 0) ^ r[k];
        S[i] = s;
        any |= s;
    }
    return any != 0;
}

/* Decode in place.  Returns the number of corrected bytes, 0 for a clean
   block, or -1 when the block is detected as uncorrectable. */
static int rs_decode(uint8_t *r)
{
    uint8_t S[NPAR];
    if (!syndromes(r, S)) return 0;

    /* Berlekamp-Massey */
    uint8_t lambda[NPAR + 1] = { 1 }, prev[NPAR + 1] = { 1 }, tmp[NPAR + 1];
    int L = 0, m = 1;
    uint8_t b = 1;
    for (int n = 0; n < NPAR; n++) {
        uint8_t d = S[n];
        for (int i = 1; i <= L; i++) d ^= gf_mul(lambda[i], S[n - i]);
        if (d == 0) {
            m++;
            continue;
        }
        uint8_t coef = gf_div(d, b);
        if (2 * L <= n) {
            memcpy(tmp, lambda, sizeof lambda);
            for (int i = 0; i + m <= NPAR; i++) lambda[i + m] ^= gf_mul(coef, prev[i]);
            L = n + 1 - L;
            memcpy(prev, tmp, sizeof prev);
            b = d;
            m = 1;
        } else {
            for (int i = 0; i + m <= NPAR; i++) lambda[i + m] ^= gf_mul(coef, prev[i]);
            m++;
        }
    }
    if (L > TT) return -1;

    /* Chien search: position k has locator X = alpha^(254-k); root at X^-1 */
    int pos[TT], nroots = 0;
    for (int k = 0; k < NN; k++) {
        int inv = (255 - (NN - 1 - k)) % 255;     /* log of X^-1 */
        uint8_t v = lambda[0];
        for (int i = 1; i <= L; i++)
            if (lambda[i]) v ^= gf_exp[(gf_log[lambda[i]] + inv * i) % 255];
        if (v == 0) {
            if (nroots == TT) return -1;
            pos[nroots++] = k;
        }
    }
    if (nroots != L) return -1;

    /* Omega(x) = S(x) * Lambda(x) mod x^32 */
    uint8_t omega[NPAR];
    for (int i = 0; i < NPAR; i++) {
        uint8_t v = 0;
        for (int j = 0; j <= i && j <= L; j++) v ^= gf_mul(lambda[j], S[i - j]);
        omega[i] = v;
    }

    /* Forney (first consecutive root alpha^1): e = Omega(X^-1) / Lambda'(X^-1) */
    for (int e = 0; e < nroots; e++) {
        int k = pos[e];
        int inv = (255 - (NN - 1 - k)) % 255;
        uint8_t num = 0, den = 0;
        for (int i = 0; i < NPAR; i++)
            if (omega[i]) num ^= gf_exp[(gf_log[omega[i]] + inv * i) % 255];
        for (int i = 1; i <= L; i += 2)     /* formal derivative: odd terms only */
            if (lambda[i]) den ^= gf_exp[(gf_log[lambda[i]] + inv * (i - 1)) % 255];
        if (den == 0) return -1;
        r[k] ^= gf_div(num, den);
    }

    /* reject miscorrections that do not land on a codeword */
    if (syndromes(r, S)) return -1;
    return nroots;
}

/* small counter-based generator so that every block's error pattern depends
   only on (seed, trial, block) */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* corrupt a codeword; returns the number of bytes changed */
static int corrupt(uint8_t *cw, uint64_t seed, int trial, long block)
{
    uint64_t st = seed ^ ((uint64_t)trial << 40) ^ ((uint64_t)block * 0x2545f4914f6cdd1dULL);
    unsigned kind = (unsigned)(splitmix(&st) % 100);
    int nerr;
    if (kind < 45) nerr = 0;
    else if (kind < 70) nerr = 1 + (int)(splitmix(&st) % 4);
    else if (kind < 88) nerr = 5 + (int)(splitmix(&st) % 12);
    else nerr = 17 + (int)(splitmix(&st) % 24);
    uint8_t hit[NN];
    memset(hit, 0, sizeof hit);
    for (int e = 0; e < nerr; e++) {
        int p;
        do p = (int)(splitmix(&st) % NN); while (hit[p]);
        hit[p] = 1;
        cw[p] ^= (uint8_t)(1 + splitmix(&st) % 255);
    }
    return nerr;
}

static uint8_t *read_file(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rs_codec: cannot open '%s'\n", path);
        return NULL;
    }
    long cap = 1 << 20, n = 0;
    uint8_t *buf = malloc((size_t)cap);
    size_t got;
    while ((got = fread(buf + n, 1, (size_t)(cap - n), f)) > 0) {
        n += (long)got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, (size_t)cap);
        }
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "rs_codec: %s: file is empty\n", path);
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    long trials = 3, seed = 12345;
    if (argc < 2 || argc > 4 ||
        (argc >= 3 && !parse_long(argv[2], 1, 1000, &trials)) ||
        (argc >= 4 && !parse_long(argv[3], 0, 2000000000L, &seed))) {
        fprintf(stderr, "usage: %s INPUT_FILE [trials] [seed]\n", argv[0]);
        return 2;
    }

    long size;
    uint8_t *input = read_file(argv[1], &size);
    if (!input) return 1;

    gf_init();
    long nblocks = (size + KK - 1) / KK;
    uint8_t *code = malloc((size_t)nblocks * NN);

    #pragma omp parallel for
    for (long blk = 0; blk < nblocks; blk++) {
        uint8_t data[KK];
        long off = blk * KK;
        long len = size - off < KK ? size - off : KK;
        memset(data, 0, KK);
        memcpy(data, input + off, (size_t)len);
        rs_encode(data, code + blk * NN);
    }

    long zero_parity = 0;
    for (long i = 0; i < nblocks; i++) {
        int all_zero = 1;
        for (int j = KK; j < NN; j++) all_zero &= code[i * NN + j] == 0;
        zero_parity += all_zero;
    }

    printf("input: %ld bytes, %ld blocks of RS(%d,%d), %ld trial(s), seed %ld\n",
           size, nblocks, NN, KK, trials, seed);
    printf("encoded: %ld bytes (%.1f%% overhead), %ld all-zero blocks\n",
           nblocks * NN, 100.0 * (double)(nblocks * NN - size) / (double)size, zero_parity);

    long all_clean = 0, all_fixed = 0, all_bytes = 0, all_fail = 0, all_wrong = 0;
    for (long trial = 0; trial < trials; trial++) {
        long clean = 0, fixed = 0, bytes_fixed = 0, fail = 0, wrong = 0;
        long injected = 0, beyond = 0;

        #pragma omp parallel for reduction(+:clean,fixed,bytes_fixed,fail,wrong,injected,beyond)
        for (long blk = 0; blk < nblocks; blk++) {
            uint8_t rx[NN];
            memcpy(rx, code + blk * NN, NN);
            int nerr = corrupt(rx, (uint64_t)seed, (int)trial, blk);
            injected += nerr;
            if (nerr > TT) beyond++;
            int res = rs_decode(rx);
            if (res < 0) {
                fail++;
                continue;
            }
            long off = blk * KK;
            long len = size - off < KK ? size - off : KK;
            int ok = memcmp(rx, input + off, (size_t)len) == 0;
            for (long j = len; j < KK && ok; j++) ok = rx[j] == 0;
            if (!ok) wrong++;
            else if (res == 0) clean++;
            else { fixed++; bytes_fixed += res; }
        }

        printf("trial %2ld: %5ld errors injected, %3ld blocks over t=%d | clean %4ld, corrected %4ld "
               "(%5ld bytes), uncorrectable %3ld, miscorrected %ld\n",
               trial + 1, injected, beyond, TT, clean, fixed, bytes_fixed, fail, wrong);
        all_clean += clean;
        all_fixed += fixed;
        all_bytes += bytes_fixed;
        all_fail += fail;
        all_wrong += wrong;
    }

    printf("total: clean %ld, corrected %ld, bytes corrected %ld, uncorrectable %ld\n",
           all_clean, all_fixed, all_bytes, all_fail);
    printf("recovered data matches input for all decoded blocks: %s\n",
           all_wrong == 0 ? "yes" : "NO");
    if (all_wrong)
        printf("blocks decoded to a wrong codeword: %ld\n", all_wrong);

    free(code);
    free(input);
    return 0;
}
