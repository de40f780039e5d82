#!/usr/bin/env python3
"""Writes contour_lines_height.bin: a 1400 x 1400 float32 height map.

Layout (little endian): char[4] "HMAP", int32 width, int32 height, then
height rows of width float32 values (metres).

The terrain is a sum of separable smooth terms: a broad tilt, long-wave
sinusoidal ridges, a few dozen Gaussian hills and basins, and a little
short-wave ripple, so the contours are long smooth curves plus small loops.
"""
import math
import random
import struct
import sys
from array import array

W = 1400
H = 1400

rng = random.Random(31337)

terms = []          # each term: (list over x, list over y), value = fx[x] * fy[y]

# broad tilt: a*x + b*y written as two separable terms
ones_x = [1.0] * W
ones_y = [1.0] * H
terms.append(([120.0 * x / W for x in range(W)], ones_y))
terms.append((ones_x, [-80.0 * y / H for y in range(H)]))

# long-wave ridges
for _ in range(6):
    kx = rng.uniform(0.5, 4.0) * 2 * math.pi / W
    ky = rng.uniform(0.5, 4.0) * 2 * math.pi / H
    px = rng.uniform(0, 2 * math.pi)
    py = rng.uniform(0, 2 * math.pi)
    amp = rng.uniform(20.0, 60.0)
    terms.append(([amp * math.sin(kx * x + px) for x in range(W)],
                  [math.cos(ky * y + py) for y in range(H)]))

# hills and basins
for _ in range(40):
    cx = rng.uniform(0, W)
    cy = rng.uniform(0, H)
    sx = rng.uniform(20.0, 160.0)
    sy = sx * rng.uniform(0.6, 1.6)
    amp = rng.uniform(-70.0, 110.0)
    terms.append(([amp * math.exp(-((x - cx) / sx) ** 2) for x in range(W)],
                  [math.exp(-((y - cy) / sy) ** 2) for y in range(H)]))

# short-wave ripple
for _ in range(3):
    kx = rng.uniform(20.0, 40.0) * 2 * math.pi / W
    ky = rng.uniform(20.0, 40.0) * 2 * math.pi / H
    px = rng.uniform(0, 2 * math.pi)
    py = rng.uniform(0, 2 * math.pi)
    amp = rng.uniform(1.0, 3.0)
    terms.append(([amp * math.sin(kx * x + px) for x in range(W)],
                  [math.sin(ky * y + py) for y in range(H)]))

out = bytearray(b"HMAP")
out += struct.pack("<ii", W, H)
for y in range(H):
    row = [0.0] * W
    for fx, fy in terms:
        c = fy[y]
        if abs(c) < 1e-9:
            continue
        row = [r + c * v for r, v in zip(row, fx)]
    a = array("f", row)
    if sys.byteorder != "little":
        a.byteswap()
    out += a.tobytes()

with open("contour_lines_height.bin", "wb") as f:
    f.write(out)
