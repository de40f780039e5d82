#!/usr/bin/env python3
"""Writes the plate description read by adi_heat.c.

usage: gen_adi_heat.py [OUTPUT]   (default adi_plate.txt)
"""
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "adi_plate.txt"
rng = random.Random(7341)

NX, NY = 96, 96
lines = [
    "# aluminium plate with heaters, cooled west edge",
    f"size {NX} {NY}",
    "spacing 0.005",
    "diffusivity 9.7e-5",
    "dt 0.5",
    "initial 20.0",
    "threshold 80.0",
    "edge north 60.0",
    "edge south 18.0",
    "edge west 12.0",
    "edge east 25.0",
]

# a cold bar (coolant pipe) and a few bolts held at fixed temperature
for j in range(20, 40):
    lines.append(f"fixed 70 {j} 8.0")
for _ in range(6):
    i = rng.randint(5, NX - 6)
    j = rng.randint(5, NY - 6)
    lines.append(f"fixed {i} {j} {rng.uniform(15.0, 30.0):.2f}")

# heater patches near the middle plus scattered small sources (K/s)
for (hi, hj, q) in [(40, 52, 30.0), (58, 44, 22.0), (30, 30, 15.0)]:
    for dj in range(-2, 3):
        for di in range(-2, 3):
            lines.append(f"source {hi + di} {hj + dj} {q:.3f}")
for _ in range(25):
    i = rng.randint(3, NX - 4)
    j = rng.randint(3, NY - 4)
    lines.append(f"source {i} {j} {rng.uniform(1.0, 6.0):.3f}")

probes = [("centre", NX // 2, NY // 2), ("heater_a", 40, 52), ("heater_b", 58, 44),
          ("near_pipe", 73, 30), ("north_mid", NX // 2, 4), ("south_mid", NX // 2, NY - 5),
          ("west_mid", 4, NY // 2), ("corner_ne", NX - 6, 5)]
for name, i, j in probes:
    lines.append(f"probe {name} {i} {j}")

with open(out, "w", newline="\n") as f:
    f.write("\n".join(lines) + "\n")
