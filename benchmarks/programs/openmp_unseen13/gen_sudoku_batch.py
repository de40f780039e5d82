#!/usr/bin/env python3
"""Write sudoku_puzzles.txt: a batch of 9x9 sudoku puzzles of very mixed difficulty.

Every puzzle starts from a randomly permuted and relabelled solved grid.
Kinds of puzzles in the batch:
  * "dug" puzzles: cells are blanked one by one in random order and a blank
    is kept only while the puzzle still has a unique solution, giving
    minimal unique puzzles; some of them get one clue overwritten by a
    digit that does not clash with its row, column or box, or one more
    clue removed
  * random blanking, many clues left     (easy, often several solutions)
  * random blanking, 17-19 clues left    (sparse, several solutions)
  * random blanking, 18-21 clues left, then one clue overwritten as above
    (sometimes no solution, and proving that can take a long search)
Output: one puzzle per line, 81 characters, '.' for a blank.
"""
import random

N_PUZZLES = 3000
SEED = 7

PEERS = []
for _i in range(81):
    _r, _c = divmod(_i, 9)
    _br, _bc = _r // 3 * 3, _c // 3 * 3
    _s = set()
    for _k in range(9):
        _s.add(_r * 9 + _k)
        _s.add(_k * 9 + _c)
        _s.add((_br + _k // 3) * 9 + _bc + _k % 3)
    _s.discard(_i)
    PEERS.append(tuple(sorted(_s)))


def solved_grid(rng):
    base = [[(r * 3 + r // 3 + c) % 9 + 1 for c in range(9)] for r in range(9)]
    bands = [0, 1, 2]
    rng.shuffle(bands)
    rows = []
    for b in bands:
        inner = [0, 1, 2]
        rng.shuffle(inner)
        rows.extend(b * 3 + i for i in inner)
    stacks = [0, 1, 2]
    rng.shuffle(stacks)
    cols = []
    for s in stacks:
        inner = [0, 1, 2]
        rng.shuffle(inner)
        cols.extend(s * 3 + i for i in inner)
    digits = list(range(1, 10))
    rng.shuffle(digits)
    g = [[digits[base[r][c] - 1] for c in cols] for r in rows]
    if rng.random() < 0.5:
        g = [list(x) for x in zip(*g)]
    return [v for row in g for v in row]


def _dfs(cells, cand):
    while True:
        best, best_n, progress = -1, 10, False
        for i in range(81):
            if cells[i]:
                continue
            m = cand[i]
            if m == 0:
                return False
            n = bin(m).count("1")
            if n == 1:
                d = m.bit_length()
                cells[i] = d
                mask = ~(1 << (d - 1))
                for p in PEERS[i]:
                    cand[p] &= mask
                progress = True
            elif n < best_n:
                best_n, best = n, i
        if not progress:
            break
    if best < 0:
        return all(cells)
    m = cand[best]
    while m:
        low = m & -m
        m ^= low
        c2 = list(cells)
        k2 = list(cand)
        c2[best] = low.bit_length()
        for p in PEERS[best]:
            k2[p] &= ~low
        if _dfs(c2, k2):
            return True
    return False


def has_other_solution(cells, cell, digit):
    """Is there a solution with `digit` NOT in blank `cell`?"""
    cand = [0] * 81
    for i in range(81):
        if cells[i] == 0:
            m = 0x1FF
            for p in PEERS[i]:
                if cells[p]:
                    m &= ~(1 << (cells[p] - 1))
            cand[i] = m
    cand[cell] &= ~(1 << (digit - 1))
    return _dfs(list(cells), cand)


def dig(cells, rng):
    order = list(range(81))
    rng.shuffle(order)
    for i in order:
        d = cells[i]
        cells[i] = 0
        if has_other_solution(cells, i, d):
            cells[i] = d


def corrupt(cells, rng):
    """Overwrite one clue with a digit that does not directly clash."""
    givens = [i for i in range(81) if cells[i]]
    rng.shuffle(givens)
    for i in givens:
        seen = {cells[p] for p in PEERS[i]}
        free = [d for d in range(1, 10) if d not in seen and d != cells[i]]
        if free:
            cells[i] = rng.choice(free)
            return


def main():
    rng = random.Random(SEED)
    lines = []
    for _ in range(N_PUZZLES):
        cells = solved_grid(rng)
        u = rng.random()
        if u < 0.10:
            # minimal unique puzzle, sometimes spoiled on purpose
            dig(cells, rng)
            v = rng.random()
            if v < 0.15:
                corrupt(cells, rng)
            elif v < 0.25:
                givens = [i for i in range(81) if cells[i]]
                cells[rng.choice(givens)] = 0
        else:
            if u < 0.25:
                keep = rng.randint(27, 45)
            elif u < 0.45:
                keep = rng.randint(17, 19)
            else:
                keep = rng.randint(18, 21)
            order = list(range(81))
            rng.shuffle(order)
            for i in order[keep:]:
                cells[i] = 0
            if u >= 0.45:
                corrupt(cells, rng)
        lines.append("".join(str(v) if v else "." for v in cells))
    with open("sudoku_puzzles.txt", "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
