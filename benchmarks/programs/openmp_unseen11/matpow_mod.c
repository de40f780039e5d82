/* matpow_mod: n-th terms of linear recurrences modulo a prime by fast
 * exponentiation of the companion matrix, for a file of queries.  Queries are
 * independent and answered in one parallel loop.
 *
 * usage: matpow_mod recurrences.txt queries.txt
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 8

typedef struct {
    int k;
    uint64_t c[MAXK], a[MAXK];
} Rec;

static uint64_t P;

/* C = A * B (k x k), entries < P < 2^30 so a row sum of k <= 8 products fits in 64 bits */
static void matmul(int k, const uint64_t *A, const uint64_t *B, uint64_t *C)
{
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            uint64_t s = 0;
            for (int l = 0; l < k; l++) s += A[i * MAXK + l] * B[l * MAXK + j];
            C[i * MAXK + j] = s % P;
        }
}

static uint64_t nth_term(const Rec *r, uint64_t n)
{
    int k = r->k;
    if (n < (uint64_t)k) return r->a[n];
    uint64_t M[MAXK * MAXK], T[MAXK * MAXK], v[MAXK], w[MAXK];
    memset(M, 0, sizeof M);
    for (int j = 0; j < k; j++) M[j] = r->c[j];
    for (int i = 1; i < k; i++) M[i * MAXK + i - 1] = 1;
    /* state (a_{m+k-1}, ..., a_m) starting at m = 0 */
    for (int i = 0; i < k; i++) v[i] = r->a[k - 1 - i];
    uint64_t e = n - (uint64_t)(k - 1);
    while (e) {
        if (e & 1) {
            for (int i = 0; i < k; i++) {
                uint64_t s = 0;
                for (int l = 0; l < k; l++) s += M[i * MAXK + l] * v[l];
                w[i] = s % P;
            }
            memcpy(v, w, sizeof(uint64_t) * k);
        }
        e >>= 1;
        if (e) {
            matmul(k, M, M, T);
            memcpy(M, T, sizeof M);
        }
    }
    return v[0];
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s recurrences.txt queries.txt\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) { fprintf(stderr, "matpow_mod: cannot open %s\n", argv[1]); return 1; }
    unsigned long long pp;
    int nrec;
    if (fscanf(f, "%llu %d", &pp, &nrec) != 2 || pp < 2 || pp >= (1ULL << 30) || nrec < 1 || nrec > 100000) {
        fprintf(stderr, "matpow_mod: %s: bad header (modulus must be below 2^30)\n", argv[1]);
        fclose(f); return 1;
    }
    P = pp;
    Rec *R = calloc(nrec, sizeof(Rec));
    for (int r = 0; r < nrec; r++) {
        if (fscanf(f, "%d", &R[r].k) != 1 || R[r].k < 1 || R[r].k > MAXK) {
            fprintf(stderr, "matpow_mod: %s: bad order in recurrence %d\n", argv[1], r);
            fclose(f); return 1;
        }
        for (int j = 0; j < 2 * R[r].k; j++) {
            unsigned long long v;
            if (fscanf(f, "%llu", &v) != 1 || v >= P) {
                fprintf(stderr, "matpow_mod: %s: bad value in recurrence %d\n", argv[1], r);
                fclose(f); return 1;
            }
            if (j < R[r].k) R[r].c[j] = v; else R[r].a[j - R[r].k] = v;
        }
    }
    fclose(f);

    f = fopen(argv[2], "r");
    if (!f) { fprintf(stderr, "matpow_mod: cannot open %s\n", argv[2]); return 1; }
    long nq;
    if (fscanf(f, "%ld", &nq) != 1 || nq < 1 || nq > 100000000) {
        fprintf(stderr, "matpow_mod: %s: bad query count\n", argv[2]); fclose(f); return 1;
    }
    int *qr = malloc(sizeof(int) * nq);
    uint64_t *qn = malloc(sizeof(uint64_t) * nq), *ans = malloc(sizeof(uint64_t) * nq);
    for (long i = 0; i < nq; i++) {
        unsigned long long n;
        if (fscanf(f, "%d %llu", &qr[i], &n) != 2 || qr[i] < 0 || qr[i] >= nrec ||
            n > 1000000000000000000ULL) {
            fprintf(stderr, "matpow_mod: %s: bad query %ld\n", argv[2], i + 1);
            fclose(f); return 1;
        }
        qn[i] = n;
    }
    fclose(f);

    #pragma omp parallel for
    for (long i = 0; i < nq; i++) ans[i] = nth_term(&R[qr[i]], qn[i]);

    uint64_t *sum = calloc(nrec, sizeof(uint64_t));
    long *cnt = calloc(nrec, sizeof(long)), per_order[MAXK + 1] = {0};
    for (long i = 0; i < nq; i++) {
        sum[qr[i]] = (sum[qr[i]] + ans[i]) % P;
        cnt[qr[i]]++;
        per_order[R[qr[i]].k]++;
    }
    printf("modulus %llu, %d recurrences, %ld queries\n", (unsigned long long)P, nrec, nq);
    printf("queries per order:");
    for (int k = 1; k <= MAXK; k++)
        if (per_order[k]) printf(" %d:%ld", k, per_order[k]);
    printf("\nsum of answers mod p per recurrence:\n");
    for (int r = 0; r < nrec; r++)
        printf("%3d:%10llu%s", r, (unsigned long long)sum[r], (r % 6 == 5 || r == nrec - 1) ? "\n" : "  ");
    long show = nq < 5 ? nq : 5;
    printf("first answers:");
    for (long i = 0; i < show; i++)
        printf(" rec %d n=%llu -> %llu;", qr[i], (unsigned long long)qn[i], (unsigned long long)ans[i]);
    printf("\nlast answers:");
    for (long i = nq - show; i < nq; i++)
        printf(" rec %d n=%llu -> %llu;", qr[i], (unsigned long long)qn[i], (unsigned long long)ans[i]);
    printf("\n");
    free(R); free(qr); free(qn); free(ans); free(sum); free(cnt);
    return 0;
}
