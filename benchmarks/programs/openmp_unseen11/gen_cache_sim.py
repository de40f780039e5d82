#!/usr/bin/env python3
"""Writes cache_sim_trace.bin (a memory-access trace: 8-byte header 'CTR1',
uint32 count, then count little-endian uint32 byte addresses) made of
streaming, looping and random phases, and cache_sim_configs.txt (48 cache
configurations: size in bytes, associativity, line size)."""
import random
import struct
import sys
from array import array

NADDR = 1990000


def main():
    rng = random.Random(99173)
    a = array('I')
    # data regions the phases keep coming back to
    pool = [rng.randrange(0, 1 << 30) & ~0xFFF for _ in range(12)]
    while len(a) < NADDR:
        left = NADDR - len(a)
        kind = rng.random()
        n = min(left, rng.randint(20000, 120000))
        base = rng.choice(pool)
        if kind < 0.35:
            # streaming over one or two arrays with a small stride
            stride = rng.choice((4, 8, 8, 16, 64))
            nstream = rng.choice((1, 2, 3))
            bases = [base + k * (rng.randint(1, 64) << 20) for k in range(nstream)]
            for i in range(n):
                a.append((bases[i % nstream] + (i // nstream) * stride) & 0xFFFFFFFF)
        elif kind < 0.75:
            # loop nest re-walking a working set
            ws = rng.choice((8, 24, 48, 96, 200, 400, 900, 1800, 3000, 6000)) << 10
            stride = rng.choice((4, 8, 32, 64, 256))
            pos = 0
            for i in range(n):
                a.append((base + pos) & 0xFFFFFFFF)
                pos += stride
                if pos >= ws:
                    pos = 0
        else:
            # random accesses with a hot set
            span = rng.choice((64, 512, 4096, 32768)) << 10
            hot = max(4096, span // 16)
            for i in range(n):
                if rng.random() < 0.7:
                    off = rng.randrange(hot)
                else:
                    off = rng.randrange(span)
                a.append((base + (off & ~3)) & 0xFFFFFFFF)
    if sys.byteorder != 'little':
        a.byteswap()
    with open("cache_sim_trace.bin", "wb") as f:
        f.write(b"CTR1" + struct.pack("<I", len(a)))
        f.write(a.tobytes())
    with open("cache_sim_configs.txt", "w") as f:
        f.write("# size_bytes associativity line_bytes\n")
        for kb in (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192):
            for assoc in (1, 2, 8, 16):
                f.write("%d %d 64\n" % (kb * 1024, assoc))


if __name__ == "__main__":
    main()
