#!/usr/bin/env python3
"""Write spgemm_rows_matrix.bin: a 60,000 x 60,000 sparse integer matrix with
power-law row lengths and skewed column popularity (a few hub columns)."""
import random
import struct
from array import array

N = 60000
ALPHA = 2.2          # exponent of the row-length power law
XMIN = 1.8
MAXLEN = 6000
SEED = 20240614


def main():
    rng = random.Random(SEED)
    target = []
    for _ in range(N):
        u = 1.0 - rng.random()
        L = int(XMIN * u ** (-1.0 / (ALPHA - 1.0)))
        target.append(max(1, min(L, MAXLEN)))
    # column popularity follows the row lengths (like a power-law graph whose
    # hubs have both many out- and many in-links): rank 0 = longest row
    perm = sorted(range(N), key=lambda i: (-target[i], i))
    lens = array('i')
    cols = array('i')
    vals = array('b')
    for i in range(N):
        L = target[i]
        row = set()
        while len(row) < L:
            if rng.random() < 0.2:
                c = rng.randrange(N)
            else:
                c = perm[int(N * rng.random() ** 5)]
            row.add(c)
        rc = sorted(row)
        lens.append(len(rc))
        cols.extend(rc)
        for _c in rc:
            v = rng.randint(-9, 9)
            if v == 0:
                v = 1
            vals.append(v)
    assert lens.itemsize == 4 and cols.itemsize == 4 and vals.itemsize == 1
    if struct.pack('=i', 1) != struct.pack('<i', 1):
        lens.byteswap(); cols.byteswap()
    with open('spgemm_rows_matrix.bin', 'wb') as f:
        f.write(b'CSRI')
        f.write(struct.pack('<IQ', N, len(cols)))
        f.write(lens.tobytes())
        f.write(cols.tobytes())
        f.write(vals.tobytes())


if __name__ == '__main__':
    main()
