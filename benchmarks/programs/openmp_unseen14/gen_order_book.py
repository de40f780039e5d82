#!/usr/bin/env python3
"""Writes order_book_orders.bin: one simulated trading day of order flow.

Layout (little endian):
  char[4]  "OBK1"
  uint32   number of records
  uint32   number of symbols
  records of 8 bytes, in arrival order (the record index is the order id):
    uint8  symbol
    uint8  kind: 0 = buy limit, 1 = sell limit, 2 = cancel
    uint16 quantity (0 for cancels)
    uint32 limit price in ticks, or for a cancel the id of the order to cancel

Symbol activity is Zipf-like; prices follow a per-symbol random walk, most
orders rest near the mid, some cross the spread, a few are fat-finger prices.
"""
import random
import struct

N_RECORDS = 400000
N_SYM = 64

rng = random.Random(99173)

ranks = list(range(N_SYM))
rng.shuffle(ranks)                      # symbol id -> activity rank
weights = [1.0 / (ranks[s] + 1) ** 1.5 for s in range(N_SYM)]
cum = []
acc = 0.0
for w in weights:
    acc += w
    cum.append(acc)

mid = [float(rng.randint(1000, 20000)) for _ in range(N_SYM)]
spread_scale = [max(2.0, m / 1000.0) for m in mid]
live = [[] for _ in range(N_SYM)]       # ids of orders that may still rest

syms = rng.choices(range(N_SYM), cum_weights=cum, k=N_RECORDS)
out = bytearray()
out += b"OBK1"
out += struct.pack("<II", N_RECORDS, N_SYM)
for i in range(N_RECORDS):
    s = syms[i]
    lv = live[s]
    if lv and rng.random() < 0.3:
        # cancel a random earlier order of this symbol
        j = rng.randrange(len(lv))
        target = lv[j]
        lv[j] = lv[-1]
        lv.pop()
        out += struct.pack("<BBHI", s, 2, 0, target)
        continue
    mid[s] = max(50.0, mid[s] + rng.gauss(0.0, 0.4 * spread_scale[s]))
    side = rng.randrange(2)
    r = rng.random()
    if r < 0.002:
        off = -mid[s] * rng.uniform(0.2, 0.6)        # fat finger: far through
    elif r < 0.10:
        off = -rng.uniform(0.0, 4.0) * spread_scale[s]  # marketable
    else:
        off = rng.expovariate(1.0 / (40.0 * spread_scale[s]))
    price = mid[s] - off if side == 0 else mid[s] + off
    price = max(1, int(round(price)))
    if rng.random() < 0.8:
        qty = 100 * rng.randint(1, 10)
    else:
        qty = rng.randint(1, 99)
    out += struct.pack("<BBHI", s, side, qty, price)
    lv.append(i)
    if len(lv) > 100000:
        del lv[:20000]

with open("order_book_orders.bin", "wb") as f:
    f.write(out)
