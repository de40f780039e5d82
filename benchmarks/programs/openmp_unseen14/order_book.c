/*
 * order_book: price-time priority matching of a day of limit orders.
 *
 * usage: order_book orders.bin collar_pct
 *
 * Every symbol has its own book; a limit order first trades against the
 * opposite side at the resting orders' prices (best price first, oldest
 * first within a price), the remainder rests in the book.  Orders priced
 * more than collar_pct percent away from the symbol's reference price (the
 * last trade, or the symbol's first order before any trade) are rejected.
 * Cancels remove the rest of an order if it is still in the book.
 *
 * Input layout (little endian): "OBK1", uint32 records, uint32 symbols, then
 * 8-byte records: uint8 symbol, uint8 kind (0 buy, 1 sell, 2 cancel),
 * uint16 quantity, uint32 price in ticks (cancel: id of the order).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t sym, kind;
    uint16_t qty;
    uint32_t price;         /* or cancel target */
} record;

typedef struct {
    uint32_t price;
    uint32_t qty;           /* still open */
    uint32_t orig_qty;
    uint32_t id;            /* record index = order id */
    uint64_t seq;           /* arrival sequence number within the symbol */
} resting;

/* One side of a book: an array in priority order, o[0] is the best order.
   Bids descend by price, asks ascend; within a price, older orders first. */
typedef struct {
    resting *o;
    int n, cap;
} side_book;

typedef struct {
    long orders, rejected, cancels, cancel_misses;
    long trades;
    long long volume, notional;
    long filled;                    /* resting orders completely filled */
    long long wait_sum;             /* their waiting time, in symbol events */
    long long best_bid, best_ask;   /* -1 when the side is empty */
    int bid_orders, ask_orders;
} sym_stats;

static void side_insert(side_book *s, int pos, resting r)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 256;
        s->o = realloc(s->o, (size_t)s->cap * sizeof *s->o);
    }
    memmove(s->o + pos + 1, s->o + pos, (size_t)(s->n - pos) * sizeof *s->o);
    s->o[pos] = r;
    s->n++;
}

/* A new buy goes behind all bids with price >= its price. */
static int bid_position(const side_book *s, uint32_t price)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->o[mid].price >= price)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A new sell goes behind all asks with price <= its price. */
static int ask_position(const side_book *s, uint32_t price)
{
    int lo = 0, hi = s->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->o[mid].price <= price)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void side_remove(side_book *s, int i)
{
    memmove(s->o + i, s->o + i + 1, (size_t)(s->n - i - 1) * sizeof *s->o);
    s->n--;
}

static int side_cancel(side_book *s, uint32_t id)
{
    for (int i = 0; i < s->n; i++) {
        if (s->o[i].id == id) {
            side_remove(s, i);
            return 1;
        }
    }
    return 0;
}

static void run_symbol(const record *recs, const uint32_t *ids, long count, long collar_pct,
                       sym_stats *st)
{
    side_book bids = {0}, asks = {0};
    long long ref = -1;
    memset(st, 0, sizeof *st);
    for (long k = 0; k < count; k++) {
        uint32_t id = ids[k];
        const record *r = &recs[id];
        if (r->kind == 2) {
            st->cancels++;
            const record *t = &recs[r->price];
            side_book *s = t->kind == 0 ? &bids : &asks;
            if (!side_cancel(s, r->price))
                st->cancel_misses++;
            continue;
        }
        st->orders++;
        if (ref < 0)
            ref = r->price;
        long long dev = (long long)r->price - ref;
        if (dev < 0)
            dev = -dev;
        if (100 * dev > collar_pct * ref) {
            st->rejected++;
            continue;
        }
        uint32_t left = r->qty;
        if (r->kind == 0) {
            while (left > 0 && asks.n > 0 && asks.o[0].price <= r->price) {
                resting *best = &asks.o[0];
                uint32_t q = left < best->qty ? left : best->qty;
                st->trades++;
                st->volume += q;
                st->notional += (long long)q * best->price;
                ref = best->price;
                left -= q;
                best->qty -= q;
                if (best->qty == 0) {
                    st->filled++;
                    st->wait_sum += (long long)(k - best->seq);
                    side_remove(&asks, 0);
                }
            }
            if (left > 0)
                side_insert(&bids, bid_position(&bids, r->price),
                            (resting){r->price, left, r->qty, id, (uint64_t)k});
        } else {
            while (left > 0 && bids.n > 0 && bids.o[0].price >= r->price) {
                resting *best = &bids.o[0];
                uint32_t q = left < best->qty ? left : best->qty;
                st->trades++;
                st->volume += q;
                st->notional += (long long)q * best->price;
                ref = best->price;
                left -= q;
                best->qty -= q;
                if (best->qty == 0) {
                    st->filled++;
                    st->wait_sum += (long long)(k - best->seq);
                    side_remove(&bids, 0);
                }
            }
            if (left > 0)
                side_insert(&asks, ask_position(&asks, r->price),
                            (resting){r->price, left, r->qty, id, (uint64_t)k});
        }
    }
    st->best_bid = bids.n ? (long long)bids.o[0].price : -1;
    st->best_ask = asks.n ? (long long)asks.o[0].price : -1;
    st->bid_orders = bids.n;
    st->ask_orders = asks.n;
    free(bids.o);
    free(asks.o);
}

