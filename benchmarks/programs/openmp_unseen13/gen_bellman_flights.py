#!/usr/bin/env python3
"""Write flight_network.bin for bellman_flights.

A made-up flight network: 20,000 airports scattered over a long 16000 x 300 map
(denser around a few dozen population centres, plus a small remote island
group with no connection to the mainland).  Every airport gets flights to
its nearest neighbours and to a few other airports in its region; a hundred
hub airports also get long-haul routes.  Regional fares are integers that
grow faster than linearly with distance, so the cheapest itineraries are
usually long chains of short hops; long-haul fares grow linearly.  A few airports are "departure only" (no incoming
flights).

Airport numbers are a random permutation (they carry no geography).
Format (little-endian): 8 bytes magic "FLTNET01", uint32 N (airports),
uint32 M (flights), then M records of three uint16: from, to, fare
(0-based airport numbers).
"""
import math
import random
import struct

SEED = 777
N = 20000
ISLAND = 150          # airports in the remote island group
N_NEAR = 12
N_REGION = 8
N_HUBS = 100
HUB_ROUTES = 40
MAP_W = 16000.0
MAP_H = 300.0


def main():
    rng = random.Random(SEED)
    centres = [(rng.uniform(100, MAP_W - 100), rng.uniform(50, MAP_H - 50), rng.uniform(40, 160))
               for _ in range(40)]
    pts = []
    main_n = N - ISLAND
    for i in range(main_n):
        if rng.random() < 0.6:
            cx, cy, s = rng.choice(centres)
            x = min(MAP_W, max(0.0, rng.gauss(cx, s)))
            y = min(MAP_H, max(0.0, rng.gauss(cy, s)))
        else:
            x, y = rng.uniform(0, MAP_W), rng.uniform(0, MAP_H)
        pts.append((x, y))
    for i in range(ISLAND):        # far away island group
        pts.append((MAP_W + 400 + rng.uniform(0, 120), rng.uniform(0, 120)))

    cell = 25.0
    grid = {}
    for i, (x, y) in enumerate(pts):
        grid.setdefault((int(x // cell), int(y // cell)), []).append(i)

    def near(i, k, radius_cells):
        x, y = pts[i]
        gx, gy = int(x // cell), int(y // cell)
        r = 1
        while True:
            cand = []
            for a in range(gx - r, gx + r + 1):
                for b in range(gy - r, gy + r + 1):
                    cand.extend(grid.get((a, b), ()))
            if len(cand) > k * 2 or r >= radius_cells:
                break
            r += 1
        cand = [j for j in cand if j != i]
        cand.sort(key=lambda j: ((pts[j][0] - x) ** 2 + (pts[j][1] - y) ** 2, j))
        return cand

    def fare(i, j):
        d = math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1])
        return min(60000, int(1 + 0.03 * d ** 1.8 * rng.uniform(0.85, 1.3)))

    def longhaul_fare(i, j):
        d = math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1])
        return int(60 + 0.6 * d * rng.uniform(0.85, 1.3))

    departure_only = set(rng.sample(range(main_n), 60))
    edges = []
    for i in range(N):
        cand = near(i, N_NEAR + N_REGION, 40)
        targets = cand[:N_NEAR]
        rest = cand[N_NEAR:]
        if rest:
            targets += rng.sample(rest, min(N_REGION, len(rest)))
        for j in targets:
            if j not in departure_only:
                edges.append((i, j, fare(i, j)))
    hubs = rng.sample(range(main_n), N_HUBS)
    for h in hubs:
        for _ in range(HUB_ROUTES):
            j = rng.choice(hubs)
            if j != h:
                edges.append((h, j, longhaul_fare(h, j)))
    # airport numbers are arbitrary: relabel with a random permutation
    perm = list(range(N))
    rng.shuffle(perm)
    edges = [(perm[a], perm[b], c) for a, b, c in edges]
    rng.shuffle(edges)
    with open("flight_network.bin", "wb") as f:
        f.write(b"FLTNET01")
        f.write(struct.pack("<II", N, len(edges)))
        f.write(b"".join(struct.pack("<HHH", a, b, c) for a, b, c in edges))

if __name__ == "__main__":
    main()
