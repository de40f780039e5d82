#!/usr/bin/env python3
"""Write genetic_tsp_cities.txt: 150 cities in clustered layout (fixed seed)."""
import random

def main():
    rng = random.Random(20261202)
    n = 150
    centres = [(rng.uniform(50, 950), rng.uniform(50, 950)) for _ in range(9)]
    lines = ["# genetic_tsp city list: count, then one 'x y' pair per line", str(n)]
    for i in range(n):
        if i % 3 == 0:
            x, y = rng.uniform(0, 1000), rng.uniform(0, 1000)
        else:
            cx, cy = centres[rng.randrange(len(centres))]
            x = min(1000.0, max(0.0, rng.gauss(cx, 45.0)))
            y = min(1000.0, max(0.0, rng.gauss(cy, 45.0)))
        lines.append("%.2f %.2f" % (x, y))
    with open("genetic_tsp_cities.txt", "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
