#!/usr/bin/env python3
"""Write kmedoids_swap_points.bin: 3000 integer points in 6-D (fixed seed).

Format (little-endian): magic b'KMP6', int32 count, int32 dims, then
count*dims int32 coordinates, point by point."""
import random
import struct

def main():
    rng = random.Random(777001)
    n, d = 3000, 6
    ncl = 14
    centres = [[rng.randint(1000, 99000) for _ in range(d)] for _ in range(ncl)]
    spreads = [rng.uniform(1500.0, 9000.0) for _ in range(ncl)]
    weights = [rng.uniform(0.3, 2.0) for _ in range(ncl)]
    coords = []
    for i in range(n):
        if rng.random() < 0.04:
            pt = [rng.randint(0, 100000) for _ in range(d)]
        else:
            c = rng.choices(range(ncl), weights=weights)[0]
            pt = [int(round(rng.gauss(centres[c][k], spreads[c]))) for k in range(d)]
            pt = [min(100000, max(0, v)) for v in pt]
        coords.extend(pt)
    with open("kmedoids_swap_points.bin", "wb") as f:
        f.write(b"KMP6")
        f.write(struct.pack("<ii", n, d))
        f.write(struct.pack("<%di" % len(coords), *coords))

if __name__ == "__main__":
    main()
