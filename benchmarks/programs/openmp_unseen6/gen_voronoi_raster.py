#!/usr/bin/env python3
"""Write a site list for voronoi_raster.

Sites are a mix of a uniform background scatter and several dense Gaussian
clusters (think towns around cities), each with an additive weight: most
weights are small, a few sites ("cities") carry large ones.

File format (text, '#' starts a comment line):
    grid WIDTH HEIGHT
    sites N
    x y weight        (N lines, coordinates in cell units)
"""
import math
import os
import random
import sys

SEED = 31337
WIDTH, HEIGHT = 3000, 3000
N_BACKGROUND = 3600
N_CLUSTERS = 20
N_CLUSTERED = 6000


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "sites.txt")
    rng = random.Random(SEED)
    sites = []
    for _ in range(N_BACKGROUND):
        sites.append((rng.uniform(0, WIDTH), rng.uniform(0, HEIGHT),
                      rng.expovariate(1 / 4.0)))
    centres = [(rng.uniform(150, WIDTH - 150), rng.uniform(150, HEIGHT - 150),
                rng.uniform(30, 160)) for _ in range(N_CLUSTERS)]
    for k in range(N_CLUSTERED):
        cx, cy, spread = centres[k % N_CLUSTERS]
        while True:
            x = rng.gauss(cx, spread)
            y = rng.gauss(cy, spread)
            if 0 <= x < WIDTH and 0 <= y < HEIGHT:
                break
        sites.append((x, y, rng.expovariate(1 / 2.0)))
    # the cluster centres themselves become heavy sites
    for cx, cy, spread in centres:
        sites.append((cx, cy, rng.uniform(20, 70)))
    rng.shuffle(sites)
    with open(out, "w") as f:
        f.write("# additively weighted sites, seed %d\n" % SEED)
        f.write("grid %d %d\n" % (WIDTH, HEIGHT))
        f.write("sites %d\n" % len(sites))
        for x, y, w in sites:
            f.write("%.3f %.3f %.2f\n" % (x, y, min(w, 99.0)))


if __name__ == "__main__":
    main()
