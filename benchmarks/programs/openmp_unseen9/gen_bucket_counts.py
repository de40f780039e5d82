#!/usr/bin/env python3
"""Writes sensor_00.bin .. sensor_14.bin: 32-bit sensor readings in SNSR format."""
import random
import struct
from statistics import NormalDist

NFILES = 15
COUNT = 1950000          # readings per file (7.8 MB per file)
rng = random.Random(31337)


def clamp(v):
    return max(0, min(255, int(round(v))))


for f in range(NFILES):
    # the top byte of a reading follows a two-peak distribution that drifts
    # from file to file; the second byte is skewed, the low bytes are noise
    main = NormalDist(96 + 2.5 * f, 14)
    side = NormalDist(188 - 1.5 * f, 5)
    top = [clamp(main.inv_cdf((i + 0.5) / 208)) for i in range(208)]
    top += [clamp(side.inv_cdf((i + 0.5) / 48)) for i in range(48)]
    rng.shuffle(top)
    second = [clamp(255.999 * ((i + 0.5) / 256) ** (1.2 + 0.05 * f)) for i in range(256)]
    rng.shuffle(second)

    data = bytearray(rng.randbytes(4 * COUNT))
    data[3::4] = bytes(data[3::4]).translate(bytes(top))
    data[2::4] = bytes(data[2::4]).translate(bytes(second))
    with open("sensor_%02d.bin" % f, "wb") as out:
        out.write(b"SNSR" + struct.pack("<II", 1, COUNT))
        out.write(data)
