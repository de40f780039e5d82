#!/usr/bin/env python3
"""Generate axis-aligned boxes (clustered, varied sizes, with velocities) for sweep_prune."""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_sweep_prune.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(424242)
    L = 200.0
    n = 18000
    clusters = [(rng.uniform(20, 180), rng.uniform(20, 180), rng.uniform(20, 180),
                 rng.uniform(3, 15)) for _ in range(25)]
    with open(os.path.join(out, "sweep_prune_boxes.txt"), "w", newline="\n") as f:
        f.write("# n domain_size, then x y z sx sy sz vx vy vz (min corner, extents, velocity)\n")
        f.write("%d %.1f\n" % (n, L))
        for _ in range(n):
            if rng.random() < 0.2:
                x, y, z = rng.uniform(0, L), rng.uniform(0, L), rng.uniform(0, L)
            else:
                cx, cy, cz, s = clusters[min(int(rng.expovariate(0.15)), 24)]
                x, y, z = rng.gauss(cx, s), rng.gauss(cy, s), rng.gauss(cz, s)
            u = rng.random()
            if u < 0.85:
                base = rng.uniform(0.3, 1.5)
            elif u < 0.98:
                base = rng.uniform(2.0, 5.0)
            else:
                base = rng.uniform(8.0, 20.0)
            sx = base * rng.uniform(0.5, 1.5)
            sy = base * rng.uniform(0.5, 1.5)
            sz = base * rng.uniform(0.5, 1.5)
            x = min(max(x, 0.0), L - sx)
            y = min(max(y, 0.0), L - sy)
            z = min(max(z, 0.0), L - sz)
            vx, vy, vz = rng.gauss(0, 2), rng.gauss(0, 2), rng.gauss(0, 2)
            f.write("%.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f %.3f\n" % (x, y, z, sx, sy, sz, vx, vy, vz))


if __name__ == "__main__":
    main()
