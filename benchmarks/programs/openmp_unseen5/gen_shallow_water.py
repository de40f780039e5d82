#!/usr/bin/env python3
"""Write bathymetry.txt: water depths (metres) of a square basin.

The basin has shallow shelves along the walls, a deep trough, an undersea
ridge, a shoal and some small random roughness. All cells are wet (depth at
least 2 m).
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "bathymetry.txt")

N = 480
DX = 100.0  # metres


def main():
    rng = random.Random(3141)
    # a few random Gaussian bumps for irregularity
    bumps = [(rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.10),
              rng.uniform(-8.0, 8.0)) for _ in range(12)]
    rows = []
    for i in range(N):
        y = (i + 0.5) / N
        row = []
        for j in range(N):
            x = (j + 0.5) / N
            edge = min(x, y, 1.0 - x, 1.0 - y)
            depth = 8.0 + 42.0 * (1.0 - math.exp(-edge / 0.08))        # shelf -> deep
            depth += 15.0 * math.exp(-((x - 0.65) ** 2) / 0.01)          # trough
            depth -= 20.0 * math.exp(-((x + 0.6 * y - 0.75) ** 2) / 0.004)  # ridge
            depth -= 40.0 * math.exp(-((x - 0.25) ** 2 + (y - 0.7) ** 2) / 0.003)  # shoal
            for bx, by, bw, bh in bumps:
                depth += bh * math.exp(-((x - bx) ** 2 + (y - by) ** 2) / (bw * bw))
            depth += rng.uniform(-0.3, 0.3)
            if depth < 2.0:
                depth = 2.0
            row.append("%.1f" % depth)
        rows.append(" ".join(row))
    with open(OUT, "w", newline="\n") as f:
        f.write("# bathymetry: N (cells per side) and cell size in metres,\n")
        f.write("# then N rows of N water depths in metres (row 0 = south)\n")
        f.write("%d %.1f\n" % (N, DX))
        for r in rows:
            f.write(r + "\n")


if __name__ == "__main__":
    main()
