#!/usr/bin/env python3
"""Writes polygons.txt for polygon_areas: about 300,000 polygons, mostly small,
a few with up to 2,000 vertices, stored as a start vertex plus integer steps."""
import math
import random

rng = random.Random(55501)
NPOLY = 285000
NHUGE = 80


def star(n, radius, convex):
    # jittered angles: sorted, never too close together
    angles = [(k + 0.6 * rng.random()) * 2 * math.pi / n for k in range(n)]
    pts = []
    for a in angles:
        r = radius if convex else radius * (0.45 + 0.55 * rng.random())
        pts.append((round(r * math.cos(a)), round(r * math.sin(a))))
    return pts


def blob(n, radius):
    """a large star-shaped outline whose radius varies smoothly with the angle"""
    waves = [(rng.randint(2, 9), rng.uniform(0.03, 0.12), rng.uniform(0, 2 * math.pi)) for _ in range(4)]
    pts = []
    for k in range(n):
        a = (k + 0.6 * rng.random()) * 2 * math.pi / n
        r = radius * (1.0 + sum(amp * math.sin(f * a + ph) for f, amp, ph in waves))
        r *= 1.0 + 0.01 * (rng.random() - 0.5)
        pts.append((round(r * math.cos(a)), round(r * math.sin(a))))
    return pts


def small_count():
    u = rng.random()
    if u < 0.55:
        return 3
    if u < 0.85:
        return 4
    if u < 0.98:
        return rng.randint(5, 8)
    return rng.randint(9, 24)


huge_at = set(rng.sample(range(NPOLY), NHUGE))
lines = []
for p in range(NPOLY):
    if p in huge_at:
        n = rng.randint(1000, 2000)
        pts = blob(n, rng.randint(2500, 6000))
    else:
        n = small_count()
        pts = star(n, rng.randint(3, 9), rng.random() < 0.5)
        u = rng.random()
        if u < 0.06 and n >= 4:
            i, j = rng.sample(range(n), 2)          # a bow-tie or worse
            pts[i], pts[j] = pts[j], pts[i]
        elif u < 0.065:
            pts = [(k, 2 * k) for k in range(n)]     # all on one line
    if rng.random() < 0.5:
        pts.reverse()
    cx = rng.randint(0, 999)
    cy = rng.randint(0, 999)
    x0, y0 = pts[0]
    out = [str(n), str(cx + x0), str(cy + y0)]
    for k in range(1, n):
        out.append(str(pts[k][0] - pts[k - 1][0]))
        out.append(str(pts[k][1] - pts[k - 1][1]))
    lines.append(" ".join(out))

with open("polygons.txt", "w", newline="\n") as f:
    f.write("polygons %d\n" % NPOLY)
    f.write("\n".join(lines))
    f.write("\n")
