#!/usr/bin/env python3
"""Write the 2-D point cloud for gmm_em: a mixture of six Gaussian blobs of
different sizes, shapes and orientations plus a little uniform background."""
import math
import random

OUT = "gmm_points.txt"
N = 20000

# weight, mean x, mean y, sd major, sd minor, angle (degrees)
BLOBS = [
    (0.24, -4.0, -2.5, 1.6, 0.5, 30),
    (0.20, 3.5, 3.0, 1.0, 1.0, 0),
    (0.16, 5.5, -3.0, 2.2, 0.4, -60),
    (0.14, -2.0, 4.5, 0.7, 0.3, 80),
    (0.14, 0.5, 0.0, 1.2, 0.8, 10),
    (0.10, -6.5, 2.0, 0.5, 0.5, 0),
]
NOISE = 0.02


def main():
    rng = random.Random(99)
    weights = [b[0] for b in BLOBS]
    lines = ["# x y"]
    for _ in range(N):
        if rng.random() < NOISE:
            x, y = rng.uniform(-10, 10), rng.uniform(-8, 8)
        else:
            _, mx, my, s1, s2, ang = rng.choices(BLOBS, weights)[0]
            u, v = rng.gauss(0, s1), rng.gauss(0, s2)
            t = math.radians(ang)
            x = mx + u * math.cos(t) - v * math.sin(t)
            y = my + u * math.sin(t) + v * math.cos(t)
        lines.append("%.4f %.4f" % (x, y))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
