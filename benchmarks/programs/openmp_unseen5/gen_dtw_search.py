#!/usr/bin/env python3
"""Write dtw_train.txt and dtw_test.txt: labelled time series of varying
length (60 to 900 points) for dtw_search.

Format: one series per line, "<label> <length> <v1> <v2> ... <vlength>".
Six shape classes (cylinder, bell, funnel, sine burst, double bump, step),
each with random onset, duration, amplitude, time warping and noise."""
import math
import os
import random

SEED = 4242
N_TRAIN = 300
N_TEST = 150
CLASSES = 6


def shape(cls, t, a, b, amp, extra):
    """Value of the noiseless class shape at relative time t in [0, 1]."""
    if cls == 0:          # cylinder: plateau
        return amp if a <= t <= b else 0.0
    if cls == 1:          # bell: ramp up then drop
        return amp * (t - a) / (b - a) if a <= t <= b else 0.0
    if cls == 2:          # funnel: jump then ramp down
        return amp * (b - t) / (b - a) if a <= t <= b else 0.0
    if cls == 3:          # sine burst
        if a <= t <= b:
            return amp * math.sin(2 * math.pi * extra * (t - a) / (b - a))
        return 0.0
    if cls == 4:          # two gaussian bumps
        w = (b - a) / 6.0
        return amp * (math.exp(-((t - a - w) / w) ** 2) + 0.8 * math.exp(-((t - b + w) / w) ** 2))
    # step down with a slow recovery
    if t < a:
        return 0.0
    if t <= b:
        return -amp
    return -amp * math.exp(-(t - b) * extra * 4)


def series(rng, cls):
    n = int(round(60 * 15 ** rng.random()))   # log-uniform, 60 to 900
    a = rng.uniform(0.05, 0.4)
    b = a + rng.uniform(0.3, 0.5)
    amp = rng.uniform(1.0, 3.0)
    extra = rng.choice((2, 3)) if cls == 3 else rng.uniform(1.0, 3.0)
    warp = rng.uniform(-0.25, 0.25)        # smooth monotone time warp
    drift = rng.uniform(-0.5, 0.5)
    vals = []
    for i in range(n):
        u = i / (n - 1)
        t = u + warp * u * (1 - u)
        v = shape(cls, t, a, b, amp, extra) + drift * u + rng.gauss(0.0, 0.45)
        vals.append("%.3f" % v)
    return "%d %d %s" % (cls, n, " ".join(vals))


def main():
    rng = random.Random(SEED)
    here = os.path.dirname(os.path.abspath(__file__))
    for fname, count in (("dtw_train.txt", N_TRAIN), ("dtw_test.txt", N_TEST)):
        lines = [series(rng, rng.randrange(CLASSES)) for _ in range(count)]
        with open(os.path.join(here, fname), "w", newline="\n") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
