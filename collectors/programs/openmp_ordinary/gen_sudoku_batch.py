#!/usr/bin/env python3
"""Generate sudoku puzzle collections for sudoku_batch.

usage: gen_sudoku_batch.py OUTDIR

Writes OUTDIR/sudoku_batch_puzzles.txt: NPACKS puzzle packs, each made of
several "collections" (each introduced by a '#' comment line), one
81-character puzzle per line ('.' = blank):
  easy      random valid grids with 36-46 clues kept
  medium    27-33 clues
  sparse    20-25 clues (often several solutions)
  classic   well-known very hard puzzles under random symmetry transforms
  17-clue   a 17-clue puzzle with many solutions, transformed
  broken    sparse puzzles with one wrong extra clue (usually no solution)
Everything comes from a fixed seed, so the file is identical on every run.
"""
import os
import random
import sys

# A few well-known hard puzzles (unique solutions).
CLASSICS = [
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
    "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1",
    ".......1.4.........2...........5.4.7..8...3....1.9....3..4..2...5.1........8.6...",
    "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4.",
    "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
]
# 17 clues, many solutions; some symmetric variants need a very deep search
SEVENTEEN = ".....6....59.....82....8....45........3........6..3.54...325..6.................."
NPACKS = 10


def peers_of(i):
    r, c = divmod(i, 9)
    ps = set()
    for k in range(9):
        ps.add(r * 9 + k)
        ps.add(k * 9 + c)
    br, bc = r // 3 * 3, c // 3 * 3
    for dr in range(3):
        for dc in range(3):
            ps.add((br + dr) * 9 + bc + dc)
    ps.discard(i)
    return sorted(ps)


PEERS = [peers_of(i) for i in range(81)]


def random_grid(rng):
    """Random complete grid by randomized backtracking (fewest options first)."""
    grid = [0] * 81

    def options(i):
        used = {grid[p] for p in PEERS[i]}
        return [d for d in range(1, 10) if d not in used]

    def fill():
        best, best_opts = -1, None
        for i in range(81):
            if grid[i] == 0:
                o = options(i)
                if best_opts is None or len(o) < len(best_opts):
                    best, best_opts = i, o
                    if len(o) <= 1:
                        break
        if best < 0:
            return True
        rng.shuffle(best_opts)
        for d in best_opts:
            grid[best] = d
            if fill():
                return True
        grid[best] = 0
        return False

    fill()
    return grid


def remove_cells(rng, grid, keep):
    cells = list(range(81))
    rng.shuffle(cells)
    kept = set(cells[:keep])
    return "".join(str(grid[i]) if i in kept else "." for i in range(81))


def transform(rng, puzzle):
    """Random sudoku symmetry: relabel digits, permute rows/cols within
    bands/stacks, permute bands/stacks, optionally transpose."""
    digits = list("123456789")
    rng.shuffle(digits)
    relabel = {str(i + 1): digits[i] for i in range(9)}
    relabel["."] = "."

    def perm():
        bands = [0, 1, 2]
        rng.shuffle(bands)
        out = []
        for b in bands:
            rows = [0, 1, 2]
            rng.shuffle(rows)
            out.extend(b * 3 + r for r in rows)
        return out

    rows, cols = perm(), perm()
    transpose = rng.random() < 0.5
    out = []
    for r in range(9):
        for c in range(9):
            rr, cc = rows[r], cols[c]
            if transpose:
                rr, cc = cc, rr
            out.append(relabel[puzzle[rr * 9 + cc]])
    return "".join(out)


def break_puzzle(rng, grid, keep):
    """Sparse puzzle plus one extra clue that contradicts the grid but not
    any given in its row, column or box."""
    p = list(remove_cells(rng, grid, keep))
    blanks = [i for i in range(81) if p[i] == "."]
    rng.shuffle(blanks)
    for i in blanks:
        used = {p[q] for q in PEERS[i]}
        wrong = [str(d) for d in range(1, 10) if d != grid[i] and str(d) not in used]
        if wrong:
            p[i] = rng.choice(wrong)
            return "".join(p)
    return "".join(p)


def fresh_grid(rng, state):
    """A new random grid: every few calls a grid from backtracking, otherwise a
    random symmetry transform of the last one (much cheaper)."""
    if state.get("uses", 0) == 0:
        state["grid"] = "".join(map(str, random_grid(rng)))
        state["uses"] = 6
    state["uses"] -= 1
    return [int(ch) for ch in transform(rng, state["grid"])]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_sudoku_batch.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(90210)
    state = {}
    out = []
    for pack in range(1, NPACKS + 1):
        out.append("# pack %d, collection 1: easy puzzles" % pack)
        for _ in range(250):
            out.append(remove_cells(rng, fresh_grid(rng, state), rng.randint(36, 46)))
        out.append("# pack %d, collection 2: medium puzzles" % pack)
        for _ in range(160):
            out.append(remove_cells(rng, fresh_grid(rng, state), rng.randint(27, 33)))
        out.append("# pack %d, collection 3: sparse puzzles" % pack)
        for _ in range(100):
            out.append(remove_cells(rng, fresh_grid(rng, state), rng.randint(20, 25)))
        out.append("# pack %d, collection 4: classic hard puzzles, transformed" % pack)
        for _ in range(20):
            out.append(transform(rng, rng.choice(CLASSICS)))
        out.append("# pack %d, collection 5: 17-clue puzzles, transformed" % pack)
        for _ in range(10):
            out.append(transform(rng, SEVENTEEN))
        out.append("# pack %d, collection 6: puzzles with a wrong clue" % pack)
        for _ in range(15):
            out.append(break_puzzle(rng, fresh_grid(rng, state), rng.randint(22, 30)))

    path = os.path.join(sys.argv[1], "sudoku_batch_puzzles.txt")
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(out))
        f.write("\n")


if __name__ == "__main__":
    main()
