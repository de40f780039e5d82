#!/usr/bin/env python3
"""Writes fft_rows_image.f32: a 1024x1024 float image for fft_rows.

Format (little endian): magic b"IMGF", uint32 width, uint32 height, then
width*height float32 values, row by row.  The picture is a smooth
background with soft blobs, a few sharp-edged rectangles, a fine
sinusoidal texture and Gaussian noise, so that low-pass filtering at
different cutoffs keeps visibly different parts of the energy.
"""
import math
import random
import struct

W = H = 1024


def main():
    rnd = random.Random(31337)
    blobs = [(rnd.uniform(0, W), rnd.uniform(0, H), rnd.uniform(20, 150),
              rnd.uniform(-1.0, 1.5)) for _ in range(14)]
    rects = [(rnd.randrange(0, W - 200), rnd.randrange(0, H - 200),
              rnd.randrange(30, 200), rnd.randrange(30, 200), rnd.uniform(-0.8, 0.8))
             for _ in range(8)]
    kx, ky = 2 * math.pi * 0.21, 2 * math.pi * 0.17
    out = bytearray(b"IMGF" + struct.pack("<II", W, H))
    row = [0.0] * W
    for y in range(H):
        for x in range(W):
            v = 0.5 + 0.3 * math.sin(x * 0.004 + 0.7) * math.cos(y * 0.006)
            v += 0.08 * math.sin(kx * x + ky * y)
            row[x] = v
        for (cx, cy, r, a) in blobs:
            dy2 = (y - cy) ** 2
            if dy2 > 9 * r * r:
                continue
            inv = 1.0 / (2 * r * r)
            x0, x1 = max(0, int(cx - 3 * r)), min(W, int(cx + 3 * r) + 1)
            for x in range(x0, x1):
                row[x] += a * math.exp(-((x - cx) ** 2 + dy2) * inv)
        for (rx, ry, rw, rh, a) in rects:
            if ry <= y < ry + rh:
                for x in range(rx, rx + rw):
                    row[x] += a
        for x in range(W):
            row[x] += rnd.gauss(0.0, 0.05)
        out += struct.pack("<%df" % W, *row)
    with open("fft_rows_image.f32", "wb") as fh:
        fh.write(out)


if __name__ == "__main__":
    main()