static void print_price(long long p)
{
    if (p < 0)
        printf(" %8s", "-");
    else
        printf(" %8lld", p);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: order_book orders.bin collar_pct\n");
        return 2;
    }
    char *end;
    long collar = strtol(argv[2], &end, 10);
    if (*end != '\0' || end == argv[2] || collar < 0 || collar > 100000L) {
        fprintf(stderr, "usage: order_book orders.bin collar_pct   (collar_pct in 0..100000)\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "order_book: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    unsigned char hdr[12];
    if (fread(hdr, 1, 12, f) != 12 || memcmp(hdr, "OBK1", 4) != 0) {
        fprintf(stderr, "order_book: %s: not an order file\n", argv[1]);
        return 1;
    }
    uint32_t nrec = hdr[4] | hdr[5] << 8 | hdr[6] << 16 | (uint32_t)hdr[7] << 24;
    uint32_t nsym = hdr[8] | hdr[9] << 8 | hdr[10] << 16 | (uint32_t)hdr[11] << 24;
    if (nrec == 0 || nrec > 100000000u || nsym == 0 || nsym > 256) {
        fprintf(stderr, "order_book: %s: bad header\n", argv[1]);
        return 1;
    }
    unsigned char *buf = malloc((size_t)nrec * 8);
    if (fread(buf, 8, nrec, f) != nrec || fgetc(f) != EOF) {
        fprintf(stderr, "order_book: %s: file size does not match header\n", argv[1]);
        return 1;
    }
    fclose(f);

    record *recs = malloc((size_t)nrec * sizeof *recs);
    long *per_sym = calloc(nsym + 1, sizeof *per_sym);
    for (uint32_t i = 0; i < nrec; i++) {
        const unsigned char *p = buf + 8 * (size_t)i;
        record r = {p[0], p[1], (uint16_t)(p[2] | p[3] << 8),
                    p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24};
        int ok = r.sym < nsym && r.kind <= 2;
        if (ok && r.kind == 2)
            ok = r.price < i && recs[r.price].kind != 2 && recs[r.price].sym == r.sym;
        else if (ok)
            ok = r.qty > 0 && r.price > 0;
        if (!ok) {
            fprintf(stderr, "order_book: %s: bad record %u\n", argv[1], i);
            return 1;
        }
        recs[i] = r;
        per_sym[r.sym + 1]++;
    }
    free(buf);

    /* group the record ids by symbol, keeping arrival order */
    for (uint32_t s = 0; s < nsym; s++)
        per_sym[s + 1] += per_sym[s];
    uint32_t *ids = malloc((size_t)nrec * sizeof *ids);
    long *fill = malloc(nsym * sizeof *fill);
    memcpy(fill, per_sym, nsym * sizeof *fill);
    for (uint32_t i = 0; i < nrec; i++)
        ids[fill[recs[i].sym]++] = i;
    free(fill);

    sym_stats *st = malloc(nsym * sizeof *st);

    #pragma omp parallel for
    for (int s = 0; s < (int)nsym; s++)
        run_symbol(recs, ids + per_sym[s], per_sym[s + 1] - per_sym[s], collar, &st[s]);

    printf("records %u, symbols %u, price collar %ld%%\n", nrec, nsym, collar);
    printf("sym   orders rejected  cancels   missed   trades      volume      vwap      bid      ask  resting   filled  avg wait\n");
    sym_stats tot = {0};
    for (uint32_t s = 0; s < nsym; s++) {
        const sym_stats *x = &st[s];
        printf("%3u %8ld %8ld %8ld %8ld %8ld %11lld", s, x->orders, x->rejected, x->cancels,
               x->cancel_misses, x->trades, x->volume);
        if (x->volume > 0)
            printf(" %9.2f", (double)x->notional / (double)x->volume);
        else
            printf(" %9s", "-");
        print_price(x->best_bid);
        print_price(x->best_ask);
        printf(" %8d %8ld", x->bid_orders + x->ask_orders, x->filled);
        if (x->filled > 0)
            printf(" %9.1f\n", (double)x->wait_sum / (double)x->filled);
        else
            printf(" %9s\n", "-");
        tot.orders += x->orders;
        tot.rejected += x->rejected;
        tot.cancels += x->cancels;
        tot.cancel_misses += x->cancel_misses;
        tot.trades += x->trades;
        tot.volume += x->volume;
        tot.notional += x->notional;
        tot.bid_orders += x->bid_orders + x->ask_orders;
        tot.filled += x->filled;
    }
    printf("all %8ld %8ld %8ld %8ld %8ld %11lld %9.2f %17s %8d %8ld\n", tot.orders, tot.rejected,
           tot.cancels, tot.cancel_misses, tot.trades, tot.volume,
           tot.volume ? (double)tot.notional / (double)tot.volume : 0.0, "", tot.bid_orders,
           tot.filled);
    printf("total notional %lld ticks x shares\n", tot.notional);
    free(st);
    free(ids);
    free(per_sym);
    free(recs);
    return 0;
}
