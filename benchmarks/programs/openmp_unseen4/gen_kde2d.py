#!/usr/bin/env python3
"""Generate clustered 2-D pickup locations (metres in a local projection)
for the kde2d tool: a few busy hot spots, some along streets, and a thin
uniform background.

Writes pickups.csv next to this script."""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 99173
COUNT = 20000
SIZE = 20000.0      # area is SIZE x SIZE metres


def main():
    rng = random.Random(SEED)
    hotspots = []
    for _ in range(14):
        cx = rng.uniform(0.1, 0.9) * SIZE
        cy = rng.uniform(0.1, 0.9) * SIZE
        sx = rng.uniform(150, 1200)
        sy = sx * rng.uniform(0.5, 1.5)
        w = rng.uniform(0.5, 3.0)
        hotspots.append((cx, cy, sx, sy, w))
    # the central district is much busier than the rest
    hotspots.append((SIZE * 0.52, SIZE * 0.47, 400.0, 650.0, 6.0))
    streets = []
    for _ in range(5):
        x0, y0 = rng.uniform(0, SIZE), rng.uniform(0, SIZE)
        ang = rng.uniform(0, math.pi)
        streets.append((x0, y0, math.cos(ang), math.sin(ang), rng.uniform(2000, 9000)))
    total_w = sum(h[4] for h in hotspots)

    pts = []
    while len(pts) < COUNT:
        u = rng.random()
        if u < 0.70:
            t = rng.uniform(0, total_w)
            for cx, cy, sx, sy, w in hotspots:
                t -= w
                if t <= 0:
                    break
            x = rng.gauss(cx, sx)
            y = rng.gauss(cy, sy)
        elif u < 0.90:
            x0, y0, dx, dy, length = rng.choice(streets)
            s = rng.uniform(-length / 2, length / 2)
            x = x0 + dx * s + rng.gauss(0, 40)
            y = y0 + dy * s + rng.gauss(0, 40)
        else:
            x = rng.uniform(0, SIZE)
            y = rng.uniform(0, SIZE)
        if 0 <= x <= SIZE and 0 <= y <= SIZE:
            pts.append((x, y))

    with open(os.path.join(HERE, "pickups.csv"), "w", newline="\n") as f:
        f.write("pickup_x_m,pickup_y_m\n")
        for x, y in pts:
            f.write("%.1f,%.1f\n" % (x, y))


if __name__ == "__main__":
    main()
