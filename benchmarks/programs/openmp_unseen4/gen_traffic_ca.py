#!/usr/bin/env python3
"""Write roads.txt: a set of independent ring lanes for traffic_ca.

Each lane line: lane_id length density vmax p_slow
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N_LANES = 400


def main():
    rng = random.Random(20240611)
    lines = ["# ring lanes: id length(cells) density(cars/cell) vmax p_slow",
             str(N_LANES)]
    for lane in range(N_LANES):
        # mostly short urban rings, a few long highway loops
        kind = rng.random()
        if kind < 0.55:
            length = rng.randint(500, 4000)
            vmax = rng.choice([2, 3, 3, 4])
        elif kind < 0.85:
            length = rng.randint(4000, 10000)
            vmax = rng.choice([4, 5, 5])
        else:
            length = rng.randint(10000, 20000)
            vmax = rng.choice([5, 6, 7])
        density = rng.uniform(0.03, 0.85)
        p_slow = rng.choice([0.1, 0.15, 0.2, 0.25, 0.3, 0.5])
        lines.append("%d %d %.4f %d %.2f" % (lane, length, density, vmax, p_slow))
    with open(os.path.join(HERE, "roads.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
