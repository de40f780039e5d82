#!/usr/bin/env python3
"""Writes sandpile_grid.txt: a 100x100 grid of initial grain counts for sandpile."""
import random

rng = random.Random(7031)
ROWS, COLS = 100, 100
# a sparsely sprinkled table ...
grid = [[(rng.randint(1, 3) if rng.random() < 0.15 else 0) for _ in range(COLS)] for _ in range(ROWS)]
# ... with a few tall piles dropped on it
piles = [(50, 50, 24000), (25, 70, 6000), (74, 30, 6000), (18, 18, 2500), (82, 82, 2500)]
for r, c, g in piles:
    grid[r][c] += g
with open("sandpile_grid.txt", "w", newline="\n") as f:
    f.write("%d %d\n" % (ROWS, COLS))
    for row in grid:
        f.write(" ".join(str(v) for v in row) + "\n")
