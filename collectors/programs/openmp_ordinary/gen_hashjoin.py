#!/usr/bin/env python3
"""Write the two CSV tables for hashjoin.c.

hashjoin_customers.csv  customer_id,region,segment: 14000 customers with
                        sparse ids, skewed region sizes, three repeated ids
hashjoin_orders.csv     order_id,customer_id,amount,date: 40000 orders in
                        2025, a few customers ordering very often, about 2%
                        with a customer id that is not in the customers
                        table, about 1% refunds (negative amounts)

Usage: gen_hashjoin.py OUTDIR
"""
import bisect
import math
import os
import random
import sys

REGIONS = [("North", 5), ("South", 3), ("East", 4), ("West", 6), ("Central", 2)]
SEGMENTS = [("consumer", 6), ("business", 3), ("public", 1)]
DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def weighted(rng, items):
    total = sum(w for _, w in items)
    r = rng.uniform(0, total)
    for name, w in items:
        r -= w
        if r <= 0:
            return name
    return items[-1][0]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_hashjoin.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(4242)

    ids = rng.sample(range(100000, 1000000), 14000)
    customers = [(cid, weighted(rng, REGIONS), weighted(rng, SEGMENTS)) for cid in ids]
    rows = list(customers)
    for k in (17, 5000, 9999):  # repeated ids (later rows are data-entry errors)
        rows.insert(k + 100, (customers[k][0], weighted(rng, REGIONS), weighted(rng, SEGMENTS)))
    with open(os.path.join(out, "hashjoin_customers.csv"), "w", newline="\n") as f:
        f.write("customer_id,region,segment\n")
        for cid, reg, seg in rows:
            f.write("%d,%s,%s\n" % (cid, reg, seg))

    known = set(ids)
    # Zipf-like popularity of customers
    weights = [1.0 / (i + 1) ** 0.8 for i in range(len(ids))]
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    with open(os.path.join(out, "hashjoin_orders.csv"), "w", newline="\n") as f:
        f.write("order_id,customer_id,amount,date\n")
        oid = 5000000
        for _ in range(40000):
            oid += rng.randint(1, 3)
            if rng.random() < 0.02:
                cid = rng.randrange(100000, 1000000)
                while cid in known:
                    cid = rng.randrange(100000, 1000000)
            else:
                cid = ids[bisect.bisect_left(cum, rng.uniform(0, acc))]
            cents = int(math.exp(rng.gauss(8.5, 1.2)))
            if rng.random() < 0.01:
                cents = -cents
            month = rng.randrange(12)
            day = rng.randint(1, DAYS[month])
            sign = "-" if cents < 0 else ""
            f.write("%d,%d,%s%d.%02d,2025-%02d-%02d\n" % (oid, cid, sign, abs(cents) // 100,
                                                         abs(cents) % 100, month + 1, day))


if __name__ == "__main__":
    main()
