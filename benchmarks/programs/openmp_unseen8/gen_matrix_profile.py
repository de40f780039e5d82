#!/usr/bin/env python3
"""Write series.txt: a synthetic sensor trace for matrix_profile.

A daily-cycle-like sine with drift and noise, a repeated heartbeat-like
pattern planted at a few places (motifs) and one glitch (discord).
Fixed seed, so the file is identical on every run.
"""
import math
import random

N = 20000


def main():
    rng = random.Random(90210)
    x = []
    level = 0.0
    for t in range(N):
        level += rng.gauss(0.0, 0.02)
        v = (math.sin(2 * math.pi * t / 287.0) + 0.4 * math.sin(2 * math.pi * t / 53.0)
             + level + rng.gauss(0.0, 0.25))
        x.append(v)
    pattern = [1.8 * math.exp(-((k - 30) / 6.0) ** 2) - 0.9 * math.exp(-((k - 42) / 4.0) ** 2)
               + 0.5 * math.sin(k / 5.0) for k in range(80)]
    for start in (1500, 7300, 12850, 17400):
        for k, p in enumerate(pattern):
            x[start + k] += 2.0 * p + rng.gauss(0.0, 0.05)
    # a sensor glitch: a short burst of large noise
    for k in range(25):
        x[10400 + k] += rng.uniform(-3.0, 3.0)
    with open("series.txt", "w") as f:
        f.write("# synthetic sensor trace, %d samples\n" % N)
        f.write("".join("%.4f\n" % v for v in x))


if __name__ == "__main__":
    main()
