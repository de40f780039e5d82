#!/usr/bin/env python3
"""Generate Connect Four positions as move strings (columns 1..7, first
player moves first).  No position is already decided.

Writes positions.txt next to this script."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 4242
COUNT = 60
ROWS, COLS = 6, 7


def wins(board, r, c, who):
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < ROWS and 0 <= cc < COLS and board[rr][cc] == who:
                n += 1
                rr += sign * dr
                cc += sign * dc
        if n >= 4:
            return True
    return False


def threat(board, height, c, who):
    """True if `who` would win by playing column c now."""
    if height[c] == ROWS:
        return False
    r = height[c]
    board[r][c] = who
    w = wins(board, r, c, who)
    board[r][c] = 0
    return w


def gives_away(board, height, c, who):
    """True if playing c lets the opponent win on top of it."""
    r = height[c]
    if r + 1 >= ROWS:
        return False
    board[r][c] = who
    height[c] += 1
    bad = threat(board, height, c, 3 - who)
    height[c] -= 1
    board[r][c] = 0
    return bad


def random_game(rng, length):
    board = [[0] * COLS for _ in range(ROWS)]
    height = [0] * COLS
    moves = []
    weights = [1, 2, 3, 4, 3, 2, 1]
    for ply in range(length):
        who = 1 + ply % 2
        options = []
        for c in range(COLS):
            if height[c] == ROWS:
                continue
            r = height[c]
            board[r][c] = who
            w = wins(board, r, c, who)
            board[r][c] = 0
            if not w:
                options.append(c)
        if not options:
            return None
        # play like a careful beginner: block the opponent's immediate
        # threats and avoid moves that hand the opponent a win next turn
        blocks = [c for c in options if threat(board, height, c, 3 - who)]
        if blocks:
            options = blocks
        safe = [c for c in options if not gives_away(board, height, c, who)]
        if safe:
            options = safe
        c = rng.choices(options, [weights[c] for c in options])[0]
        board[height[c]][c] = who
        height[c] += 1
        moves.append(c + 1)
    return "".join(str(m) for m in moves)


def main():
    rng = random.Random(SEED)
    seen = set()
    out = []
    while len(out) < COUNT:
        length = rng.choice([4, 6, 8, 9, 10, 12, 14, 16, 18, 20, 23, 26])
        g = random_game(rng, length)
        if g is None or g in seen:
            continue
        seen.add(g)
        out.append(g)
    with open(os.path.join(HERE, "positions.txt"), "w", newline="\n") as f:
        f.write("# Connect Four positions: moves as column numbers 1-7\n")
        for g in out:
            f.write(g + "\n")


if __name__ == "__main__":
    main()
