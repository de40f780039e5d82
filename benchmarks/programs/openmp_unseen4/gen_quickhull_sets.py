#!/usr/bin/env python3
"""Generate clouds.txt: 2-D integer point clouds for quickhull_sets.

Format: first line is the number of clouds; each cloud starts with a line
"<shape> <n>" followed by n lines "x y" (integers in 0..9999).
Shapes: disc, square, ring, gauss.
"""
import math
import os
import random

N_CLOUDS = 1500
COORD_MAX = 9999
LARGE = [40000, 26000, 18000, 14000, 11000, 9000, 7500, 6000, 5000, 4200,
         3600, 3000, 2600, 2200, 1900, 1600, 1400, 1200, 1000, 900]


def cloud(rng, shape, n):
    r = rng.uniform(500.0, 2500.0)
    cx = rng.uniform(r + 10, COORD_MAX - r - 10)
    cy = rng.uniform(r + 10, COORD_MAX - r - 10)
    rot = rng.uniform(0.0, math.pi / 2.0)
    cr, sr = math.cos(rot), math.sin(rot)
    pts = []
    while len(pts) < n:
        if shape == "disc":
            a = rng.uniform(0.0, 2.0 * math.pi)
            d = r * math.sqrt(rng.random())
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        elif shape == "square":
            u, v = rng.uniform(-r, r) * 0.7, rng.uniform(-r, r) * 0.7
            x, y = cx + cr * u - sr * v, cy + sr * u + cr * v
        elif shape == "ring":
            a = rng.uniform(0.0, 2.0 * math.pi)
            d = r * rng.uniform(0.85, 1.0)
            x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        else:
            x, y = rng.gauss(cx, r / 3.0), rng.gauss(cy, r / 3.0)
        xi, yi = int(round(x)), int(round(y))
        if 0 <= xi <= COORD_MAX and 0 <= yi <= COORD_MAX:
            pts.append((xi, yi))
    return pts


def main():
    rng = random.Random(777)
    sizes = [int(50 * 6 ** (rng.random() ** 2)) for _ in range(N_CLOUDS - len(LARGE))]
    sizes += LARGE
    rng.shuffle(sizes)
    shapes = ("disc", "square", "ring", "gauss")
    lines = [str(N_CLOUDS)]
    for n in sizes:
        shape = rng.choice(shapes)
        lines.append("%s %d" % (shape, n))
        lines.extend("%d %d" % p for p in cloud(rng, shape, n))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clouds.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
