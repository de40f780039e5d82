#!/usr/bin/env python3
"""Generate a synthetic greyscale scene corrupted by salt-and-pepper noise.

The noise density grows towards the bottom of the frame (as with a sensor
that degrades along one edge), so some rows are far noisier than others.

usage: gen_adaptive_median.py OUTDIR   -> writes OUTDIR/am_scene.pgm
"""
import math
import os
import random
import sys

W, H = 640, 480


def clean_pixel(x, y, shapes):
    # smooth background: diagonal gradient with a gentle ripple
    v = 60.0 + 90.0 * (x / W) + 40.0 * (y / H)
    v += 12.0 * math.sin(x * 0.045) * math.cos(y * 0.031)
    for kind, cx, cy, r, level in shapes:
        if kind == 0:
            if (x - cx) ** 2 + (y - cy) ** 2 <= r * r:
                v = level
        else:
            if abs(x - cx) <= r and abs(y - cy) <= 0.6 * r:
                v = level
    # fine stripes in one corner (texture detail that a good filter keeps)
    if x > 500 and y < 120:
        v = 128 + 70 * (1 if (x // 4) % 2 == 0 else -1)
    return max(0, min(255, int(round(v))))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_adaptive_median.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    rng = random.Random(20240611)
    shapes = []
    for _ in range(14):
        shapes.append((rng.randrange(2), rng.uniform(0, W), rng.uniform(0, H),
                       rng.uniform(15, 70), rng.randrange(20, 236)))
    data = bytearray(W * H)
    for y in range(H):
        density = 0.04 + 0.56 * (y / (H - 1)) ** 2
        for x in range(W):
            v = clean_pixel(x, y, shapes)
            u = rng.random()
            if u < density * 0.5:
                v = 0
            elif u < density:
                v = 255
            data[y * W + x] = v
    path = os.path.join(out, "am_scene.pgm")
    with open(path, "wb") as f:
        f.write(b"P5\n# synthetic scene, salt-and-pepper noise\n%d %d\n255\n" % (W, H))
        f.write(bytes(data))


if __name__ == "__main__":
    main()
