#!/usr/bin/env python3
"""Generate a market-basket transactions file for itemsets.c.

One basket per line: item ids (1..NITEMS) separated by spaces.  Item
popularity is Zipf-like, a few hundred planted "patterns" (groups of 3-6
items usually bought together) make frequent pairs and triples, and basket
lengths are very skewed: most baskets have 1-6 items, a few percent are
large (wholesale) baskets with 30-120 items.  Usage: gen_itemsets.py OUTDIR
"""
import os
import random
import sys

NITEMS = 1000


def basket_length(rng):
    r = rng.random()
    if r < 0.55:
        return rng.randint(1, 4)
    if r < 0.85:
        return rng.randint(5, 9)
    if r < 0.97:
        return rng.randint(10, 24)
    return rng.randint(30, 120)


def build(ntrans, seed):
    rng = random.Random(seed)
    weights = [1.0 / (i + 8) ** 1.1 for i in range(NITEMS)]
    ids = list(range(1, NITEMS + 1))
    rng.shuffle(ids)  # popularity is not tied to the id order
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)

    def pick():
        x = rng.random() * acc
        lo, hi = 0, NITEMS - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return ids[lo]

    patterns = []
    for _ in range(300):
        size = rng.randint(3, 6)
        pat = set()
        while len(pat) < size:
            pat.add(pick() if rng.random() < 0.6 else rng.randint(1, NITEMS))
        patterns.append(sorted(pat))
    pat_weights = [1.0 / (k + 3) for k in range(len(patterns))]

    lines = []
    for _ in range(ntrans):
        length = basket_length(rng)
        basket = set()
        # planted patterns: each item of the pattern kept with high probability
        npat = 0
        if length >= 3 and rng.random() < 0.7:
            npat = 1 + length // 12
        for _ in range(npat):
            pat = rng.choices(patterns, weights=pat_weights)[0]
            for it in pat:
                if rng.random() < 0.85:
                    basket.add(it)
        while len(basket) < length:
            basket.add(pick())
        items = list(basket)
        rng.shuffle(items)
        lines.append(" ".join(str(i) for i in items) + "\n")
    return lines


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_itemsets.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "itemsets_baskets.txt"), "w", newline="\n") as f:
        f.writelines(build(40000, 20261124))


if __name__ == "__main__":
    main()
