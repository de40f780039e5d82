#!/usr/bin/env python3
"""Generate a ratings CSV (user,item,rating) with very skewed activity per user/item."""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_als_ratings.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(77031)
    nusers, nitems, k = 5000, 2500, 4
    uf = [[rng.gauss(0, 1) for _ in range(k)] for _ in range(nusers)]
    vf = [[rng.gauss(0, 1) for _ in range(k)] for _ in range(nitems)]
    # Zipf-like weights: a few users/items account for most ratings
    uw = [1.0 / (i + 1) ** 1.1 for i in range(nusers)]
    iw = [1.0 / (i + 1) ** 0.9 for i in range(nitems)]
    uperm = list(range(nusers))
    iperm = list(range(nitems))
    rng.shuffle(uperm)
    rng.shuffle(iperm)
    target = 100000
    users = rng.choices(range(nusers), weights=uw, k=target * 2)
    items = rng.choices(range(nitems), weights=iw, k=target * 2)
    seen = set()
    rows = []
    for u, i in zip(users, items):
        if len(rows) >= target:
            break
        uu, ii = uperm[u], iperm[i]
        if (uu, ii) in seen:
            continue
        seen.add((uu, ii))
        s = 3.0 + 0.6 * sum(a * b for a, b in zip(uf[uu], vf[ii])) + rng.gauss(0, 0.4)
        r = min(5.0, max(1.0, round(s * 2) / 2))
        rows.append((uu, ii, r))
    with open(os.path.join(out, "als_ratings.csv"), "w", newline="\n") as f:
        f.write("user,item,rating\n")
        for uu, ii, r in rows:
            f.write("%d,%d,%.1f\n" % (uu, ii, r))


if __name__ == "__main__":
    main()
