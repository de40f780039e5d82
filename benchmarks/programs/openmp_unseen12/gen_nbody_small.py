#!/usr/bin/env python3
"""Write the initial conditions of a small star cluster for nbody_small.

nbody_small_cluster.txt: comment lines start with '#'; first data line is the
number of bodies N, then N lines "mass x y z vx vy vz" (G = 1 units).
"""
import math
import random

N = 160
SEED = 4711


def main():
    rng = random.Random(SEED)
    bodies = []
    # a central heavy body plus a Plummer-like cloud and a small satellite clump
    bodies.append([20.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    for i in range(1, N):
        m = rng.uniform(0.05, 0.6)
        if i < N - 20:
            r = 1.0 / math.sqrt(rng.uniform(0.02, 1.0) ** (-2.0 / 3.0) - 1.0 + 1e-9)
            r = min(max(r, 0.25), 6.0)
            cx, cy, cz, vx0, vy0 = 0.0, 0.0, 0.0, 0.0, 0.0
        else:
            r = rng.uniform(0.05, 0.5)
            cx, cy, cz, vx0, vy0 = 8.0, 0.0, 0.3, 0.0, 1.4
        ct = rng.uniform(-1.0, 1.0)
        ph = rng.uniform(0.0, 2.0 * math.pi)
        st = math.sqrt(1.0 - ct * ct)
        x, y, z = r * st * math.cos(ph), r * st * math.sin(ph), r * ct
        # mostly rotating disc-like motion around the centre plus noise
        vc = math.sqrt(30.0 / (r + 0.5)) * 0.6
        rxy = math.hypot(x, y) + 1e-9
        vx = -vc * y / rxy * 0.8 + rng.gauss(0.0, 0.3) + vx0
        vy = vc * x / rxy * 0.8 + rng.gauss(0.0, 0.3) + vy0
        vz = rng.gauss(0.0, 0.2)
        bodies.append([m, cx + x, cy + y, cz + z, vx, vy, vz])
    with open("nbody_small_cluster.txt", "w") as f:
        f.write("# nbody_small initial conditions, G = 1\n")
        f.write("# mass x y z vx vy vz\n")
        f.write("%d\n" % N)
        for b in bodies:
            f.write(" ".join("%.9f" % v for v in b) + "\n")


if __name__ == "__main__":
    main()
