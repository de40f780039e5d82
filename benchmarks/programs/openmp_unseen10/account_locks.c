/*
 * account_locks: replay a journal of transfers between bank accounts.
 *
 * Usage: account_locks <accounts.csv> <journal.csv> [<journal.csv> ...]
 *
 * accounts.csv has the header "account,opening_cents" and one line per account
 * numbered 0..N-1 in order; each journal has the header "from,to,cents" and
 * one transfer per line.  The transfers of all journals are replayed in a
 * parallel loop; every transfer locks its two accounts (one omp_lock_t per
 * account, always the lower account number first, so no deadlock) and moves
 * the amount unconditionally.  Overdrafts are counted from the final balances,
 * so the result does not depend on the order the transfers are applied in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

typedef struct {
    int32_t from, to;
    int64_t cents;
} transfer_t;

typedef struct {
    int64_t balance, sent, received;
    int32_t count;
} account_t;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "account_locks: out of memory\n");
        exit(1);
    }
    return p;
}

static void malformed(const char *path, long line, const char *what)
{
    fprintf(stderr, "account_locks: %s: line %ld: %s\n", path, line, what);
    exit(1);
}

/* parses a non-negative decimal integer ending at `stop`; returns the char after it */
static const char *parse_num(const char *p, char stop, int64_t *out, int *ok)
{
    int64_t v = 0;
    const char *start = p;
    while (*p >= '0' && *p <= '9') {
        if (v > (INT64_MAX - 9) / 10) {
            *ok = 0;
            return p;
        }
        v = v * 10 + (*p - '0');
        p++;
    }
    if (p == start || *p != stop) {
        *ok = 0;
        return p;
    }
    *out = v;
    return p + 1;
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "account_locks: cannot open %s\n", path);
        exit(1);
    }
    size_t cap = 1 << 20, n = 0;
    char *buf = xrealloc(NULL, cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (n == 0 || buf[n - 1] != '\n') {
        fprintf(stderr, "account_locks: %s: empty file or missing final newline\n", path);
        exit(1);
    }
    *size = n;
    return buf;
}

/* returns a pointer past the header line, or exits if it is not `header` */
static const char *skip_header(const char *buf, const char *header, const char *path)
{
    size_t hl = strlen(header);
    if (strncmp(buf, header, hl) != 0 || (buf[hl] != '\n' && buf[hl] != '\r'))
        malformed(path, 1, "unexpected header");
    const char *p = buf + hl;
    if (*p == '\r')
        p++;
    return p + 1;
}

/* ranking order: larger balance first, then lower account number */
static const account_t *g_acc;
static int cmp_richest(const void *a, const void *b)
{
    int32_t i = *(const int32_t *)a, j = *(const int32_t *)b;
    if (g_acc[i].balance != g_acc[j].balance)
        return g_acc[i].balance > g_acc[j].balance ? -1 : 1;
    return (i > j) - (i < j);
}

static const char *fmt_cents(char *buf, size_t n, int64_t c)
{
    int64_t a = c < 0 ? -c : c;
    snprintf(buf, n, "%s%lld.%02lld", c < 0 ? "-" : "", (long long)(a / 100), (long long)(a % 100));
    return buf;
}

