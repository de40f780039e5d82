#!/usr/bin/env python3
"""Write particles.txt: 20,000 particles in a unit periodic box, a uniform
background with a few dense clumps."""
import random

N = 20000
BOX = 1.0

def main():
    rng = random.Random(4242)
    clumps = [(rng.random(), rng.random(), rng.random(), rng.uniform(0.05, 0.12))
              for _ in range(6)]
    with open("particles.txt", "w", newline="\n") as f:
        f.write("%d %.1f\n" % (N, BOX))
        for _ in range(N):
            if rng.random() < 0.2:
                cx, cy, cz, s = rng.choice(clumps)
                x = (cx + rng.gauss(0.0, s)) % BOX
                y = (cy + rng.gauss(0.0, s)) % BOX
                z = (cz + rng.gauss(0.0, s)) % BOX
            else:
                x, y, z = rng.random(), rng.random(), rng.random()
            # guard against rounding to the box edge in the printed value
            x, y, z = (min(v, 0.999999) for v in (x, y, z))
            m = rng.uniform(0.8, 1.2) / N
            f.write("%.6f %.6f %.6f %.6e\n" % (x, y, z, m))

if __name__ == "__main__":
    main()
