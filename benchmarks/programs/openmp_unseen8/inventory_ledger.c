/*
 * inventory_ledger - replay a warehouse transaction journal.
 *
 * Journal files (one or more, in chronological order): one transaction per
 * line,
 *     <item-code> <warehouse> <quantity> <unit-price>
 * e.g. "HX-20417 W07 -12 14.95".  Positive quantities are receipts, negative
 * ones are issues.  Blank lines and lines starting with '#' are ignored.
 *
 * The ledger keeps, per item and warehouse, the received and issued units
 * and their value, plus the full line history so that the running balance
 * can be replayed in journal order to find stock-outs (issues that take the
 * balance below zero).
 *
 * usage: inventory_ledger [-t top-n] <journal-file> [<journal-file> ...]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_LEN 16
#define WH_LEN 8

typedef struct {
    int line;     /* journal line number */
    int qty;
} move_t;

typedef struct {
    char code[CODE_LEN];
    char wh[WH_LEN];
    int used;
    long long in_units, out_units;
    long long in_cents, out_cents;   /* value of receipts / issues */
    int nmoves, cap;
    move_t *moves;
} entry_t;

typedef struct {
    char code[CODE_LEN];
    long long balance;
    long long value_cents;
    int warehouses;
} item_t;

typedef struct {
    int line;
    int entry;
    long long balance;
} stockout_t;

static void __attribute__((noreturn)) usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-t top-n] <journal-file> [<journal-file> ...]\n", prog);
    exit(2);
}

static uint64_t hash_key(const char *code, const char *wh)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = code; *p; p++) { h ^= (unsigned char)*p; h *= 1099511628211ULL; }
    h ^= '/'; h *= 1099511628211ULL;
    for (const char *p = wh; *p; p++) { h ^= (unsigned char)*p; h *= 1099511628211ULL; }
    return h;
}

/* parses "CODE WH QTY PRICE"; price has at most two decimals.
   Returns 1 on success, 0 for a blank/comment line, -1 if malformed. */
static int parse_line(const char *p, const char *end, char *code, char *wh, int *qty, int *cents)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (p == end || *p == '#' || *p == '\r') return 0;

    int n = 0;
    while (p < end && *p != ' ' && *p != '\t') {
        if (n == CODE_LEN - 1) return -1;
        code[n++] = *p++;
    }
    code[n] = '\0';
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    n = 0;
    while (p < end && *p != ' ' && *p != '\t') {
        if (n == WH_LEN - 1) return -1;
        wh[n++] = *p++;
    }
    wh[n] = '\0';
    if (n == 0) return -1;
    while (p < end && (*p == ' ' || *p == '\t')) p++;

    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    if (p == end || *p < '0' || *p > '9') return -1;
    long q = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        q = q * 10 + (*p++ - '0');
        if (q > 1000000) return -1;
    }
    if (q == 0) return -1;
    *qty = neg ? -(int)q : (int)q;
    while (p < end && (*p == ' ' || *p == '\t')) p++;

    if (p == end || *p < '0' || *p > '9') return -1;
    long c = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        c = c * 10 + (*p++ - '0');
        if (c > 10000000) return -1;
    }
    c *= 100;
    if (p < end && *p == '.') {
        p++;
        int digits = 0, frac = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (++digits > 2) return -1;
            frac = frac * 10 + (*p++ - '0');
        }
        if (digits == 0) return -1;
        if (digits == 1) frac *= 10;
        c += frac;
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    if (p != end) return -1;
    *cents = (int)c;
    return 1;
}

static int cmp_move(const void *a, const void *b)
{
    const move_t *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

static int cmp_stockout(const void *a, const void *b)
{
    const stockout_t *x = a, *y = b;
    return (x->line > y->line) - (x->line < y->line);
}

static int cmp_item_code(const void *a, const void *b)
{
    return strcmp(((const item_t *)a)->code, ((const item_t *)b)->code);
}

static int cmp_item_value(const void *a, const void *b)
{
    const item_t *x = a, *y = b;
    if (x->value_cents != y->value_cents) return x->value_cents < y->value_cents ? 1 : -1;
    return strcmp(x->code, y->code);
}

static void print_money(long long cents)
{
    int neg = cents < 0;
    if (neg) cents = -cents;
    printf("%s%lld.%02lld", neg ? "-" : "", cents / 100, cents % 100);
}

/* the journal may be split over several files, given in chronological
   order; they are concatenated and lines are numbered across all of them */
typedef struct {
    int nfiles;
    char **names;
    int *first_line;   /* global index of each file's first line */
} journal_t;

static void locate(const journal_t *j, int gline, const char **name, int *line)
{
    int f = 0;
    while (f + 1 < j->nfiles && j->first_line[f + 1] <= gline) f++;
    *name = j->names[f];
    *line = gline - j->first_line[f] + 1;
}

static char *read_file(const char *path, long *size_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "inventory_ledger: cannot open journal '%s'\n", path);
        exit(1);
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || size > 0x3ffffffeL || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "inventory_ledger: cannot read journal '%s'\n", path);
        exit(1);
    }
    char *buf = malloc((size_t)size + 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "inventory_ledger: cannot read journal '%s'\n", path);
        exit(1);
    }
    fclose(f);
    *size_out = size;
    return buf;
}

