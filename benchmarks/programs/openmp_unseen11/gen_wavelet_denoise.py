#!/usr/bin/env python3
"""Writes wavelet_denoise_clean.pgm (a synthetic 2048x2048 scene) and
wavelet_denoise_noisy.pgm (the same scene with Gaussian and impulse noise)."""
import math
import random

W = H = 2048


def main():
    rng = random.Random(20240611)
    # scene: smooth gradient, a few discs and rectangles, a sinusoidal texture patch
    discs = [(rng.uniform(0, W), rng.uniform(0, H), rng.uniform(40, 260), rng.randint(30, 220))
             for _ in range(18)]
    rects = [(rng.uniform(0, W - 300), rng.uniform(0, H - 300), rng.uniform(60, 300),
              rng.uniform(60, 300), rng.randint(20, 235)) for _ in range(14)]
    clean = bytearray(W * H)
    noisy = bytearray(W * H)
    gauss = rng.gauss
    rand = rng.random
    for y in range(H):
        base_row = 60 + 80 * y / H
        row = [base_row + 50 * x / W for x in range(W)]
        for (cx, cy, r, v) in discs:
            dy = y - cy
            if abs(dy) >= r:
                continue
            half = math.sqrt(r * r - dy * dy)
            x0 = max(0, int(cx - half))
            x1 = min(W, int(cx + half) + 1)
            for x in range(x0, x1):
                row[x] = 0.35 * row[x] + 0.65 * v
        for (rx, ry, rw, rh, v) in rects:
            if ry <= y < ry + rh:
                for x in range(int(rx), min(W, int(rx + rw))):
                    row[x] = v
        if 1200 <= y < 1700:
            for x in range(200, 900):
                row[x] += 30 * math.sin(x * 0.05) * math.cos(y * 0.07)
        off = y * W
        for x in range(W):
            c = int(round(row[x]))
            c = 0 if c < 0 else (255 if c > 255 else c)
            clean[off + x] = c
            u = rand()
            if u < 0.002:
                n = 0 if u < 0.001 else 255
            else:
                n = int(round(c + gauss(0.0, 18.0)))
                n = 0 if n < 0 else (255 if n > 255 else n)
            noisy[off + x] = n
    hdr = b"P5\n# synthetic scene\n%d %d\n255\n" % (W, H)
    with open("wavelet_denoise_clean.pgm", "wb") as f:
        f.write(hdr + bytes(clean))
    with open("wavelet_denoise_noisy.pgm", "wb") as f:
        f.write(hdr + bytes(noisy))


if __name__ == "__main__":
    main()
