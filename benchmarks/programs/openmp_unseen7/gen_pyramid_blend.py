#!/usr/bin/env python3
"""Write a grayscale test image and a blend mask (binary PGMs) for
pyramid_blend.

usage: gen_pyramid_blend.py [image.pgm] [mask.pgm]
"""
import math
import random
import sys

W, H = 1700, 1700
SEED = 515


def write_pgm(name, rows, comment):
    with open(name, "wb") as f:
        f.write(b"P5\n# %s\n%d %d\n255\n" % (comment.encode(), W, H))
        for r in rows:
            f.write(r)


def main():
    img_name = sys.argv[1] if len(sys.argv) > 1 else "photo.pgm"
    mask_name = sys.argv[2] if len(sys.argv) > 2 else "mask.pgm"
    rng = random.Random(SEED)

    # smooth background: a few plane waves
    waves = [(rng.uniform(-0.02, 0.02), rng.uniform(-0.02, 0.02), rng.uniform(0, 6.28),
              rng.uniform(8, 25)) for _ in range(5)]
    blobs = [(rng.uniform(0, W), rng.uniform(0, H), rng.uniform(30, 220),
              rng.uniform(-90, 90)) for _ in range(30)]
    xs = list(range(W))
    rows = []
    for y in range(H):
        row = [110.0 + 50.0 * x / W for x in xs]
        for (kx, ky, ph, amp) in waves:
            c = ky * y + ph
            row = [v + amp * math.sin(kx * x + c) for v, x in zip(row, xs)]
        for (cx, cy, r, lv) in blobs:
            dy = y - cy
            if abs(dy) < r:
                half = math.sqrt(r * r - dy * dy)
                a, b = max(0, int(cx - half)), min(W, int(cx + half) + 1)
                for x in range(a, b):
                    row[x] += lv
        # fine checker texture in one corner
        if y > H * 0.7:
            row = [v + (12.0 if ((x // 6 + y // 6) & 1) and x > W * 0.6 else 0.0)
                   for v, x in zip(row, xs)]
        noise = rng.randbytes(W)
        rows.append(bytes(min(255, max(0, int(v + (n % 9) - 4))) for v, n in zip(row, noise)))
    write_pgm(img_name, rows, "synthetic photo for pyramid_blend")

    # mask: left part with a wavy border, plus a disc on the right
    mrows = []
    cx, cy, rad = W * 0.72, H * 0.4, W * 0.16
    for y in range(H):
        border = W * 0.45 + 60 * math.sin(y / 90.0)
        dy = y - cy
        row = bytearray(W)
        for x in range(W):
            if x < border or (x - cx) ** 2 + dy * dy < rad * rad:
                row[x] = 255
        mrows.append(bytes(row))
    write_pgm(mask_name, mrows, "blend mask: 255 = first image")


if __name__ == "__main__":
    main()
