#!/usr/bin/env python3
"""Generate inputs for pip_count: a regions file (polygons with holes) and a points file."""
import math
import os
import random
import sys


def star_ring(rng, cx, cy, r, nverts, rough):
    pts = []
    phase = rng.uniform(0, 2 * math.pi)
    for k in range(nverts):
        a = phase + 2 * math.pi * k / nverts
        rr = r * (1.0 + rough * (rng.random() - 0.5) + 0.15 * math.sin(5 * a))
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return pts


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_pip_count.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20240611)
    size = 1000.0
    nreg = 240
    regions = []
    for i in range(nreg):
        u = rng.random()
        if u < 0.70:
            nv = rng.randint(6, 40)
        elif u < 0.93:
            nv = rng.randint(60, 400)
        else:
            nv = rng.randint(1500, 4000)
        r = rng.uniform(15, 70) * (1.0 + 0.5 * math.log10(nv / 6.0))
        cx = rng.uniform(r, size - r)
        cy = rng.uniform(r, size - r)
        rings = [star_ring(rng, cx, cy, r, nv, 0.25)]
        if nv > 30 and rng.random() < 0.4:
            nh = rng.randint(1, 3)
            for h in range(nh):
                hr = r * rng.uniform(0.08, 0.2)
                ang = rng.uniform(0, 2 * math.pi)
                d = r * 0.45
                rings.append(star_ring(rng, cx + d * math.cos(ang), cy + d * math.sin(ang),
                                       hr, max(6, nv // 8), 0.1))
        regions.append(("zone_%03d" % i, rings))
    with open(os.path.join(out, "pip_count_regions.txt"), "w", newline="\n") as f:
        f.write("# regions: name nrings, then per ring nverts and x y lines\n")
        f.write("%d\n" % nreg)
        for name, rings in regions:
            f.write("%s %d\n" % (name, len(rings)))
            for ring in rings:
                f.write("%d\n" % len(ring))
                for x, y in ring:
                    f.write("%.3f %.3f\n" % (x, y))
    npts = 60000
    centers = [(rng.uniform(100, 900), rng.uniform(100, 900), rng.uniform(20, 90)) for _ in range(12)]
    with open(os.path.join(out, "pip_count_points.txt"), "w", newline="\n") as f:
        f.write("%d\n" % npts)
        for _ in range(npts):
            if rng.random() < 0.3:
                x, y = rng.uniform(0, size), rng.uniform(0, size)
            else:
                cx, cy, s = centers[min(int(rng.expovariate(0.35)), 11)]
                x = min(max(rng.gauss(cx, s), 0.0), size)
                y = min(max(rng.gauss(cy, s), 0.0), size)
            f.write("%.3f %.3f\n" % (x, y))


if __name__ == "__main__":
    main()
