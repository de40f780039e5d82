#!/usr/bin/env python3
"""Writes the inputs of hash_join: hash_join_customers.csv and hash_join_orders.bin.

hash_join_customers.csv: header line "customer_id,region", then 200,000 rows with
distinct customer ids scattered over 1..2,000,000 (shuffled order) and a
region 0..15 (regions of very different sizes).

hash_join_orders.bin: magic b"ORDV", uint32 row count (little endian), then per
order three unsigned LEB128 varints: order id minus the previous order id
(ids ascending, first relative to 0), customer id, amount in cents.
About 1,000,000 orders; a few customers buy a lot, most a little, and
about 1.5% of the orders refer to customer ids that are not in the table.
"""
import random
import struct

NCUST = 200_000
NORD = 1_000_000
NREG = 16


def varint(v, out):
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def main():
    rnd = random.Random(777)
    ids = rnd.sample(range(1, 2_000_001), NCUST)
    id_set = set(ids)
    reg_w = [rnd.uniform(0.2, 3.0) for _ in range(NREG)]
    regions = rnd.choices(range(NREG), weights=reg_w, k=NCUST)
    with open("hash_join_customers.csv", "w") as fh:
        fh.write("customer_id,region\n")
        fh.write("".join("%d,%d\n" % (c, r) for c, r in zip(ids, regions)))

    # buyer popularity: Zipf-like weights over a shuffled customer list
    order = ids[:]
    rnd.shuffle(order)
    cum = []
    acc = 0.0
    for rank in range(NCUST):
        acc += 1.0 / (rank + 10) ** 0.8
        cum.append(acc)
    unknown = [c for c in rnd.sample(range(2_000_001, 2_100_000), 2000)]
    unknown += [c for c in rnd.sample(range(1, 2_000_001), 4000) if c not in id_set]

    out = bytearray(b"ORDV" + struct.pack("<I", NORD))
    oid = 0
    buyers = rnd.choices(order, cum_weights=cum, k=NORD)
    for i in range(NORD):
        step = 1 if rnd.random() < 0.9 else rnd.randrange(2, 40)
        oid += step
        cust = buyers[i]
        if rnd.random() < 0.015:
            cust = unknown[rnd.randrange(len(unknown))]
        amount = int(rnd.lognormvariate(7.6, 0.9))  # cents, median about $20
        if amount < 99:
            amount = 99
        varint(step, out)
        varint(cust, out)
        varint(amount, out)
    with open("hash_join_orders.bin", "wb") as fh:
        fh.write(out)


if __name__ == "__main__":
    main()
