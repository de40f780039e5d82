#!/usr/bin/env python3
"""Writes tile_equalize_input.pgm: a 3000x2000 8-bit greyscale image (binary PGM)
with poor, uneven contrast: a dark left part, a washed-out bright right part,
soft discs and stripes of low contrast, and a little pixel noise.
"""
import math
import random

W, H = 3000, 2000
SEED = 314159

def main():
    rng = random.Random(SEED)
    # column base level: dark on the left, bright on the right, flat in between
    bcol = []
    for x in range(W):
        t = x / (W - 1)
        base = 35 + 170 * (0.5 - 0.5 * math.cos(math.pi * t)) ** 1.5
        base += 6 * math.sin(x / 23.0)          # faint vertical stripes
        bcol.append(int(round(base)))
    # soft discs: (cx, cy, radius, brightness change)
    discs = []
    for _ in range(60):
        discs.append((rng.randrange(W), rng.randrange(H), rng.randrange(40, 260),
                      rng.choice([-1, 1]) * rng.randrange(8, 30)))
    clip = bytes(min(255, max(0, v)) for v in range(-256, 512))
    with open("tile_equalize_input.pgm", "wb") as f:
        f.write(b"P5\n# synthetic low-contrast scene\n%d %d\n255\n" % (W, H))
        for y in range(H):
            rowterm = int(round(12 * math.sin(y / 160.0) + 4 * math.sin(y / 7.0)))
            row = [b + rowterm for b in bcol]
            for cx, cy, r, d in discs:
                dy = y - cy
                if -r < dy < r:
                    half = int(math.sqrt(r * r - dy * dy))
                    x0 = max(0, cx - half)
                    x1 = min(W, cx + half + 1)
                    # inner part full strength, rim half strength
                    rim = max(1, half // 6)
                    for x in range(x0, x1):
                        row[x] += d if x0 + rim <= x < x1 - rim else d // 2
            noise = rng.randbytes(W)
            f.write(bytes(clip[v + 256 + (n & 7) - 3] for v, n in zip(row, noise)))

if __name__ == "__main__":
    main()
