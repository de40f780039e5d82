/*
 * hash_join: joins an orders table with a customers table on the customer
 * id using a hash table built on the customers, aggregates order count and
 * revenue per customer region, and puts 95% confidence intervals on the
 * regional revenue with a customer-level (cluster) bootstrap.
 *
 * usage: hash_join CUSTOMERS.csv ORDERS.bin REPLICATES
 *
 * CUSTOMERS.csv: header line, then "customer_id,region" rows (region 0..15).
 * ORDERS.bin: "ORDV", uint32 row count, then per order three unsigned LEB128
 * varints: order id delta, customer id, amount in cents.
 *
 * Each bootstrap replicate gives every customer a Poisson(1) weight drawn
 * from a hash of (replicate, customer), so the replicates do not depend on
 * the order in which anything is computed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREG 16

typedef struct {
    uint32_t *key;  /* customer id, 0 = empty slot */
    int32_t *val;   /* row in the customers table */
    uint32_t mask;
    int shift;
} HashTable;

typedef struct {
    int n;
    uint32_t *id;
    unsigned char *region;
} Customers;

typedef struct {
    int n;
    uint32_t *oid, *cust, *amount;
} Orders;

static inline uint32_t hash_id(uint32_t k, int shift)
{
    return (k * 2654435761u) >> shift;
}

static int ht_build(HashTable *ht, const Customers *c)
{
    uint32_t cap = 1;
    int bits = 0;
    while (cap < 2u * (uint32_t)c->n) {
        cap <<= 1;
        bits++;
    }
    ht->key = calloc(cap, sizeof(uint32_t));
    ht->val = malloc(cap * sizeof(int32_t));
    if (!ht->key || !ht->val)
        return -1;
    ht->mask = cap - 1;
    ht->shift = 32 - bits;
    for (int i = 0; i < c->n; i++) {
        uint32_t k = c->id[i];
        uint32_t s = hash_id(k, ht->shift);
        while (ht->key[s] != 0) {
            if (ht->key[s] == k)
                return -2; /* duplicate id */
            s = (s + 1) & ht->mask;
        }
        ht->key[s] = k;
        ht->val[s] = i;
    }
    return 0;
}

static inline int ht_find(const HashTable *ht, uint32_t k)
{
    uint32_t s = hash_id(k, ht->shift);
    for (;;) {
        uint32_t q = ht->key[s];
        if (q == k)
            return ht->val[s];
        if (q == 0)
            return -1;
        s = (s + 1) & ht->mask;
    }
}

static int load_customers(const char *path, Customers *c)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hash_join: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[256];
    if (!fgets(line, sizeof line, f) || strncmp(line, "customer_id,region", 18) != 0) {
        fprintf(stderr, "hash_join: %s: missing header 'customer_id,region'\n", path);
        fclose(f);
        return -1;
    }
    int cap = 1 << 16, n = 0;
    c->id = malloc(cap * sizeof(uint32_t));
    c->region = malloc(cap);
    if (!c->id || !c->region) {
        fprintf(stderr, "hash_join: out of memory\n");
        fclose(f);
        return -1;
    }
    long lineno = 1;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '\n')
            continue;
        char *end;
        errno = 0;
        unsigned long id = strtoul(line, &end, 10);
        int bad = errno || end == line || *end != ',' || id == 0 || id > 0xFFFFFFFFul;
        long reg = 0;
        if (!bad) {
            char *p = end + 1;
            reg = strtol(p, &end, 10);
            bad = end == p || (*end != '\n' && *end != '\0' && *end != '\r') || reg < 0 ||
                  reg >= NREG;
        }
        if (bad) {
            fprintf(stderr, "hash_join: %s:%ld: malformed customer row\n", path, lineno);
            fclose(f);
            return -1;
        }
        if (n == cap) {
            cap *= 2;
            uint32_t *ni = realloc(c->id, cap * sizeof(uint32_t));
            unsigned char *nr = ni ? realloc(c->region, cap) : NULL;
            if (!ni || !nr) {
                fprintf(stderr, "hash_join: out of memory\n");
                fclose(f);
                return -1;
            }
            c->id = ni;
            c->region = nr;
        }
        c->id[n] = (uint32_t)id;
        c->region[n] = (unsigned char)reg;
        n++;
    }
    fclose(f);
    if (n == 0) {
        fprintf(stderr, "hash_join: %s: no customers\n", path);
        return -1;
    }
    c->n = n;
    return 0;
}

