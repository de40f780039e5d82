#!/usr/bin/env python3
"""Write bin_packing_instances.txt: one-dimensional bin-packing instances.

Four families, sizes between 50 and 2000 items:
  u  - uniform sizes in [20, 100], capacity 150 (Falkenauer style)
  t  - triplets that fill a bin of 1000 exactly (optimum = n/3)
  s  - many small items in [1, 2500], capacity 10000
  m  - medium items in [200, 500], capacity 1000
"""
import random

SEED = 20240601
OUT = "bin_packing_instances.txt"
COUNT = 400


def uniform(rng, n):
    return 150, [rng.randint(20, 100) for _ in range(n)]


def triplets(rng, n):
    n -= n % 3
    items = []
    for _ in range(n // 3):
        a = rng.randint(380, 490)
        b = rng.randint(250, 1000 - a - 250)
        items += [a, b, 1000 - a - b]
    rng.shuffle(items)
    return 1000, items


def small(rng, n):
    return 10000, [rng.randint(1, 2500) for _ in range(n)]


def medium(rng, n):
    return 1000, [rng.randint(200, 500) for _ in range(n)]


FAMILIES = [("u", uniform), ("t", triplets), ("s", small), ("m", medium)]
SIZES = [50, 60, 100, 120, 200, 250, 500, 501, 750, 1000, 1200, 1500, 2000]


def main():
    rng = random.Random(SEED)
    out = ["# bin packing instances: header line, then the item sizes"]
    for k in range(COUNT):
        tag, make = rng.choice(FAMILIES)
        n = rng.choice(SIZES)
        cap, items = make(rng, n)
        out.append("instance %s%s_%03d capacity %d items %d" % (tag, len(items), k, cap, len(items)))
        for i in range(0, len(items), 20):
            out.append(" ".join(map(str, items[i:i + 20])))
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
