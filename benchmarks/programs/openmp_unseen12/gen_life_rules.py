#!/usr/bin/env python3
"""Writes the inputs of life_rules:
  life_rules_rules.txt    Life-like rules in B/S notation, one per line
  life_rules_start.txt    the initial pattern: a line "width height", then
                          `height` lines of `.` (dead) and `O` (alive)
The pattern is a few random soups of different densities plus some gliders
and an R-pentomino on an otherwise empty field.
"""
import random

PW, PH = 600, 440
SEED = 4096

RULES = [
    "# Life-like rules, birth/survival neighbour counts",
    "B3/S23        Conway's Life",
    "B36/S23       HighLife",
    "B3678/S34678  Day and Night",
    "B368/S245     Morley",
    "B34/S34       34 Life",
    "B35678/S5678  Diamoeba",
]

def main():
    rng = random.Random(SEED)
    grid = [[0] * PW for _ in range(PH)]
    # soups: (x0, y0, w, h, density)
    soups = [(20, 20, 180, 140, 0.35), (260, 40, 150, 120, 0.50),
             (430, 220, 140, 180, 0.25), (60, 260, 200, 150, 0.60)]
    for x0, y0, w, h, d in soups:
        for y in range(y0, y0 + h):
            row = grid[y]
            for x in range(x0, x0 + w):
                if rng.random() < d:
                    row[x] = 1
    glider = [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)]
    for k in range(12):
        gx = rng.randrange(10, PW - 10)
        gy = rng.randrange(180, 250)
        for dx, dy in glider:
            grid[gy + dy][gx + dx] = 1
    rpent = [(1, 0), (2, 0), (0, 1), (1, 1), (1, 2)]
    for dx, dy in rpent:
        grid[100 + dy][480 + dx] = 1
    with open("life_rules_start.txt", "w", newline="\n") as f:
        f.write("%d %d\n" % (PW, PH))
        for row in grid:
            f.write("".join("O" if c else "." for c in row) + "\n")
    with open("life_rules_rules.txt", "w", newline="\n") as f:
        f.write("\n".join(RULES) + "\n")

if __name__ == "__main__":
    main()
