#!/usr/bin/env python3
"""Write a road-like directed graph for floyd_paths.

floyd_paths_roads.txt: '#' comment lines, then "nodes N edges M", then M lines
"from to minutes" (0-based node numbers, positive integer weights).
Nodes sit on a jittered grid with a few holes (lakes); most streets are
two-way, some one-way, a few fast arterial roads, a separate island and some
dead-end one-way spurs that make some pairs unreachable.
"""
import math
import random

SEED = 31415
W, H = 40, 38


def main():
    rng = random.Random(SEED)
    pos = {}
    for gy in range(H):
        for gx in range(W):
            # lakes: skip two elliptic regions
            if ((gx - 11) / 5.0) ** 2 + ((gy - 10) / 3.5) ** 2 < 1.0:
                continue
            if ((gx - 29) / 3.5) ** 2 + ((gy - 26) / 5.0) ** 2 < 1.0:
                continue
            pos[(gx, gy)] = (gx * 100 + rng.uniform(-30, 30), gy * 100 + rng.uniform(-30, 30))
    cells = sorted(pos, key=lambda c: (c[1], c[0]))
    # island: 12 nodes far away, connected among themselves only
    island = [(W + 5 + i % 4, 2 + i // 4) for i in range(12)]
    for c in island:
        pos[c] = (c[0] * 100 + rng.uniform(-20, 20), c[1] * 100 + rng.uniform(-20, 20))
    cells += island
    ident = {c: i for i, c in enumerate(cells)}
    edges = {}

    def add(a, b, factor):
        (x1, y1), (x2, y2) = pos[a], pos[b]
        wgt = max(1, int(math.hypot(x2 - x1, y2 - y1) * factor / 10.0))
        key = (ident[a], ident[b])
        if key not in edges or edges[key] > wgt:
            edges[key] = wgt

    for c in cells:
        gx, gy = c
        for dx, dy, p in ((1, 0, 0.93), (0, 1, 0.93), (1, 1, 0.12), (1, -1, 0.08)):
            d = (gx + dx, gy + dy)
            if d not in pos or rng.random() > p:
                continue
            arterial = (gy % 7 == 3 and dy == 0) or (gx % 9 == 4 and dx == 0)
            factor = 0.45 if arterial else rng.uniform(0.9, 1.6)
            r = rng.random()
            if r < 0.08:
                add(c, d, factor)  # one-way
            elif r < 0.16:
                add(d, c, factor)  # one-way the other direction
            else:
                add(c, d, factor)
                add(d, c, factor * rng.uniform(0.95, 1.1))
    # dead-end one-way spurs: nodes reachable from the network but with no way back
    spur_base = len(cells)
    spurs = []
    for k in range(6):
        c = cells[rng.randrange(0, len(cells) - len(island))]
        s = ("spur", k)
        pos[s] = (pos[c][0] + 40, pos[c][1] + 40)
        ident[s] = spur_base + k
        spurs.append(s)
        add(c, s, 1.0)
    n = len(cells) + len(spurs)
    lines = sorted((a, b, w) for (a, b), w in edges.items())
    with open("floyd_paths_roads.txt", "w") as f:
        f.write("# floyd_paths road network: from to minutes\n")
        f.write("nodes %d edges %d\n" % (n, len(lines)))
        for a, b, w in lines:
            f.write("%d %d %d\n" % (a, b, w))


if __name__ == "__main__":
    main()
