#!/usr/bin/env python3
"""Generate a synthetic terrain model (ESRI ASCII grid) and a list of
observer positions for the viewshed tool.

Writes terrain.asc and observers.txt next to this script."""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N = 600            # grid is N x N cells
CELL = 25.0        # metres per cell
SEED = 20240611


def value_noise(rng, n, period):
    """Bilinearly interpolated random lattice noise in [-1, 1]."""
    m = n // period + 2
    lat = [[rng.uniform(-1.0, 1.0) for _ in range(m)] for _ in range(m)]
    out = []
    for r in range(n):
        fr = r / period
        i = int(fr)
        ty = fr - i
        ty = ty * ty * (3 - 2 * ty)
        row0 = lat[i]
        row1 = lat[i + 1]
        line = []
        for c in range(n):
            fc = c / period
            j = int(fc)
            tx = fc - j
            tx = tx * tx * (3 - 2 * tx)
            a = row0[j] + (row0[j + 1] - row0[j]) * tx
            b = row1[j] + (row1[j + 1] - row1[j]) * tx
            line.append(a + (b - a) * ty)
        out.append(line)
    return out


def main():
    rng = random.Random(SEED)
    octaves = [(150, 260.0), (60, 110.0), (24, 40.0), (8, 9.0)]
    layers = [value_noise(rng, N, p) for p, _ in octaves]

    # a few long ridges crossing the area
    ridges = []
    for _ in range(5):
        ang = rng.uniform(0, math.pi)
        off = rng.uniform(-0.4, 0.4) * N
        height = rng.uniform(120, 320)
        width = rng.uniform(18, 45)
        ridges.append((math.cos(ang), math.sin(ang), off, height, width))
    # a winding valley
    valley_amp = rng.uniform(40, 80)
    valley_per = rng.uniform(180, 260)

    heights = []
    for r in range(N):
        row = []
        for c in range(N):
            h = 400.0
            for k, (_, amp) in enumerate(octaves):
                h += amp * layers[k][r][c]
            for cx, sy, off, hh, w in ridges:
                d = (c - N / 2) * sy - (r - N / 2) * cx - off
                h += hh * math.exp(-(d * d) / (2 * w * w))
            vc = N * 0.45 + valley_amp * math.sin(r / valley_per * 2 * math.pi)
            d = c - vc
            h -= 150.0 * math.exp(-(d * d) / (2 * 30.0 * 30.0))
            row.append(max(h, 5.0))
        heights.append(row)

    with open(os.path.join(HERE, "terrain.asc"), "w", newline="\n") as f:
        f.write("ncols        %d\n" % N)
        f.write("nrows        %d\n" % N)
        f.write("xllcorner    0.0\n")
        f.write("yllcorner    0.0\n")
        f.write("cellsize     %.1f\n" % CELL)
        f.write("NODATA_value -9999\n")
        for row in heights:
            f.write(" ".join("%.1f" % h for h in row))
            f.write("\n")

    # observers: towers on high ground plus a few random spots
    obs = []
    tries = 0
    while len(obs) < 28 and tries < 100000:
        tries += 1
        r = rng.randrange(10, N - 10)
        c = rng.randrange(10, N - 10)
        if heights[r][c] > 560 and all((r - a) ** 2 + (c - b) ** 2 > 60 ** 2 for a, b, _ in obs):
            obs.append((r, c, rng.choice([10.0, 15.0, 20.0, 30.0])))
    while len(obs) < 40:
        r = rng.randrange(0, N)
        c = rng.randrange(0, N)
        obs.append((r, c, rng.choice([2.0, 5.0, 10.0])))

    with open(os.path.join(HERE, "observers.txt"), "w", newline="\n") as f:
        f.write("# x_m y_m height_above_ground_m\n")
        for r, c, h in obs:
            x = (c + 0.5) * CELL
            y = (N - 1 - r + 0.5) * CELL
            f.write("%.1f %.1f %.1f\n" % (x, y, h))


if __name__ == "__main__":
    main()
