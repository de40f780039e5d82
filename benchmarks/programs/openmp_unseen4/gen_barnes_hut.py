#!/usr/bin/env python3
"""Write galaxies.txt: ~20000 bodies in a few rotating, galaxy-like clumps.

Format: a line with the body count, then one body per line: x y vx vy m
(units with G = 1).
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

# centre x, centre y, bulk vx, bulk vy, bodies, total mass, scale radius, spin sense
CLUMPS = [
    (-4.0, -1.5, 0.25, 0.10, 7000, 1.00, 0.60, +1),
    (3.5, 2.0, -0.20, -0.15, 5500, 0.80, 0.50, -1),
    (1.0, -4.0, -0.05, 0.30, 4000, 0.55, 0.45, +1),
    (-1.5, 4.5, 0.10, -0.25, 2500, 0.35, 0.35, +1),
    (6.0, -3.0, -0.30, 0.05, 1000, 0.12, 0.25, -1),
]


def main():
    rng = random.Random(424242)
    bodies = []
    for cx, cy, bvx, bvy, n, mass, a, spin in CLUMPS:
        m = mass / n
        for _ in range(n):
            # Plummer-like radial profile, truncated at 8 scale radii
            while True:
                u = rng.random()
                r = a / math.sqrt(max(u, 1e-12) ** (-2.0 / 3.0) - 1.0)
                if r < 8 * a:
                    break
            phi = rng.uniform(0.0, 2.0 * math.pi)
            x = cx + r * math.cos(phi)
            y = cy + r * math.sin(phi)
            # near-circular rotation plus a little random motion
            menc = mass * r ** 3 / (r * r + a * a) ** 1.5
            vc = math.sqrt(menc / math.sqrt(r * r + 0.05 ** 2))
            vx = bvx - spin * vc * math.sin(phi) + rng.gauss(0.0, 0.08 * vc + 0.01)
            vy = bvy + spin * vc * math.cos(phi) + rng.gauss(0.0, 0.08 * vc + 0.01)
            bodies.append((x, y, vx, vy, m))
    with open(os.path.join(HERE, "galaxies.txt"), "w") as f:
        f.write("# x y vx vy m\n%d\n" % len(bodies))
        for b in bodies:
            f.write("%.6f %.6f %.6f %.6f %.6e\n" % b)


if __name__ == "__main__":
    main()
