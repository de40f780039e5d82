/*
 * coin_ways.c - count the ways to pay amounts with a coin system and find
 * the fewest coins needed.
 *
 * Usage: coin_ways <denominations file> <targets file>
 *
 * Both files hold positive integers separated by white space or new lines
 * ('#' starts a comment that runs to the end of the line).  Denominations
 * must be distinct.  For every target amount the program prints the number
 * of ordered ways to pay it (sequences of coins, so 1+2 and 2+1 differ),
 * modulo 1e9+7, and a payment with the fewest coins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>

#define MOD 1000000007LL
#define MAX_AMOUNT 20000000L
#define MAX_DENOMS 1000
#define UNREACHABLE INT_MAX

static const char *prog = "coin_ways";

static void usage(void)
{
    fprintf(stderr, "usage: %s <denominations file> <targets file>\n", prog);
    exit(2);
}

/* Read all integers of a file; exits on anything that is not a positive
 * integer no larger than maxval. */
static long *read_ints(const char *path, long maxval, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: cannot open %s: %s\n", prog, path, strerror(errno));
        exit(1);
    }
    int cap = 64, n = 0, lineno = 0;
    long *v = malloc(cap * sizeof *v);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        for (;;) {
            while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == ',')
                p++;
            if (*p == '\0')
                break;
            char *end;
            errno = 0;
            long x = strtol(p, &end, 10);
            if (end == p || errno || x <= 0 || x > maxval ||
                (*end && *end != ' ' && *end != '\t' && *end != '\r' && *end != '\n' && *end != ',')) {
                fprintf(stderr, "%s: %s:%d: expected a positive integer up to %ld\n",
                        prog, path, lineno, maxval);
                exit(1);
            }
            if (n == cap) {
                cap *= 2;
                v = realloc(v, cap * sizeof *v);
                if (!v) {
                    fprintf(stderr, "%s: out of memory\n", prog);
                    exit(1);
                }
            }
            v[n++] = x;
            p = end;
        }
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "%s: %s: no numbers found\n", prog, path);
        exit(1);
    }
    *count = n;
    return v;
}

static int cmp_desc(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x < y) - (x > y);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        usage();

    int nd, nt;
    long *den = read_ints(argv[1], MAX_AMOUNT, &nd);
    long *target = read_ints(argv[2], MAX_AMOUNT, &nt);
    if (nd > MAX_DENOMS) {
        fprintf(stderr, "%s: %s: more than %d denominations\n", prog, argv[1], MAX_DENOMS);
        return 1;
    }
    qsort(den, nd, sizeof *den, cmp_desc);
    for (int k = 1; k < nd; k++)
        if (den[k] == den[k - 1]) {
            fprintf(stderr, "%s: %s: duplicate denomination %ld\n", prog, argv[1], den[k]);
            return 1;
        }

    long amax = 0;
    for (int t = 0; t < nt; t++)
        if (target[t] > amax)
            amax = target[t];

    long long *ways = malloc((amax + 1) * sizeof *ways);
    int *fewest = malloc((amax + 1) * sizeof *fewest);
    if (!ways || !fewest) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 1;
    }
    ways[0] = 1;
    fewest[0] = 0;

    /* ways[a] = sum over coins c of ways[a - c]; fewest[a] = 1 + min fewest[a - c] */
    for (long a = 1; a <= amax; a++) {
        long long w = 0;
        int best = UNREACHABLE;
        #pragma omp parallel for reduction(+:w) reduction(min:best)
        for (int k = 0; k < nd; k++) {
            long c = den[k];
            if (c <= a) {
                w += ways[a - c];
                if (fewest[a - c] < best)
                    best = fewest[a - c];
            }
        }
        ways[a] = w % MOD;
        fewest[a] = best == UNREACHABLE ? UNREACHABLE : best + 1;
    }

    /* ---- report ---- */
    printf("%d denominations (%ld .. %ld), %d targets, table up to %ld\n",
           nd, den[nd - 1], den[0], nt, amax);
    long unreachable = 0;
    for (long a = 1; a <= amax; a++)
        unreachable += fewest[a] == UNREACHABLE;
    printf("amounts 1..%ld that cannot be paid: %ld\n\n", amax, unreachable);

    int *used = calloc(nd, sizeof *used);
    for (int t = 0; t < nt; t++) {
        long a = target[t];
        if (fewest[a] == UNREACHABLE) {
            printf("%9ld: cannot be paid\n", a);
            continue;
        }
        printf("%9ld: %10lld ordered ways (mod 1e9+7), fewest coins %d =", a, ways[a],
               fewest[a]);
        /* walk back: take the largest coin that keeps the count optimal */
        memset(used, 0, nd * sizeof *used);
        long rest = a;
        while (rest > 0) {
            int k = 0;
            while (den[k] > rest || fewest[rest - den[k]] != fewest[rest] - 1)
                k++;
            used[k]++;
            rest -= den[k];
        }
        const char *sep = " ";
        for (int k = 0; k < nd; k++)
            if (used[k]) {
                if (used[k] > 1)
                    printf("%s%ldx%d", sep, den[k], used[k]);
                else
                    printf("%s%ld", sep, den[k]);
                sep = " + ";
            }
        printf("\n");
    }

    free(used);
    free(ways);
    free(fewest);
    free(den);
    free(target);
    return 0;
}
