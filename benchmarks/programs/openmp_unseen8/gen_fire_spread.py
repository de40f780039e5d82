#!/usr/bin/env python3
"""Write forest.map: a 64x64 forest with a river, rock outcrops, clearings
and two ignition points."""
import math
import random

ROWS, COLS = 64, 64

def main():
    rng = random.Random(7031)
    grid = [[None] * COLS for _ in range(ROWS)]
    # fuel field: smooth blobs of dense and sparse forest
    centres = [(rng.uniform(0, ROWS), rng.uniform(0, COLS), rng.uniform(6, 16),
                rng.uniform(-3, 4)) for _ in range(10)]
    for r in range(ROWS):
        for c in range(COLS):
            f = 4.0
            for (cr, cc, rad, amp) in centres:
                d2 = (r - cr) ** 2 + (c - cc) ** 2
                f += amp * math.exp(-d2 / (2 * rad * rad))
            f += rng.uniform(-1.0, 1.0)
            level = int(round(f))
            if level <= 0:
                grid[r][c] = "."
            else:
                grid[r][c] = str(min(level, 9))
    # river winding from north to south
    col = 44.0
    for r in range(ROWS):
        col += rng.uniform(-1.2, 1.2)
        c0 = int(col)
        for c in range(c0, c0 + 2 + (r % 7 == 0)):
            if 0 <= c < COLS:
                grid[r][c] = "~"
    # a wooded ford across the river
    for r in range(47, 52):
        for c in range(COLS):
            if grid[r][c] == "~":
                grid[r][c] = "3"
    # rock outcrops
    for _ in range(6):
        cr, cc = rng.randrange(ROWS), rng.randrange(COLS)
        for _ in range(rng.randint(8, 25)):
            if 0 <= cr < ROWS and 0 <= cc < COLS and grid[cr][cc] != "~":
                grid[cr][cc] = "#"
            cr += rng.choice((-1, 0, 1))
            cc += rng.choice((-1, 0, 1))
    # two ignition points west of the river
    for (r, c) in ((12, 8), (40, 20)):
        grid[r][c] = "*"
    with open("forest.map", "w", newline="\n") as f:
        f.write("%d %d\n" % (ROWS, COLS))
        for row in grid:
            f.write("".join(row) + "\n")

if __name__ == "__main__":
    main()
