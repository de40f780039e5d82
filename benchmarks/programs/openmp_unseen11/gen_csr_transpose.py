#!/usr/bin/env python3
"""Write csr_transpose_coo_0.bin .. csr_transpose_coo_4.bin: a 300000 x 300000
sparse matrix with 4,000,000 nonzeros in coordinate form, split into five
parts of 800,000 entries (fixed seed).  Column degrees are very skewed.

Part format (little-endian): magic b'COOP', uint32 rows, uint32 cols,
uint32 count, then count uint64 records packed as
    row << 40 | col << 20 | (value & 0xFFFFF)    (value: signed 20-bit)."""
import random
import struct
import sys
from array import array

NROWS = NCOLS = 300000
PARTS = 5
PER_PART = 800000

def main():
    rng = random.Random(300000)
    heavy = [rng.randrange(NCOLS) for _ in range(8)]
    heavy_share = [0.012, 0.008, 0.006, 0.004, 0.003, 0.002, 0.002, 0.001]
    cum = []
    acc = 0.0
    for s in heavy_share:
        acc += s
        cum.append(acc)
    rnd = rng.random
    rr = rng.randrange
    for part in range(PARTS):
        words = array("Q")
        for _ in range(PER_PART):
            row = rr(NROWS)
            u = rnd()
            if u < acc:
                k = 0
                while cum[k] <= u:
                    k += 1
                col = heavy[k]
            else:
                c = int(NCOLS * rnd() ** 2.5)
                col = (c * 7919 + 13) % NCOLS
            val = rr(1, 20000) - 10000
            if val == 0:
                val = 10000
            words.append((row << 40) | (col << 20) | (val & 0xFFFFF))
        if sys.byteorder != "little":
            words.byteswap()
        with open("csr_transpose_coo_%d.bin" % part, "wb") as f:
            f.write(b"COOP")
            f.write(struct.pack("<III", NROWS, NCOLS, PER_PART))
            f.write(words.tobytes())

if __name__ == "__main__":
    main()
