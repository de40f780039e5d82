#!/usr/bin/env python3
"""Write plate masks for mask_heat.c as binary PGM (P5) images.

Pixel values: 0 outside the plate, 255 interior, 1..254 a cell held at that
temperature.  mask_heat_plate.pgm is a rounded plate with bolt holes, a hot
left edge, a cold right edge and two small heaters; mask_heat_manifold.pgm is
a branching pipe-manifold shape with insulated walls (many narrow arms, so
rows have very different numbers of interior cells), a hot inlet and cooled
outlets at the arm ends.

Usage: gen_mask_heat.py OUTDIR
"""
import math
import os
import random
import sys


def edge_temp_plate(x, y, w, h):
    # hot on the left, cold on the right, linear in between, a bit warmer at the top
    t = 220 - 190 * x / (w - 1) + 20 * (1 - y / (h - 1))
    return max(1, min(254, int(round(t))))


def make_plate(w, h, seed):
    rng = random.Random(seed)
    cx, cy = w / 2, h / 2
    holes = [(rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h, rng.uniform(8, 22))
             for _ in range(9)]
    heaters = [(0.35 * w, 0.3 * h, 6, 250), (0.62 * w, 0.72 * h, 5, 5)]
    img = bytearray(w * h)

    def in_plate(x, y):
        # superellipse with a notch cut from the bottom
        u = abs(x - cx) / (0.47 * w)
        v = abs(y - cy) / (0.46 * h)
        if u ** 4 + v ** 4 > 1:
            return False
        if abs(x - cx) < 0.08 * w and y > 0.7 * h:
            return False
        for hx, hy, r in holes:
            if (x - hx) ** 2 + (y - hy) ** 2 < r * r:
                return False
        return True

    dom = [[in_plate(x, y) for x in range(w)] for y in range(h)]
    for y in range(h):
        for x in range(w):
            if not dom[y][x]:
                continue
            edge = (x == 0 or y == 0 or x == w - 1 or y == h - 1 or not dom[y][x - 1] or
                    not dom[y][x + 1] or not dom[y - 1][x] or not dom[y + 1][x])
            if edge:
                # holes near the edge stay insulated: only outer edge and bolt holes fixed
                img[y * w + x] = edge_temp_plate(x, y, w, h)
            else:
                img[y * w + x] = 255
    for hx, hy, r, temp in heaters:
        for y in range(int(hy - r), int(hy + r) + 1):
            for x in range(int(hx - r), int(hx + r) + 1):
                if (x - hx) ** 2 + (y - hy) ** 2 <= r * r and dom[y][x]:
                    img[y * w + x] = temp
    return img


def make_manifold(w, h, seed):
    rng = random.Random(seed)
    dom = [[False] * w for _ in range(h)]

    def disc(px, py, r):
        for y in range(max(1, int(py - r)), min(h - 1, int(py + r) + 1)):
            for x in range(max(1, int(px - r)), min(w - 1, int(px + r) + 1)):
                if (x - px) ** 2 + (y - py) ** 2 <= r * r:
                    dom[y][x] = True

    def pipe(ax, ay, bx, by, r):
        n = int(math.hypot(bx - ax, by - ay)) + 1
        for i in range(n + 1):
            t = i / n
            disc(ax + (bx - ax) * t, ay + (by - ay) * t, r)

    # main trunk across, with a bulge chamber
    pipe(40, h * 0.5, w - 40, h * 0.5, 26)
    disc(w * 0.45, h * 0.5, 90)
    ends = []
    # branches up and down, some forking
    x = 90
    while x < w - 90:
        up = rng.random() < 0.5
        r = rng.uniform(6, 16)
        ey = rng.uniform(25, h * 0.3) if up else rng.uniform(h * 0.7, h - 25)
        ex = x + rng.uniform(-60, 60)
        ex = max(30, min(w - 30, ex))
        pipe(x, h * 0.5, ex, ey, r)
        ends.append((ex, ey, r))
        if rng.random() < 0.5:
            fx = max(30, min(w - 30, ex + rng.uniform(-90, 90)))
            fy = ey + (rng.uniform(-20, 20))
            fy = max(25, min(h - 25, fy))
            pipe(ex, ey, fx, fy, r * 0.7)
            ends.append((fx, fy, r * 0.7))
        x += rng.uniform(40, 110)
    img = bytearray(w * h)
    for y in range(h):
        for x in range(w):
            if not dom[y][x]:
                continue
            img[y * w + x] = 255  # pipe walls are insulated
    # inlet at the left end (hot), outlets at branch ends (cooled, various temperatures)
    for y in range(h):
        for x in range(w):
            if dom[y][x] and x < 45:
                img[y * w + x] = 240
    for (ex, ey, r) in ends:
        temp = rng.randint(5, 60)
        rr = r + 1
        for y in range(int(ey - rr), int(ey + rr) + 1):
            for x in range(int(ex - rr), int(ex + rr) + 1):
                if 0 <= x < w and 0 <= y < h and dom[y][x] and (x - ex) ** 2 + (y - ey) ** 2 <= rr * rr:
                    img[y * w + x] = temp
    return img


def write_pgm(path, img, w, h, comment):
    with open(path, "wb") as f:
        f.write(b"P5\n# %s\n%d %d\n255\n" % (comment.encode(), w, h))
        f.write(bytes(img))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_mask_heat.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    w, h = 400, 300
    write_pgm(os.path.join(out, "mask_heat_plate.pgm"), make_plate(w, h, 31), w, h,
              "plate with bolt holes, generated by gen_mask_heat.py seed 31")
    w, h = 900, 600
    write_pgm(os.path.join(out, "mask_heat_manifold.pgm"), make_manifold(w, h, 77), w, h,
              "pipe manifold, generated by gen_mask_heat.py seed 77")


if __name__ == "__main__":
    main()
