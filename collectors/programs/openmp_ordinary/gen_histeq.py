#!/usr/bin/env python3
"""Write synthetic low-contrast grayscale test images for histeq.

usage: gen_histeq.py OUTDIR

Creates OUTDIR/histeq_small.pgm (ASCII P2, 512x512) and
OUTDIR/histeq_large.pgm (binary P5, 1152x1152).  The images are a diagonal
gradient with a few discs, rectangles and a ring, plus noise, squeezed into a
narrow grey range so that equalisation has something to do.
"""
import math
import os
import random
import sys


def render(w, h, seed):
    rng = random.Random(seed)
    shapes = []
    for _ in range(14):
        kind = rng.choice(("disc", "rect", "ring"))
        cx, cy = rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h
        size = rng.uniform(0.04, 0.18) * min(w, h)
        level = rng.uniform(-35.0, 35.0)
        shapes.append((kind, cx, cy, size, level))
    pix = bytearray(w * h)
    for y in range(h):
        row = y * w
        for x in range(w):
            v = 90.0 + 40.0 * (x + 0.6 * y) / (w + 0.6 * h)
            v += 6.0 * math.sin(x * 0.05) * math.cos(y * 0.031)
            for kind, cx, cy, size, level in shapes:
                dx, dy = x - cx, y - cy
                if kind == "disc":
                    if dx * dx + dy * dy < size * size:
                        v += level
                elif kind == "rect":
                    if abs(dx) < size and abs(dy) < 0.6 * size:
                        v += level
                else:
                    r = math.sqrt(dx * dx + dy * dy)
                    if abs(r - size) < 0.15 * size:
                        v += level
            v += rng.gauss(0.0, 4.0)
            iv = int(round(v))
            pix[row + x] = 0 if iv < 0 else (255 if iv > 255 else iv)
    return pix


def write_p2(path, w, h, pix):
    with open(path, "w", newline="\n") as f:
        f.write("P2\n# synthetic test image (gen_histeq.py)\n%d %d\n255\n" % (w, h))
        for y in range(h):
            row = pix[y * w:(y + 1) * w]
            # keep lines short, as PGM readers expect (<= 70 chars)
            for s in range(0, w, 16):
                f.write(" ".join(str(v) for v in row[s:s + 16]))
                f.write("\n")


def write_p5(path, w, h, pix):
    with open(path, "wb") as f:
        f.write(b"P5\n# synthetic test image (gen_histeq.py)\n%d %d\n255\n" % (w, h))
        f.write(bytes(pix))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_histeq.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    w, h = 512, 512
    write_p2(os.path.join(out, "histeq_small.pgm"), w, h, render(w, h, 1234))
    w, h = 1152, 1152
    write_p5(os.path.join(out, "histeq_large.pgm"), w, h, render(w, h, 5678))


if __name__ == "__main__":
    main()
