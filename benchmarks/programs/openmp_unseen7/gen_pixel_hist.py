#!/usr/bin/env python3
"""Write a synthetic 8-bit aerial-style image (binary PGM) and a file of
regions of interest for pixel_hist.

usage: gen_pixel_hist.py [image.pgm] [regions.txt]
"""
import math
import random
import sys

W, H = 2400, 1800
SEED = 99173


def main():
    img_name = sys.argv[1] if len(sys.argv) > 1 else "scene.pgm"
    roi_name = sys.argv[2] if len(sys.argv) > 2 else "regions.txt"
    rng = random.Random(SEED)

    disks = []
    for _ in range(40):
        disks.append((rng.uniform(0, W), rng.uniform(0, H), rng.uniform(15, 120),
                      rng.randint(150, 245)))
    rects = []
    for _ in range(60):
        x0, y0 = rng.randrange(W - 50), rng.randrange(H - 50)
        rects.append((x0, y0, min(W, x0 + rng.randint(20, 300)),
                      min(H, y0 + rng.randint(20, 200)), rng.randint(10, 90)))
    # a river: dark band following a sine curve
    col_base = [60 + (40 * x) // W for x in range(W)]

    with open(img_name, "wb") as f:
        f.write(b"P5\n# synthetic scene for pixel_hist\n%d %d\n255\n" % (W, H))
        for y in range(H):
            shade = (30 * y) // H
            row = [c + shade for c in col_base]
            # field stripes in the upper right quarter
            if y < H // 2:
                for x0 in range(W // 2, W, 24):
                    for x in range(x0, min(W, x0 + 8)):
                        row[x] += 25
            for (x0, y0, x1, y1, lv) in rects:
                if y0 <= y < y1:
                    row[x0:x1] = [lv] * (x1 - x0)
            for (cx, cy, r, lv) in disks:
                dy = y - cy
                if abs(dy) < r:
                    half = math.sqrt(r * r - dy * dy)
                    a, b = max(0, int(cx - half)), min(W, int(cx + half) + 1)
                    if a < b:
                        row[a:b] = [lv] * (b - a)
            rc = int(W * 0.3 + 250 * math.sin(y / 260.0))
            a, b = max(0, rc - 40), min(W, rc + 40)
            row[a:b] = [35] * (b - a)
            noise = rng.randbytes(W)
            row = [v + (n % 13) - 6 for v, n in zip(row, noise)]
            f.write(bytes(0 if v < 0 else 255 if v > 255 else v for v in row))

    regions = [("full", 0, 0, W, H),
               ("north", 0, 0, W, H // 2),
               ("south", 0, H // 2, W, H - H // 2),
               ("west", 0, 0, W // 2, H),
               ("east", W // 2, 0, W - W // 2, H),
               ("fields", W // 2, 0, W // 2, H // 2),
               ("river", int(W * 0.3) - 300, 0, 600, H),
               ("center", W // 4, H // 4, W // 2, H // 2)]
    bw, bh = W // 3, H // 3
    for by in range(3):
        for bx in range(3):
            regions.append(("block%d%d" % (by, bx), bx * bw, by * bh, bw, bh))
    for k in range(4):
        regions.append(("band%d" % k, 0, k * (H // 4), W, H // 4))
    for k in range(5):
        x, y = rng.randrange(0, W - 400), rng.randrange(0, H - 300)
        regions.append(("tile%d" % (k + 1), x, y, rng.randint(200, 400), rng.randint(150, 300)))
    with open(roi_name, "w", newline="\n") as f:
        f.write("# name x y width height\n")
        for r in regions:
            f.write("%s %d %d %d %d\n" % r)


if __name__ == "__main__":
    main()
