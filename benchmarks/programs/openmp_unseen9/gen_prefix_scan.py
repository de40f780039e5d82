#!/usr/bin/env python3
"""Write series_a.bin and series_b.bin, the inputs of prefix_scan.

Format: 4-byte magic b"SCN1", uint32 count (little endian), then count
int32 values (little endian)."""
import random
import struct
import sys
from array import array

def write_series(path, values):
    arr = array("i", values)
    if sys.byteorder != "little":
        arr.byteswap()
    with open(path, "wb") as f:
        f.write(b"SCN1" + struct.pack("<I", len(values)))
        f.write(arr.tobytes())

rng = random.Random(7177)

# series A: bursty "traffic" counts with occasional corrections (negatives)
n_a = 1_900_037
a = []
level = 900
for i in range(n_a):
    if i % 4096 == 0:
        level = rng.randint(200, 2200)
    r = rng.random()
    if r < 0.015:
        a.append(-rng.randint(1, 5000))
    elif r < 0.02:
        a.append(rng.randint(2000, 4000))
    else:
        a.append(max(0, level + rng.randint(-150, 150)))
write_series("series_a.bin", a)

# series B: slow periodic modulation with noise, around zero
n_b = 1_700_021
b = []
for i in range(n_b):
    phase = (i % 50_000) / 50_000.0
    tri = 4.0 * abs(phase - 0.5) - 1.0          # triangle wave in [-1, 1]
    b.append(int(round(350 * tri)) + rng.randint(-100, 100))
write_series("series_b.bin", b)
