#!/usr/bin/env python3
"""Write scene.pgm: a 2000x1500 8-bit grey-scale test image (binary PGM, P5).

Shaded background, bright and dark blobs and bars, thin scratches, and
salt-and-pepper noise, so that grey-scale opening and closing have work to do.
"""
import random

W, H = 2000, 1500
rng = random.Random(4242)

# background: horizontal gradient, shifted per row through translation tables
base = bytearray(40 + (110 * x) // W for x in range(W))
shift_tables = [bytes(min(255, v + s) for v in range(256)) for s in range(81)]
rows = []
for y in range(H):
    s = (80 * y) // H
    rows.append(bytearray(base.translate(shift_tables[s])))


def fill_span(y, x0, x1, val):
    if 0 <= y < H:
        x0 = max(0, x0)
        x1 = min(W, x1)
        if x0 < x1:
            rows[y][x0:x1] = bytes([val]) * (x1 - x0)


# filled discs (blobs)
for _ in range(260):
    cx, cy = rng.randrange(W), rng.randrange(H)
    r = rng.randint(3, 60)
    val = rng.choice([rng.randint(0, 50), rng.randint(180, 255), rng.randint(60, 170)])
    for dy in range(-r, r + 1):
        half = int((r * r - dy * dy) ** 0.5)
        fill_span(cy + dy, cx - half, cx + half + 1, val)

# rectangles and bars
for _ in range(180):
    x0, y0 = rng.randrange(W), rng.randrange(H)
    w, h = rng.randint(2, 200), rng.randint(2, 120)
    if rng.random() < 0.3:
        w, h = rng.randint(200, 700), rng.randint(1, 6)   # long thin bars
    val = rng.randint(0, 255)
    for y in range(y0, y0 + h):
        fill_span(y, x0, x0 + w, val)

# thin diagonal scratches
for _ in range(120):
    x, y = rng.randrange(W), rng.randrange(H)
    length = rng.randint(50, 600)
    sx = rng.choice([-1, 1])
    val = rng.choice([0, 255, rng.randint(0, 255)])
    thick = rng.randint(1, 3)
    for i in range(length):
        fill_span(y + i, x + sx * i, x + sx * i + thick, val)

# sparse salt-and-pepper specks
for _ in range(5000):
    x, y = rng.randrange(W), rng.randrange(H)
    rows[y][x] = rng.choice((0, 255, rng.randint(0, 255)))

with open("scene.pgm", "wb") as f:
    f.write(b"P5\n# synthetic test scene\n%d %d\n255\n" % (W, H))
    for row in rows:
        f.write(row)
