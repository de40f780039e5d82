#!/usr/bin/env python3
"""Writes a Plummer-sphere star cluster for cluster_orbits.c.

Bodies follow a Plummer density profile (Aarseth, Henon & Wielen 1974
sampling) with a power-law mass spectrum, scaled to N-body units
(G = 1, M = 1, E = -1/4).

usage: gen_cluster_orbits.py [OUTPUT]   (default cluster.txt)
"""
import math
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "cluster.txt"
rng = random.Random(31337)

N = 96
SOFTENING = 0.05

# masses: Salpeter-like power law between 0.2 and 8 (arbitrary units)
ALPHA = 2.35
mlo, mhi = 0.2, 8.0
masses = []
for _ in range(N):
    u = rng.random()
    a1 = 1.0 - ALPHA
    m = (mlo ** a1 + u * (mhi ** a1 - mlo ** a1)) ** (1.0 / a1)
    masses.append(m)
mt = sum(masses)
masses = [m / mt for m in masses]

pos, vel = [], []
for i in range(N):
    while True:
        x1 = rng.random()
        if x1 > 1e-10:
            break
    r = 1.0 / math.sqrt(x1 ** (-2.0 / 3.0) - 1.0)
    if r > 10.0:
        r = 10.0
    ct = rng.uniform(-1.0, 1.0)
    st = math.sqrt(1.0 - ct * ct)
    ph = rng.uniform(0.0, 2.0 * math.pi)
    pos.append([r * st * math.cos(ph), r * st * math.sin(ph), r * ct])
    # velocity from the distribution function (von Neumann rejection)
    while True:
        q = rng.random()
        g = rng.random() * 0.1
        if g < q * q * (1.0 - q * q) ** 3.5:
            break
    ve = math.sqrt(2.0) * (1.0 + r * r) ** -0.25
    v = q * ve
    ct = rng.uniform(-1.0, 1.0)
    st = math.sqrt(1.0 - ct * ct)
    ph = rng.uniform(0.0, 2.0 * math.pi)
    vel.append([v * st * math.cos(ph), v * st * math.sin(ph), v * ct])

# move to the centre-of-mass frame
for arr in (pos, vel):
    c = [sum(masses[i] * arr[i][k] for i in range(N)) for k in range(3)]
    for i in range(N):
        for k in range(3):
            arr[i][k] -= c[k]

# rescale to standard N-body units: virial equilibrium with E = -1/4
kin = sum(0.5 * masses[i] * sum(v * v for v in vel[i]) for i in range(N))
pot = 0.0
for i in range(N):
    for j in range(i + 1, N):
        d = math.sqrt(sum((pos[i][k] - pos[j][k]) ** 2 for k in range(3)))
        pot -= masses[i] * masses[j] / d
vs = math.sqrt(-0.5 * pot / kin) if kin > 0 else 1.0
kin *= vs * vs
e = kin + pot
rs = e / -0.25
vel = [[v * vs / math.sqrt(rs) for v in vv] for vv in vel]
pos = [[p * rs for p in pp] for pp in pos]

with open(out, "w", newline="\n") as f:
    f.write("# Plummer cluster, N-body units (G = M = 1, E = -1/4), power-law masses\n")
    f.write(f"bodies {N}\n")
    f.write(f"softening {SOFTENING}\n")
    f.write("# m x y z vx vy vz\n")
    for i in range(N):
        f.write(f"{masses[i]:.9e} " + " ".join(f"{p:.9e}" for p in pos[i]) + " " +
                " ".join(f"{v:.9e}" for v in vel[i]) + "\n")