static void print_cents(const char *label, int64_t c)
{
    char buf[32];
    printf("%s%s\n", label, fmt_cents(buf, sizeof buf, c));
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <accounts.csv> <journal.csv> [<journal.csv> ...]\n", argv[0]);
        return 2;
    }

    /* accounts */
    size_t size;
    char *buf = slurp(argv[1], &size);
    const char *p = skip_header(buf, "account,opening_cents", argv[1]);
    account_t *acc = NULL;
    int32_t nacc = 0, cap = 0;
    long line = 1;
    while (*p) {
        int64_t id = 0, bal = 0;
        int ok = 1;
        line++;
        p = parse_num(p, ',', &id, &ok);
        if (ok)
            p = parse_num(p, '\n', &bal, &ok);
        if (!ok || id != nacc)
            malformed(argv[1], line, "expected \"account,opening_cents\" with accounts in order");
        if (nacc == cap) {
            cap = cap ? 2 * cap : 1024;
            acc = xrealloc(acc, (size_t)cap * sizeof *acc);
        }
        acc[nacc++] = (account_t){bal, 0, 0, 0};
    }
    free(buf);
    if (nacc < 2) {
        fprintf(stderr, "account_locks: %s: fewer than two accounts\n", argv[1]);
        return 1;
    }

    /* journals */
    transfer_t *tr = NULL;
    long ntr = 0, tcap = 0;
    for (int f = 2; f < argc; f++) {
        buf = slurp(argv[f], &size);
        p = skip_header(buf, "from,to,cents", argv[f]);
        line = 1;
        while (*p) {
            int64_t a = 0, b = 0, c = 0;
            int ok = 1;
            line++;
            p = parse_num(p, ',', &a, &ok);
            if (ok)
                p = parse_num(p, ',', &b, &ok);
            if (ok)
                p = parse_num(p, '\n', &c, &ok);
            if (!ok || a >= nacc || b >= nacc || a == b || c == 0)
                malformed(argv[f], line, "expected \"from,to,cents\" with two distinct accounts");
            if (ntr == tcap) {
                tcap = tcap ? 2 * tcap : 65536;
                tr = xrealloc(tr, (size_t)tcap * sizeof *tr);
            }
            tr[ntr++] = (transfer_t){(int32_t)a, (int32_t)b, c};
        }
        free(buf);
    }

    int64_t opening = 0;
    for (int32_t i = 0; i < nacc; i++)
        opening += acc[i].balance;

    omp_lock_t *lock = xrealloc(NULL, (size_t)nacc * sizeof *lock);
    for (int32_t i = 0; i < nacc; i++)
        omp_init_lock(&lock[i]);

    int64_t moved = 0;
#pragma omp parallel for reduction(+ : moved)
    for (long t = 0; t < ntr; t++) {
        int32_t a = tr[t].from, b = tr[t].to;
        int32_t lo = a < b ? a : b, hi = a < b ? b : a;
        omp_set_lock(&lock[lo]);
        omp_set_lock(&lock[hi]);
        acc[a].balance -= tr[t].cents;
        acc[a].sent += tr[t].cents;
        acc[a].count++;
        acc[b].balance += tr[t].cents;
        acc[b].received += tr[t].cents;
        acc[b].count++;
        omp_unset_lock(&lock[hi]);
        omp_unset_lock(&lock[lo]);
        moved += tr[t].cents;
    }

    for (int32_t i = 0; i < nacc; i++)
        omp_destroy_lock(&lock[i]);
    free(lock);

    int64_t closing = 0, overdrawn_total = 0;
    long overdrawn = 0;
    int32_t busiest = 0;
#pragma omp parallel for reduction(+ : closing, overdrawn_total, overdrawn)
    for (int32_t i = 0; i < nacc; i++) {
        closing += acc[i].balance;
        if (acc[i].balance < 0) {
            overdrawn++;
            overdrawn_total += acc[i].balance;
        }
    }
    for (int32_t i = 1; i < nacc; i++)
        if (acc[i].count > acc[busiest].count)
            busiest = i;

    int32_t *rank = xrealloc(NULL, (size_t)nacc * sizeof *rank);
    for (int32_t i = 0; i < nacc; i++)
        rank[i] = i;
    g_acc = acc;
    qsort(rank, (size_t)nacc, sizeof *rank, cmp_richest);

    printf("%d accounts, %ld transfers from %d journal file%s\n", nacc, ntr, argc - 2,
           argc > 3 ? "s" : "");
    print_cents("total moved:       ", moved);
    print_cents("opening total:     ", opening);
    print_cents("closing total:     ", closing);
    printf("balance conserved: %s\n", opening == closing ? "yes" : "NO");
    printf("overdrawn accounts: %ld\n", overdrawn);
    print_cents("total overdraft:   ", -overdrawn_total);
    printf("busiest account: %d (%d transfers)\n", busiest, acc[busiest].count);
    printf("ten richest accounts:\n");
    for (int k = 0; k < 10 && k < nacc; k++) {
        const account_t *x = &acc[rank[k]];
        char b1[32], b2[32], b3[32];
        printf("  %6d %16s  (in %s, out %s, %d transfers)\n", rank[k],
               fmt_cents(b1, sizeof b1, x->balance), fmt_cents(b2, sizeof b2, x->received),
               fmt_cents(b3, sizeof b3, x->sent), x->count);
    }
    print_cents("poorest balance:   ", acc[rank[nacc - 1]].balance);
    free(rank);
    free(tr);
    free(acc);
    return 0;
}
