#!/usr/bin/env python3
"""Write image_resize_input.pgm: an 1800x1200 8-bit greyscale test image
(binary PGM, fixed seed) with gradients, rings, stripes, blocks and noise."""
import math
import random

def main():
    rng = random.Random(18001200)
    w, h = 1800, 1200
    blocks = []
    for _ in range(40):
        x0, y0 = rng.randrange(w), rng.randrange(h)
        blocks.append((x0, y0, x0 + rng.randint(20, 220), y0 + rng.randint(20, 160),
                       rng.randint(-90, 90)))
    cx, cy = 0.62 * w, 0.4 * h
    rows = []
    for y in range(h):
        row = bytearray(w)
        yy = (y - cy) * (y - cy)
        stripe_y = 1 if (y // 6) % 2 else -1
        for x in range(w):
            v = 40.0 + 150.0 * x / w + 30.0 * y / h
            r = math.sqrt((x - cx) * (x - cx) + yy)
            v += 35.0 * math.cos(r * r * 0.00004)
            if x < 300 and y > 700:
                v += 50 * stripe_y * (1 if (x // (1 + y // 120)) % 2 else -1)
            row[x] = max(0, min(255, int(v)))
        rows.append(row)
    for (x0, y0, x1, y1, dv) in blocks:
        for y in range(y0, min(y1, h)):
            row = rows[y]
            for x in range(x0, min(x1, w)):
                row[x] = max(0, min(255, row[x] + dv))
    for y in range(h):
        row = rows[y]
        for x in range(0, w, 3):
            row[x] = max(0, min(255, row[x] + rng.randint(-6, 6)))
    with open("image_resize_input.pgm", "wb") as f:
        f.write(b"P5\n# image_resize test image\n%d %d\n255\n" % (w, h))
        for row in rows:
            f.write(bytes(row))

if __name__ == "__main__":
    main()
