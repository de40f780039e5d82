#!/usr/bin/env python3
"""Write pairs of simple polygons for poly_clip.

Each pair is a "subject" and a "clip" polygon placed near each other so that
their overlap ranges from nothing to almost complete; about a third of the
pairs are a shape and a noisy copy of it (like an annotation and a detector's
outline).  Polygons are either convex (convex hull of points on an ellipse) or
star-shaped and non-convex (random radius per vertex), with 3 to 200
vertices, in either orientation.  Coordinates have two decimals.

File format (text):
    pairs N
    then N times:  a polygon "n" followed by n lines "x y", then the second
    polygon in the same way.  Lines starting with '#' are comments.
"""
import math
import os
import random
import sys

SEED = 99173
NPAIRS = 1250


def vertex_count(rng):
    u = rng.random()
    if u < 0.45:
        return rng.randint(3, 16)
    if u < 0.80:
        return rng.randint(17, 60)
    if u < 0.95:
        return rng.randint(61, 120)
    return rng.randint(121, 200)


def convex_hull(pts):
    """Strictly convex hull (CCW) of points given in hundredths, exact integers."""
    pts = sorted(set(pts))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def hundredths(v):
    sign = "-" if v < 0 else ""
    v = abs(v)
    return "%s%d.%02d" % (sign, v // 100, v % 100)


def finish(rng, pts, convex):
    """Round to hundredths; make convex shapes exactly convex after rounding."""
    q = [(int(round(x * 100)), int(round(y * 100))) for x, y in pts]
    if convex:
        q = convex_hull(q)
    else:
        q = [p for i, p in enumerate(q) if p != q[i - 1]]
    if len(q) < 3:
        raise SystemExit("degenerate polygon generated")
    if rng.random() < 0.5:
        q.reverse()
    return q


def make_polygon(rng, cx, cy, size, n, convex):
    rot = rng.uniform(0, 2 * math.pi)
    # sorted random angles, with a minimum spacing so no two vertices coincide
    angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
    if convex:
        ax = size * rng.uniform(0.6, 1.0)
        ay = size * rng.uniform(0.35, 1.0)
        pts = []
        for a in angles:
            x = ax * math.cos(a)
            y = ay * math.sin(a)
            pts.append((x, y))
    else:
        if n < 5:
            n = 5
            angles = sorted(rng.uniform(0, 2 * math.pi) for _ in range(n))
        spikes = rng.random() < 0.5
        pts = []
        for k, a in enumerate(angles):
            if spikes:
                r = size * (1.0 if k % 2 == 0 else rng.uniform(0.25, 0.6))
            else:
                r = size * rng.uniform(0.35, 1.0)
            pts.append((r * math.cos(a), r * math.sin(a)))
    c, s = math.cos(rot), math.sin(rot)
    return [(cx + c * x - s * y, cy + s * x + c * y) for x, y in pts]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "polygon_pairs.txt")
    rng = random.Random(SEED)
    lines = ["# polygon pairs for poly_clip, seed %d" % SEED, "pairs %d" % NPAIRS]
    for _ in range(NPAIRS):
        cx = rng.uniform(0, 1000)
        cy = rng.uniform(0, 1000)
        size = rng.uniform(10, 120)
        na, nb = vertex_count(rng), vertex_count(rng)
        kind = rng.random()
        conv_a = kind < 0.35 or (0.7 <= kind < 0.85)
        conv_b = kind < 0.7
        a = make_polygon(rng, cx, cy, size, na, conv_a)
        if rng.random() < 0.35:
            # noisy copy: radial jitter keeps a star-shaped outline simple
            dx = rng.gauss(0, 0.08 * size)
            dy = rng.gauss(0, 0.08 * size)
            b = []
            for x, y in a:
                f = 1.0 + rng.gauss(0, 0.05)
                b.append((cx + dx + (x - cx) * f, cy + dy + (y - cy) * f))
            conv_b = conv_a
        else:
            dist = size * rng.choice([0.0, 0.1, 0.3, 0.6, 1.0, 1.6, 2.5])
            ang = rng.uniform(0, 2 * math.pi)
            b = make_polygon(rng, cx + dist * math.cos(ang), cy + dist * math.sin(ang),
                             size * rng.uniform(0.5, 1.5), nb, conv_b)
        for poly, conv in ((a, conv_a), (b, conv_b)):
            q = finish(rng, poly, conv)
            lines.append(str(len(q)))
            lines.extend("%s %s" % (hundredths(x), hundredths(y)) for x, y in q)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
