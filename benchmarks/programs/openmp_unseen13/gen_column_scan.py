#!/usr/bin/env python3
"""Write the inputs of column_scan: four binary columns and a query file.

The table "sales" is a made-up sales log of 1,000,000 rows, one file per
column, little-endian, no header:
  sales.day.i32       int32    day number 0..1460 (four years), growing slowly
  sales.qty.i32       int32    items in the order, 1..200, skewed to small values
  sales.price.f32     float32  unit price in currency units (log-normal), cents
  sales.discount.f32  float32  discount rate 0.00 .. 0.40
sales_queries.txt holds 60 queries, one per line:
  AGGCOL where COL1 between LO1 and HI1 and COL2 between LO2 and HI2
"""
import math
import random
import struct

SEED = 31337
ROWS = 1_000_000
N_QUERIES = 60


def main():
    rng = random.Random(SEED)
    day, qty, price, disc = [], [], [], []
    for r in range(ROWS):
        d = int(r * 1461 / ROWS + rng.gauss(0.0, 6.0))
        day.append(min(1460, max(0, d)))
        qty.append(min(200, 1 + int(rng.expovariate(1.0 / 12.0))))
        price.append(round(math.exp(rng.gauss(3.2, 1.1)), 2))
        disc.append(round(rng.choice((0.0, 0.0, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4))
                          if rng.random() < 0.9 else rng.uniform(0.0, 0.4), 2))
    with open("sales.day.i32", "wb") as f:
        f.write(struct.pack("<%di" % ROWS, *day))
    with open("sales.qty.i32", "wb") as f:
        f.write(struct.pack("<%di" % ROWS, *qty))
    with open("sales.price.f32", "wb") as f:
        f.write(struct.pack("<%df" % ROWS, *price))
    with open("sales.discount.f32", "wb") as f:
        f.write(struct.pack("<%df" % ROWS, *disc))

    ranges = {
        "day": lambda: sorted(rng.sample(range(0, 1461), 2)),
        "qty": lambda: sorted(rng.sample(range(1, 201), 2)),
        "price": lambda: sorted(round(math.exp(rng.uniform(0.0, 6.0)), 2) for _ in range(2)),
        "discount": lambda: sorted(rng.choice((0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4))
                                   for _ in range(2)),
    }
    names = ["day", "qty", "price", "discount"]
    lines = []
    for q in range(N_QUERIES):
        agg = names[q % 4]
        c1, c2 = rng.sample([c for c in names if c != agg] if q % 3 else names, 2)
        lo1, hi1 = ranges[c1]()
        lo2, hi2 = ranges[c2]()
        lines.append("%s where %s between %s and %s and %s between %s and %s"
                     % (agg, c1, lo1, hi1, c2, lo2, hi2))
    with open("sales_queries.txt", "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
