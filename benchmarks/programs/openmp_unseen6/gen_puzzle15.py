#!/usr/bin/env python3
"""Write puzzle15_instances.txt: a batch of 8-puzzle and 15-puzzle instances.

8-puzzles are uniformly random solvable permutations.  15-puzzles are made
by random walks from the goal (no immediate back-tracking) of varying length,
so their optimal solutions range from trivial to fairly deep.
"""
import random

SEED = 15150
OUT = "puzzle15_instances.txt"


def solvable(tiles, size):
    inv = 0
    flat = [t for t in tiles if t]
    for i in range(len(flat)):
        for j in range(i + 1, len(flat)):
            if flat[j] < flat[i]:
                inv += 1
    if size % 2 == 1:
        return inv % 2 == 0
    blank_row = tiles.index(0) // size
    return (inv + (size - 1 - blank_row)) % 2 == 0


def random_8(rng):
    while True:
        t = list(range(9))
        rng.shuffle(t)
        if solvable(t, 3):
            return t


def walk_15(rng, steps):
    size = 4
    t = list(range(1, 16)) + [0]
    b = 15
    prev = -1
    for _ in range(steps):
        r, c = divmod(b, size)
        opts = []
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < size and 0 <= nc < size and nr * size + nc != prev:
                opts.append(nr * size + nc)
        nb = rng.choice(opts)
        t[b], t[nb] = t[nb], 0
        prev, b = b, nb
    return t


def main():
    rng = random.Random(SEED)
    lines = ["# sliding-tile puzzle instances: SIZE followed by the tiles row by row, 0 = blank"]
    items = []
    for _ in range(NUM8):
        items.append((3, random_8(rng)))
    for _ in range(NUM15):
        steps = rng.choice(WALKS)
        items.append((4, walk_15(rng, steps)))
    rng.shuffle(items)
    for size, t in items:
        lines.append(str(size) + " " + " ".join(map(str, t)))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


NUM8 = 400
NUM15 = 180
WALKS = [30, 40, 50, 55, 60, 60, 65]

if __name__ == "__main__":
    main()
