#!/usr/bin/env python3
"""Write a road-distance matrix for route_dijkstra.

Towns are scattered over a 1000 km x 1000 km region; a direct road joins
two towns when they are less than about 60 km apart, and its length is the
straight-line distance times a winding factor.  The matrix is written in
full: one row per town, '-' where there is no direct road.
"""
import math
import random
import sys

N_TOWNS = 1400
RADIUS = 62.0
SEED = 20240611


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "towns.txt"
    rng = random.Random(SEED)
    pts = []
    # a few clustered regions plus a uniform background
    centers = [(rng.uniform(100, 900), rng.uniform(100, 900)) for _ in range(6)]
    for i in range(N_TOWNS):
        if rng.random() < 0.35:
            cx, cy = centers[rng.randrange(len(centers))]
            x = min(999.0, max(0.0, rng.gauss(cx, 70.0)))
            y = min(999.0, max(0.0, rng.gauss(cy, 70.0)))
        else:
            x, y = rng.uniform(0, 1000), rng.uniform(0, 1000)
        pts.append((x, y))

    rows = [["-"] * N_TOWNS for _ in range(N_TOWNS)]
    for i in range(N_TOWNS):
        rows[i][i] = "0"
    # grid buckets to find near pairs quickly
    cell = RADIUS
    buckets = {}
    for i, (x, y) in enumerate(pts):
        buckets.setdefault((int(x // cell), int(y // cell)), []).append(i)
    for i, (x, y) in enumerate(pts):
        bx, by = int(x // cell), int(y // cell)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for j in buckets.get((bx + dx, by + dy), ()):
                    if j <= i:
                        continue
                    d = math.hypot(x - pts[j][0], y - pts[j][1])
                    if d < RADIUS:
                        wind = 1.05 + 0.6 * rng.random() ** 2
                        km = max(1, int(round(d * wind)))
                        rows[i][j] = rows[j][i] = str(km)
    # a long straight-ish motorway across the region, through every 70th town
    chain = sorted(range(0, N_TOWNS, 70), key=lambda k: pts[k][0])
    for a, b in zip(chain, chain[1:]):
        d = math.hypot(pts[a][0] - pts[b][0], pts[a][1] - pts[b][1])
        km = max(1, int(round(d * 1.02)))
        if rows[a][b] == "-" or int(rows[a][b]) > km:
            rows[a][b] = rows[b][a] = str(km)

    with open(out, "w", newline="\n") as f:
        f.write("# road distances in km between %d towns; '-' = no direct road\n" % N_TOWNS)
        f.write("%d\n" % N_TOWNS)
        for r in rows:
            f.write(" ".join(r))
            f.write("\n")


if __name__ == "__main__":
    main()
