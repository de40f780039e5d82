#!/usr/bin/env python3
"""Writes median_stack_frames.stk: a stack of 15 noisy 640x480 greyscale frames.

Format (little endian): magic b"STK1", uint32 width, uint32 height,
uint32 frame count, then frame-major 8-bit pixels, row by row.
The scene is a smooth gradient with a few bright discs and rectangles;
each frame adds Gaussian noise, and some pixels get salt/pepper hits or
short streaks (passing "satellites") that the median should remove.
"""
import math
import random
import struct

W, H, F = 640, 480, 15


def scene():
    img = [[0.0] * W for _ in range(H)]
    rnd = random.Random(1234)
    discs = [(rnd.uniform(40, W - 40), rnd.uniform(40, H - 40),
              rnd.uniform(6, 40), rnd.uniform(40, 110)) for _ in range(18)]
    rects = [(rnd.randrange(0, W - 80), rnd.randrange(0, H - 60),
              rnd.randrange(20, 80), rnd.randrange(15, 60),
              rnd.uniform(-40, 40)) for _ in range(10)]
    for y in range(H):
        row = img[y]
        for x in range(W):
            v = 40.0 + 60.0 * x / W + 30.0 * y / H
            v += 12.0 * math.sin(x * 0.031) * math.cos(y * 0.027)
            row[x] = v
    for (cx, cy, r, amp) in discs:
        x0, x1 = max(0, int(cx - r) - 1), min(W, int(cx + r) + 2)
        y0, y1 = max(0, int(cy - r) - 1), min(H, int(cy + r) + 2)
        for y in range(y0, y1):
            row = img[y]
            for x in range(x0, x1):
                d2 = (x - cx) ** 2 + (y - cy) ** 2
                if d2 <= r * r:
                    row[x] += amp * (1.0 - 0.5 * d2 / (r * r))
    for (rx, ry, rw, rh, amp) in rects:
        for y in range(ry, ry + rh):
            row = img[y]
            for x in range(rx, rx + rw):
                row[x] += amp
    return img


def main():
    base = scene()
    rnd = random.Random(98765)
    out = bytearray()
    out += b"STK1" + struct.pack("<III", W, H, F)
    for f in range(F):
        frame = bytearray(W * H)
        for y in range(H):
            row = base[y]
            off = y * W
            for x in range(W):
                v = row[x] + rnd.gauss(0.0, 9.0)
                u = rnd.random()
                if u < 0.01:
                    v = 255.0
                elif u < 0.02:
                    v = 0.0
                iv = int(round(v))
                frame[off + x] = 0 if iv < 0 else (255 if iv > 255 else iv)
        # a few bright streaks per frame
        for _ in range(4):
            x, y = rnd.uniform(0, W), rnd.uniform(0, H)
            ang = rnd.uniform(0, math.pi)
            dx, dy = math.cos(ang), math.sin(ang)
            for t in range(rnd.randrange(60, 300)):
                px, py = int(x + dx * t), int(y + dy * t)
                if 0 <= px < W and 0 <= py < H:
                    frame[py * W + px] = 250
        out += frame
    with open("median_stack_frames.stk", "wb") as fh:
        fh.write(out)


if __name__ == "__main__":
    main()
