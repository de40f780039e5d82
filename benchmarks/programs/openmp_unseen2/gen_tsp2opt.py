#!/usr/bin/env python3
"""Generate a TSPLIB-style instance (EUC_2D) for tsp2opt.c.

Cities are scattered around a handful of towns (Gaussian clusters) plus
some uniformly spread rural points.  Output: cities.tsp
"""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_tsp2opt.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(7741)
    n = 700
    towns = [(rng.uniform(500, 9500), rng.uniform(500, 9500), rng.uniform(150, 900))
             for _ in range(9)]
    pts = []
    while len(pts) < n:
        if rng.random() < 0.8:
            cx, cy, sd = rng.choice(towns)
            x, y = rng.gauss(cx, sd), rng.gauss(cy, sd)
        else:
            x, y = rng.uniform(0, 10000), rng.uniform(0, 10000)
        if 0 <= x <= 10000 and 0 <= y <= 10000:
            pts.append((round(x, 1), round(y, 1)))
    with open(os.path.join(sys.argv[1], "cities.tsp"), "w", newline="\n") as f:
        f.write("NAME : towns%d\n" % n)
        f.write("COMMENT : clustered synthetic instance (seed 7741)\n")
        f.write("TYPE : TSP\n")
        f.write("DIMENSION : %d\n" % n)
        f.write("EDGE_WEIGHT_TYPE : EUC_2D\n")
        f.write("NODE_COORD_SECTION\n")
        for i, (x, y) in enumerate(pts):
            f.write("%d %.1f %.1f\n" % (i + 1, x, y))
        f.write("EOF\n")


if __name__ == "__main__":
    main()
