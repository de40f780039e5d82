#!/usr/bin/env python3
"""Write photo.pgm: a synthetic 8-bit grayscale test picture (binary PGM).

The scene mixes smooth areas (sky gradient, soft cloud texture), sharp
edges (hills, a sun disc, a building with windows), fine periodic texture
and a little sensor noise, so that block-DCT compression has both easy and
hard regions to deal with.
"""
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "photo.pgm")

W = H = 1920


def main():
    rng = random.Random(90210)
    # coarse random grid for smooth "cloud" value noise
    G = 33
    grid = [[rng.random() for _ in range(G + 1)] for _ in range(G + 1)]
    cell = W / G
    hill1 = [(rng.uniform(0.002, 0.01), rng.uniform(0, 6.3), rng.uniform(20, 80)) for _ in range(4)]
    hill2 = [(rng.uniform(0.004, 0.02), rng.uniform(0, 6.3), rng.uniform(10, 40)) for _ in range(4)]
    h1 = [int(1150 + sum(a * math.sin(f * x + p) for f, p, a in hill1)) for x in range(W)]
    h2 = [int(1450 + sum(a * math.sin(f * x + p) for f, p, a in hill2)) for x in range(W)]
    sun_x, sun_y, sun_r = 1450, 420, 170
    bx0, bx1, by0 = 300, 760, 700  # building
    noise = bytes(rng.randrange(9) for _ in range(65536))

    data = bytearray(W * H)
    k = 0
    for y in range(H):
        gy = y / cell
        iy = int(gy)
        fy = gy - iy
        r0, r1 = grid[iy], grid[iy + 1]
        sky = 90 + 110 * y / H
        for x in range(W):
            if y > h2[x]:
                # foreground field with furrows
                v = 70 + 25 * math.sin(0.35 * x + 0.02 * y * y / 40) + 0.02 * (y - 1450)
            elif y > h1[x]:
                v = 110 - 0.03 * (y - h1[x]) + (12 if (x // 24 + y // 24) % 2 else 0)
            elif bx0 <= x < bx1 and y >= by0:
                wx, wy = (x - bx0) % 64, (y - by0) % 80
                v = 215 if (8 <= wx < 40 and 12 <= wy < 56) else 60 + (x - bx0) * 0.05
            elif (x - sun_x) ** 2 + (y - sun_y) ** 2 < sun_r * sun_r:
                v = 245
            else:
                gx = x / cell
                ix = int(gx)
                fx = gx - ix
                c = (r0[ix] * (1 - fx) + r0[ix + 1] * fx) * (1 - fy) + \
                    (r1[ix] * (1 - fx) + r1[ix + 1] * fx) * fy
                v = sky + 45 * c
            v += noise[(k * 2654435761) & 0xFFFF] - 4
            data[k] = 0 if v < 0 else (255 if v > 255 else int(v))
            k += 1

    with open(OUT, "wb") as f:
        f.write(b"P5\n# synthetic test scene\n%d %d\n255\n" % (W, H))
        f.write(bytes(data))


if __name__ == "__main__":
    main()