static int get_varint(const unsigned char **pp, const unsigned char *end, uint32_t *out)
{
    const unsigned char *p = *pp;
    uint64_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (p == end)
            return -1;
        unsigned char b = *p++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) {
            if (v > 0xFFFFFFFFu)
                return -1;
            *out = (uint32_t)v;
            *pp = p;
            return 0;
        }
    }
    return -1;
}

static int load_orders(const char *path, Orders *o)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "hash_join: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (fseek(f, 0, SEEK_END) != 0) {
        fprintf(stderr, "hash_join: %s: cannot seek\n", path);
        fclose(f);
        return -1;
    }
    long size = ftell(f);
    rewind(f);
    unsigned char *buf = size > 0 ? malloc((size_t)size) : NULL;
    if (size < 8 || !buf || fread(buf, 1, (size_t)size, f) != (size_t)size ||
        memcmp(buf, "ORDV", 4) != 0) {
        fprintf(stderr, "hash_join: %s: not an orders file\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    uint32_t n = (uint32_t)buf[4] | ((uint32_t)buf[5] << 8) | ((uint32_t)buf[6] << 16) |
                 ((uint32_t)buf[7] << 24);
    if (n == 0 || n > 100000000u || (size_t)n * 3 > (size_t)size) {
        fprintf(stderr, "hash_join: %s: bad row count %u\n", path, n);
        free(buf);
        return -1;
    }
    o->oid = malloc(n * sizeof(uint32_t));
    o->cust = malloc(n * sizeof(uint32_t));
    o->amount = malloc(n * sizeof(uint32_t));
    if (!o->oid || !o->cust || !o->amount) {
        fprintf(stderr, "hash_join: out of memory\n");
        free(buf);
        return -1;
    }
    const unsigned char *p = buf + 8, *end = buf + size;
    uint64_t oid = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d, c, a;
        if (get_varint(&p, end, &d) || get_varint(&p, end, &c) || get_varint(&p, end, &a) ||
            d == 0 || oid + d > 0xFFFFFFFFu) {
            fprintf(stderr, "hash_join: %s: order %u is truncated or malformed\n", path, i);
            free(buf);
            return -1;
        }
        oid += d;
        o->oid[i] = (uint32_t)oid;
        o->cust[i] = c;
        o->amount[i] = a;
    }
    if (p != end) {
        fprintf(stderr, "hash_join: %s: %ld trailing bytes after %u orders\n", path,
                (long)(end - p), n);
        free(buf);
        return -1;
    }
    free(buf);
    o->n = (int)n;
    return 0;
}

static long parse_long(const char *s, long lo, long hi, int *ok)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        *ok = 0;
    return v;
}

static inline uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static void print_money(long long cents)
{
    printf(" %12lld.%02lld", cents / 100, cents % 100);
}

