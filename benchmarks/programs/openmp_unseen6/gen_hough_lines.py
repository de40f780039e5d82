#!/usr/bin/env python3
"""Write a synthetic grey-level test picture for hough_lines.

The picture (binary PGM, P5) has a smooth shaded background, a handful of
long straight lines crossing most of the frame, a few hundred shorter
segments of different brightness and thickness, some filled rectangles
and additive noise with a sprinkling of salt-and-pepper pixels.
"""
import math
import os
import random
import sys

WIDTH, HEIGHT = 1200, 1000
SEED = 20240611


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "hough_scene.pgm")
    rng = random.Random(SEED)
    img = [0.0] * (WIDTH * HEIGHT)

    # shaded background
    for y in range(HEIGHT):
        base = 40.0 + 30.0 * y / HEIGHT
        row = y * WIDTH
        for x in range(WIDTH):
            img[row + x] = base + 20.0 * math.sin(x / 157.0) * math.cos(y / 211.0)

    def stamp(cx, cy, radius, value):
        r = int(math.ceil(radius))
        x0, x1 = max(0, int(cx) - r), min(WIDTH - 1, int(cx) + r + 1)
        y0, y1 = max(0, int(cy) - r), min(HEIGHT - 1, int(cy) + r + 1)
        rr = radius * radius
        for yy in range(y0, y1 + 1):
            dy = yy - cy
            row = yy * WIDTH
            for xx in range(x0, x1 + 1):
                dx = xx - cx
                if dx * dx + dy * dy <= rr:
                    img[row + xx] = value

    def segment(x0, y0, x1, y1, radius, value):
        length = math.hypot(x1 - x0, y1 - y0)
        steps = max(1, int(length * 1.5))
        for i in range(steps + 1):
            t = i / steps
            stamp(x0 + t * (x1 - x0), y0 + t * (y1 - y0), radius, value)

    # filled rectangles (axis aligned, give strong horizontal/vertical edges)
    for _ in range(6):
        w = rng.randint(40, 160)
        h = rng.randint(30, 120)
        x = rng.randint(0, WIDTH - w - 1)
        y = rng.randint(0, HEIGHT - h - 1)
        v = rng.uniform(110, 170)
        for yy in range(y, y + h):
            row = yy * WIDTH
            for xx in range(x, x + w):
                img[row + xx] = v

    # long lines through the whole frame
    for _ in range(12):
        ang = rng.uniform(0, math.pi)
        cx = rng.uniform(0.2 * WIDTH, 0.8 * WIDTH)
        cy = rng.uniform(0.2 * HEIGHT, 0.8 * HEIGHT)
        half = rng.uniform(350, 650)
        dx, dy = math.cos(ang) * half, math.sin(ang) * half
        segment(cx - dx, cy - dy, cx + dx, cy + dy,
                rng.choice([1.0, 1.5, 2.0]), rng.uniform(190, 250))

    # many short segments
    for _ in range(450):
        ang = rng.uniform(0, math.pi)
        length = rng.choice([rng.uniform(15, 60), rng.uniform(15, 60),
                             rng.uniform(60, 220)])
        x0 = rng.uniform(0, WIDTH)
        y0 = rng.uniform(0, HEIGHT)
        x1 = x0 + math.cos(ang) * length
        y1 = y0 + math.sin(ang) * length
        segment(x0, y0, x1, y1, rng.choice([0.6, 1.0, 1.4]),
                rng.uniform(130, 240))

    # noise
    data = bytearray(WIDTH * HEIGHT)
    for i in range(WIDTH * HEIGHT):
        v = img[i] + rng.gauss(0.0, 6.0)
        u = rng.random()
        if u < 0.002:
            v = 255
        elif u < 0.004:
            v = 0
        data[i] = max(0, min(255, int(round(v))))

    with open(out, "wb") as f:
        f.write(b"P5\n# synthetic line scene, seed %d\n%d %d\n255\n"
                % (SEED, WIDTH, HEIGHT))
        f.write(bytes(data))


if __name__ == "__main__":
    main()
