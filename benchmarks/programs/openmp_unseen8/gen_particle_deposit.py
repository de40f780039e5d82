#!/usr/bin/env python3
"""Write eight synthetic particle dumps particles_rank0.bin .. particles_rank7.bin.

Format (little-endian): magic b"PART2D01", uint64 count, float64 xmin, xmax,
ymin, ymax, then count records of float32 x, y, charge.  Each "rank" holds
ions clustered in a few Gaussian blobs and a uniform electron background,
in random order, with a handful of particles that have left the box.
Fixed seed, so the files are identical on every run.
"""
import random
import struct
import sys
from array import array

RANKS = 8
PER_RANK = 640000
BOX = (0.0, 50.0, -25.0, 25.0)   # xmin, xmax, ymin, ymax (mm)


def main():
    rng = random.Random(777001)
    xmin, xmax, ymin, ymax = BOX
    blobs = []
    for _ in range(6):
        cx = rng.uniform(xmin + 5, xmax - 5)
        cy = rng.uniform(ymin + 5, ymax - 5)
        sx = rng.uniform(0.4, 3.0)
        sy = rng.uniform(0.4, 3.0)
        weight = rng.uniform(0.5, 2.0)
        blobs.append((cx, cy, sx, sy, weight))
    blob_cum = []
    acc = 0.0
    for b in blobs:
        acc += b[4]
        blob_cum.append(acc)

    for rank in range(RANKS):
        data = array("f")
        which = rng.choices(range(len(blobs)), cum_weights=blob_cum, k=PER_RANK)
        for k in range(PER_RANK):
            u = rng.random()
            if u < 0.45:
                # ion in one of the blobs (positions wrap periodically)
                cx, cy, sx, sy, _ = blobs[which[k]]
                x = xmin + (rng.gauss(cx, sx) - xmin) % (xmax - xmin)
                y = ymin + (rng.gauss(cy, sy) - ymin) % (ymax - ymin)
                q = 1.0 + 0.25 * rng.randrange(4)
            elif u < 0.9999:
                # background electron
                x = rng.uniform(xmin, xmax)
                y = rng.uniform(ymin, ymax)
                q = -1.0 * rng.choice((0.5, 1.0, 1.0, 1.0))
            else:
                # escaped particle, outside the box
                x = xmax + rng.uniform(0.1, 5.0)
                y = rng.uniform(ymin, ymax)
                q = -1.0
            data.extend((x, y, q))
        # float32 rounding can push a value onto the upper edge; keep those inside
        for i in range(0, len(data), 3):
            if data[i] >= xmax and data[i] < xmax + 0.05:
                data[i] = xmin
            if data[i + 1] >= ymax:
                data[i + 1] = ymin
        if sys.byteorder != "little":
            data.byteswap()
        with open("particles_rank%d.bin" % rank, "wb") as f:
            f.write(b"PART2D01")
            f.write(struct.pack("<Q4d", PER_RANK, *BOX))
            data.tofile(f)


if __name__ == "__main__":
    main()
