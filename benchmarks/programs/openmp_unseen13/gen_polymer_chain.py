#!/usr/bin/env python3
"""Write polymer_chain96.txt: initial state of a 96-bead polymer for polymer_chain.

Positions: a self-avoiding random walk with bond length 0.97 (Lennard-Jones
units) in which no two beads come closer than 0.95.  Velocities: Maxwell-
Boltzmann at temperature 1.2 with the centre-of-mass motion removed.
Format: first line "beads 96", then one line "x y z vx vy vz" per bead.
"""
import math
import random

SEED = 96
N = 96
BOND = 0.97
MIN_DIST = 0.95
TEMP = 1.2


def main():
    rng = random.Random(SEED)
    pos = [(0.0, 0.0, 0.0)]
    while len(pos) < N:
        x0, y0, z0 = pos[-1]
        for _attempt in range(1000):
            # random direction, uniform on the sphere
            u = rng.uniform(-1.0, 1.0)
            phi = rng.uniform(0.0, 2.0 * math.pi)
            s = math.sqrt(1.0 - u * u)
            p = (x0 + BOND * s * math.cos(phi), y0 + BOND * s * math.sin(phi), z0 + BOND * u)
            if all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2 >= MIN_DIST ** 2
                   for q in pos[:-1]):
                pos.append(p)
                break
        else:
            pos = pos[:max(1, len(pos) - 5)]     # stuck: back up a little
    vel = [[rng.gauss(0.0, math.sqrt(TEMP)) for _ in range(3)] for _ in range(N)]
    for k in range(3):
        m = sum(v[k] for v in vel) / N
        for v in vel:
            v[k] -= m
    with open("polymer_chain96.txt", "w", newline="\n") as f:
        f.write("beads %d\n" % N)
        for p, v in zip(pos, vel):
            f.write("%.6f %.6f %.6f %.6f %.6f %.6f\n" % (p + tuple(v)))


if __name__ == "__main__":
    main()
