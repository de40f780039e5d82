#!/usr/bin/env python3
"""Write dem.bin: a synthetic 700x700 digital elevation model with pits.

Format: 4-byte magic b"DEM1", uint32 width, uint32 height (little endian),
then width*height little-endian uint16 heights in row-major order.
"""
import math
import random
import struct
import sys
from array import array

W, H = 700, 700
rng = random.Random(20240611)

# A few broad hills and basins plus ridges, then noise that makes small pits.
hills = [(rng.uniform(0, W), rng.uniform(0, H), rng.uniform(-900, 1500),
          rng.uniform(60, 220)) for _ in range(24)]
waves = [(rng.uniform(0.004, 0.03), rng.uniform(0.004, 0.03),
          rng.uniform(0, 6.28), rng.uniform(40, 160)) for _ in range(8)]

heights = array("H")
for y in range(H):
    for x in range(W):
        z = 2000.0 + 1.5 * x + 0.8 * y
        for hx, hy, amp, rad in hills:
            dx = x - hx
            dy = y - hy
            d2 = dx * dx + dy * dy
            if d2 < 9.0 * rad * rad:
                z += amp * math.exp(-d2 / (rad * rad))
        for fx, fy, ph, amp in waves:
            z += amp * math.sin(fx * x + fy * y + ph)
        z += rng.uniform(-25.0, 25.0)
        heights.append(max(0, min(65535, int(z))))

if sys.byteorder != "little":
    heights.byteswap()
with open("dem.bin", "wb") as f:
    f.write(b"DEM1" + struct.pack("<II", W, H))
    f.write(heights.tobytes())