int main(int argc, char **argv)
{
    int ok = argc == 4;
    long nrep = 0;
    if (ok)
        nrep = parse_long(argv[3], 1, 1000000, &ok);
    if (!ok) {
        fprintf(stderr, "usage: %s CUSTOMERS.csv ORDERS.bin REPLICATES\n", argv[0]);
        return 2;
    }

    Customers cu;
    Orders od;
    if (load_customers(argv[1], &cu) != 0 || load_orders(argv[2], &od) != 0)
        return 1;

    HashTable ht;
    int rc = ht_build(&ht, &cu);
    if (rc == -1) {
        fprintf(stderr, "hash_join: out of memory\n");
        return 1;
    }
    if (rc == -2) {
        fprintf(stderr, "hash_join: %s: duplicate customer id\n", argv[1]);
        return 1;
    }

    const int n = od.n, nc = cu.n;
    int *cidx = malloc((size_t)n * sizeof(int));          /* joined customer row, -1 if none */
    long long *cust_rev = calloc((size_t)nc, sizeof(long long));
    long *cust_cnt = calloc((size_t)nc, sizeof(long));
    unsigned char *weight = malloc((size_t)nc);
    long long *boot = malloc((size_t)nrep * NREG * sizeof(long long));
    if (!cidx || !cust_rev || !cust_cnt || !weight || !boot) {
        fprintf(stderr, "hash_join: out of memory\n");
        return 1;
    }

    /* the join: probe the customer table for every order */
    long reg_cnt[NREG] = {0};
    long long reg_rev[NREG] = {0};
    long unmatched = 0;
#pragma omp parallel for reduction(+ : reg_cnt[:NREG], reg_rev[:NREG], unmatched)
    for (int i = 0; i < n; i++) {
        int c = ht_find(&ht, od.cust[i]);
        cidx[i] = c;
        if (c < 0) {
            unmatched++;
            continue;
        }
        uint32_t amt = od.amount[i];
        int r = cu.region[c];
        reg_cnt[r]++;
        reg_rev[r] += amt;
#pragma omp atomic
        cust_rev[c] += amt;
#pragma omp atomic
        cust_cnt[c]++;
    }

    /* Poisson(1) cumulative thresholds on a 32-bit uniform */
    uint64_t thr[12];
    double pk = 0.36787944117144233, cdf = 0.0;
    for (int k = 0; k < 12; k++) {
        cdf += pk;
        pk /= (double)(k + 1);
        thr[k] = (uint64_t)(cdf * 4294967296.0);
    }

    for (long b = 0; b < nrep; b++) {
#pragma omp parallel for
        for (int c = 0; c < nc; c++) {
            uint64_t u = splitmix64(((uint64_t)b << 32) | (uint64_t)c) >> 32;
            int k = 0;
            while (k < 11 && u >= thr[k])
                k++;
            weight[c] = (unsigned char)k;
        }

        long long rev[NREG] = {0};
#pragma omp parallel for reduction(+ : rev[:NREG])
        for (int i = 0; i < n; i++) {
            int c = cidx[i];
            if (c >= 0)
                rev[cu.region[c]] += (long long)weight[c] * od.amount[i];
        }
        memcpy(boot + b * NREG, rev, sizeof rev);
    }

    long matched = 0;
    long long revenue = 0;
    for (int r = 0; r < NREG; r++) {
        matched += reg_cnt[r];
        revenue += reg_rev[r];
    }

    printf("customers %d, orders %d (ids %u..%u), matched %ld, unmatched %ld\n", nc, n,
           od.oid[0], od.oid[n - 1], matched, unmatched);
    printf("bootstrap replicates %ld (resampling customers)\n", nrep);
    printf("region   orders  avg order         revenue    95%% CI low   95%% CI high\n");
    long long *col = malloc((size_t)nrep * sizeof(long long));
    if (!col) {
        fprintf(stderr, "hash_join: out of memory\n");
        return 1;
    }
    const long lo = (long)(0.025 * (double)(nrep - 1));
    const long hi = (long)(0.975 * (double)(nrep - 1) + 0.5);
    for (int r = 0; r < NREG; r++) {
        for (long b = 0; b < nrep; b++)
            col[b] = boot[b * NREG + r];
        qsort(col, (size_t)nrep, sizeof(long long), cmp_ll);
        printf("  %2d  %8ld  %9.2f", r, reg_cnt[r],
               reg_cnt[r] ? (double)reg_rev[r] / 100.0 / (double)reg_cnt[r] : 0.0);
        print_money(reg_rev[r]);
        print_money(col[lo]);
        print_money(col[hi]);
        printf("\n");
    }
    printf("total %8ld  %9.2f", matched, matched ? (double)revenue / 100.0 / (double)matched : 0.0);
    print_money(revenue);
    printf("\n");

    /* top 5 customers by revenue; ties go to the smaller id */
    int top[5], ntop = 0;
    for (int c = 0; c < nc; c++) {
        if (ntop == 5 && (cust_rev[c] < cust_rev[top[4]] ||
                          (cust_rev[c] == cust_rev[top[4]] && cu.id[c] > cu.id[top[4]])))
            continue;
        int j = ntop < 5 ? ntop++ : 4;
        while (j > 0 && (cust_rev[top[j - 1]] < cust_rev[c] ||
                         (cust_rev[top[j - 1]] == cust_rev[c] && cu.id[top[j - 1]] > cu.id[c]))) {
            top[j] = top[j - 1];
            j--;
        }
        top[j] = c;
    }
    printf("top customers by revenue:\n");
    for (int k = 0; k < ntop; k++) {
        int c = top[k];
        printf("  %d. customer %7u  region %2d  %5ld orders ", k + 1, cu.id[c], cu.region[c],
               cust_cnt[c]);
        print_money(cust_rev[c]);
        printf("\n");
    }

    free(col);
    free(boot);
    free(weight);
    free(cidx);
    free(cust_rev);
    free(cust_cnt);
    free(ht.key);
    free(ht.val);
    free(cu.id);
    free(cu.region);
    free(od.oid);
    free(od.cust);
    free(od.amount);
    return 0;
}
