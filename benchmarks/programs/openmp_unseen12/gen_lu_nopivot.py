#!/usr/bin/env python3
"""Write a diagonally dominant dense test matrix and a right-hand side for lu_nopivot.

lu_nopivot_matrix.bin: 8-byte magic b"LUMATRX1", uint32 n, uint32 reserved (0),
then n*n little-endian doubles, row by row.
lu_nopivot_rhs.txt: first line n, then one value per line.
"""
import random
import struct

N = 960
SEED = 20240612


def main():
    rng = random.Random(SEED)
    rows = []
    for i in range(N):
        row = [rng.uniform(-1.0, 1.0) for _ in range(N)]
        # a few banded "coupling" entries that are larger than the rest
        for d in (1, 2, 7):
            if i + d < N:
                row[i + d] = rng.uniform(-4.0, 4.0)
            if i - d >= 0:
                row[i - d] = rng.uniform(-4.0, 4.0)
        off = sum(abs(v) for j, v in enumerate(row) if j != i)
        row[i] = (off * rng.uniform(1.05, 1.6)) * (1 if rng.random() < 0.8 else -1)
        rows.append(row)
    with open("lu_nopivot_matrix.bin", "wb") as f:
        f.write(b"LUMATRX1")
        f.write(struct.pack("<II", N, 0))
        for row in rows:
            f.write(struct.pack("<%dd" % N, *row))
    with open("lu_nopivot_rhs.txt", "w") as f:
        f.write("%d\n" % N)
        for i in range(N):
            f.write("%.9f\n" % rng.uniform(-100.0, 100.0))


if __name__ == "__main__":
    main()