int main(int argc, char **argv)
{
    int top_n = 10;
    int argi = 1;
    if (argi < argc && strcmp(argv[argi], "-t") == 0) {
        if (argi + 1 >= argc) usage(argv[0]);
        char *end;
        errno = 0;
        long v = strtol(argv[argi + 1], &end, 10);
        if (errno || *end || end == argv[argi + 1] || v < 1 || v > 1000) usage(argv[0]);
        top_n = (int)v;
        argi += 2;
    }
    if (argi >= argc) usage(argv[0]);
    for (int k = argi; k < argc; k++)
        if (argv[k][0] == '-' && argv[k][1] != '\0') usage(argv[0]);

    journal_t jn;
    jn.nfiles = argc - argi;
    jn.names = argv + argi;
    jn.first_line = malloc((size_t)jn.nfiles * sizeof *jn.first_line);

    /* read and concatenate, making sure every file ends in a newline */
    char *text = NULL;
    long size = 0;
    int nlines = 0;
    for (int fi = 0; fi < jn.nfiles; fi++) {
        long fsize;
        char *buf = read_file(jn.names[fi], &fsize);
        int add_nl = fsize > 0 && buf[fsize - 1] != '\n';
        text = realloc(text, (size_t)(size + fsize + add_nl + 1));
        if (!text || !jn.first_line) {
            fprintf(stderr, "inventory_ledger: out of memory\n");
            return 1;
        }
        memcpy(text + size, buf, (size_t)fsize);
        if (add_nl) text[size + fsize] = '\n';
        free(buf);
        jn.first_line[fi] = nlines;
        for (long i = size; i < size + fsize + add_nl; i++) nlines += text[i] == '\n';
        size += fsize + add_nl;
    }

    /* index line starts; line k spans start[k] .. start[k+1]-2 */
    long *start = malloc(((size_t)nlines + 1) * sizeof *start);
    if (!start) {
        fprintf(stderr, "inventory_ledger: out of memory\n");
        return 1;
    }
    {
        int k = 0;
        start[k++] = 0;
        for (long i = 0; i < size; i++)
            if (text[i] == '\n') start[k++] = i + 1;
    }

    /* open-addressing hash table of (item, warehouse) entries */
    size_t cap = 1024;
    while (cap < (size_t)nlines / 4 + 1024) cap <<= 1;
    entry_t *table = calloc(cap, sizeof *table);
    if (!table) {
        fprintf(stderr, "inventory_ledger: out of memory\n");
        return 1;
    }
    int nentries = 0;
    int bad_line = nlines + 1;
    long long records = 0;
    int table_full = 0;

    #pragma omp parallel for reduction(min:bad_line) reduction(+:records)
    for (int ln = 0; ln < nlines; ln++) {
        char code[CODE_LEN], wh[WH_LEN];
        int qty = 0, cents = 0;
        int rc = parse_line(text + start[ln], text + start[ln + 1] - 1, code, wh, &qty, &cents);
        if (rc < 0) {
            if (ln + 1 < bad_line) bad_line = ln + 1;
            continue;
        }
        if (rc == 0) continue;
        records++;
        uint64_t h = hash_key(code, wh);

        #pragma omp critical(ledger)
        {
            size_t slot = h & (cap - 1);
            while (table[slot].used &&
                   (strcmp(table[slot].code, code) != 0 || strcmp(table[slot].wh, wh) != 0))
                slot = (slot + 1) & (cap - 1);
            entry_t *e = &table[slot];
            if (!e->used) {
                if ((size_t)nentries * 10 >= cap * 7) {
                    table_full = 1;
                } else {
                    e->used = 1;
                    strcpy(e->code, code);
                    strcpy(e->wh, wh);
                    nentries++;
                }
            }
            if (e->used) {
                if (qty > 0) {
                    e->in_units += qty;
                    e->in_cents += (long long)qty * cents;
                } else {
                    e->out_units -= qty;
                    e->out_cents -= (long long)qty * cents;
                }
                if (e->nmoves == e->cap) {
                    e->cap = e->cap ? 2 * e->cap : 8;
                    e->moves = realloc(e->moves, (size_t)e->cap * sizeof *e->moves);
                    if (!e->moves) {
                        fprintf(stderr, "inventory_ledger: out of memory\n");
                        exit(1);
                    }
                }
                e->moves[e->nmoves].line = ln + 1;
                e->moves[e->nmoves].qty = qty;
                e->nmoves++;
            }
        }
    }

    if (bad_line <= nlines) {
        const char *fname;
        int fline;
        locate(&jn, bad_line - 1, &fname, &fline);
        fprintf(stderr, "inventory_ledger: %s:%d: malformed transaction line\n", fname, fline);
        return 1;
    }
    if (table_full) {
        fprintf(stderr, "inventory_ledger: too many distinct item/warehouse pairs\n");
        return 1;
    }
    if (records == 0) {
        fprintf(stderr, "inventory_ledger: no transactions in the journal\n");
        return 1;
    }

    /* replay each entry's history in journal order to find stock-outs */
    size_t so_cap = 1024, nso = 0;
    stockout_t *so = malloc(so_cap * sizeof *so);
    long long tot_in = 0, tot_out = 0, val_in = 0, val_out = 0;
    int negative_now = 0;
    for (size_t s = 0; s < cap; s++) {
        entry_t *e = &table[s];
        if (!e->used) continue;
        tot_in += e->in_units; tot_out += e->out_units;
        val_in += e->in_cents; val_out += e->out_cents;
        qsort(e->moves, (size_t)e->nmoves, sizeof *e->moves, cmp_move);
        long long bal = 0;
        for (int k = 0; k < e->nmoves; k++) {
            long long before = bal;
            bal += e->moves[k].qty;
            if (bal < 0 && before >= 0) {
                if (nso == so_cap) {
                    so_cap *= 2;
                    so = realloc(so, so_cap * sizeof *so);
                }
                if (!so) {
                    fprintf(stderr, "inventory_ledger: out of memory\n");
                    return 1;
                }
                so[nso].line = e->moves[k].line;
                so[nso].entry = (int)s;
                so[nso].balance = bal;
                nso++;
            }
        }
        negative_now += bal < 0;
    }
    qsort(so, nso, sizeof *so, cmp_stockout);

    /* per item: combine warehouses, value stock at average receipt cost */
    item_t *items = malloc((size_t)nentries * sizeof *items);
    int nitems = 0;
    for (size_t s = 0; s < cap; s++) {
        entry_t *e = &table[s];
        if (!e->used) continue;
        long long bal = e->in_units - e->out_units;
        long long val = 0;
        if (bal > 0 && e->in_units > 0)
            val = bal * e->in_cents / e->in_units;
        strcpy(items[nitems].code, e->code);
        items[nitems].balance = bal;
        items[nitems].value_cents = val;
        items[nitems].warehouses = 1;
        nitems++;
    }
    qsort(items, (size_t)nitems, sizeof *items, cmp_item_code);
    int nuniq = 0;
    for (int k = 0; k < nitems; k++) {
        if (nuniq > 0 && strcmp(items[nuniq - 1].code, items[k].code) == 0) {
            items[nuniq - 1].balance += items[k].balance;
            items[nuniq - 1].value_cents += items[k].value_cents;
            items[nuniq - 1].warehouses++;
        } else {
            items[nuniq++] = items[k];
        }
    }
    long long stock_value = 0;
    for (int k = 0; k < nuniq; k++) stock_value += items[k].value_cents;
    qsort(items, (size_t)nuniq, sizeof *items, cmp_item_value);

    printf("journal: %d file%s, %lld transactions, %d items, %d item/warehouse ledgers\n",
           jn.nfiles, jn.nfiles == 1 ? "" : "s", records, nuniq, nentries);
    printf("received: %lld units worth ", tot_in); print_money(val_in); printf("\n");
    printf("issued:   %lld units worth ", tot_out); print_money(val_out); printf("\n");
    printf("stock on hand valued at average receipt cost: "); print_money(stock_value); printf("\n");
    printf("stock-outs: %zu issues took a ledger below zero; %d ledgers end negative\n",
           nso, negative_now);
    for (size_t k = 0; k < nso && k < 5; k++) {
        const entry_t *e = &table[so[k].entry];
        const char *fname;
        int fline;
        locate(&jn, so[k].line - 1, &fname, &fline);
        printf("  %s:%d: %s at %s down to %lld\n", fname, fline, e->code, e->wh, so[k].balance);
    }
    if (top_n > nuniq) top_n = nuniq;
    printf("top %d items by stock value:\n", top_n);
    for (int k = 0; k < top_n; k++) {
        printf("  %2d. %-12s %8lld units in %d warehouse%s  ", k + 1, items[k].code,
               items[k].balance, items[k].warehouses, items[k].warehouses == 1 ? " " : "s");
        print_money(items[k].value_cents);
        printf("\n");
    }

    for (size_t s = 0; s < cap; s++) free(table[s].moves);
    free(table); free(items); free(so); free(start); free(text); free(jn.first_line);
    return 0;
}
