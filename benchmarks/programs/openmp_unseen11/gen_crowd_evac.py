#!/usr/bin/env python3
"""Writes crowd_evac_plan.txt (a 200x150 floor plan: '#' wall, '.' floor,
'1'..'4' exit cells) and crowd_evac_people.txt (start cells and speed class
of about 3000 people)."""
import random
from collections import deque

W, H = 200, 150
NPEOPLE = 3000


def main():
    rng = random.Random(7311)
    g = [['.'] * W for _ in range(H)]
    for x in range(W):
        g[0][x] = g[H - 1][x] = '#'
    for y in range(H):
        g[y][0] = g[y][W - 1] = '#'
    # corridors: horizontal rows 68..75, vertical columns 120..126 and 40..44
    corr_rows = range(68, 76)
    corr_cols = list(range(120, 127)) + list(range(40, 45))

    def is_corr(x, y):
        return y in corr_rows or x in corr_cols

    # room walls: a grid of rooms outside the corridors
    xs = [0, 20, 40, 45, 65, 85, 100, 120, 127, 147, 167, 184, 199]
    ys = [0, 17, 34, 51, 68, 76, 93, 110, 128, 149]
    for y in range(1, H - 1):
        for x in range(1, W - 1):
            if is_corr(x, y):
                continue
            if x in xs or y in ys or x + 1 in corr_cols and x not in corr_cols or \
               x - 1 in corr_cols and x not in corr_cols or y == 67 or y == 76:
                g[y][x] = '#'
    # doors: every room gets one or two 2-cell doors into a neighbour or corridor
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ys[j], ys[j + 1]
            if x1 - x0 < 4 or y1 - y0 < 4:
                continue
            for _ in range(rng.randint(1, 2)):
                side = rng.randint(0, 3)
                if side == 0:
                    dx = rng.randint(x0 + 2, x1 - 3)
                    for yy in (y0, y0 - 1 if y0 - 1 in (67,) else y0):
                        if 0 < yy < H - 1:
                            g[yy][dx] = g[yy][dx + 1] = '.'
                elif side == 1:
                    dx = rng.randint(x0 + 2, x1 - 3)
                    for yy in (y1, y1 + 1 if y1 + 1 == 76 else y1):
                        if 0 < yy < H - 1:
                            g[yy][dx] = g[yy][dx + 1] = '.'
                elif side == 2:
                    dy = rng.randint(y0 + 2, y1 - 3)
                    if 0 < x0 < W - 1:
                        g[dy][x0] = g[dy + 1][x0] = '.'
                        if x0 - 1 > 0 and g[dy][x0 - 1] == '#':
                            g[dy][x0 - 1] = g[dy + 1][x0 - 1] = '.'
                else:
                    dy = rng.randint(y0 + 2, y1 - 3)
                    if 0 < x1 < W - 1:
                        g[dy][x1] = g[dy + 1][x1] = '.'
                        if x1 + 1 < W - 1 and g[dy][x1 + 1] == '#':
                            g[dy][x1 + 1] = g[dy + 1][x1 + 1] = '.'
            # furniture: a few small blocks inside the room
            for _ in range(rng.randint(0, 4)):
                bx = rng.randint(x0 + 3, max(x0 + 3, x1 - 5))
                by = rng.randint(y0 + 3, max(y0 + 3, y1 - 5))
                for yy in range(by, min(by + 2, y1 - 2)):
                    for xx in range(bx, min(bx + 3, x1 - 2)):
                        g[yy][xx] = '#'
    # pillars in the main corridor
    for x in range(10, W - 10, 17):
        g[71][x] = g[72][x] = '#'
    # exits: left and right ends of the corridor, top of one vertical corridor,
    # bottom of the other
    for y in range(70, 74):
        g[y][0] = '1'
    for y in range(69, 72):
        g[y][W - 1] = '2'
    for x in range(121, 125):
        g[0][x] = '3'
    for x in range(41, 44):
        g[H - 1][x] = '4'
    # reachable floor cells (from the exits)
    seen = [[False] * W for _ in range(H)]
    q = deque()
    for y in range(H):
        for x in range(W):
            if g[y][x] in '1234':
                seen[y][x] = True
                q.append((x, y))
    while q:
        x, y = q.popleft()
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nx, ny = x + dx, y + dy
            if 0 <= nx < W and 0 <= ny < H and not seen[ny][nx] and g[ny][nx] == '.':
                seen[ny][nx] = True
                q.append((nx, ny))
    # unreachable floor becomes wall (closed cupboards)
    free = []
    for y in range(H):
        for x in range(W):
            if g[y][x] == '.':
                if seen[y][x]:
                    free.append((x, y))
                else:
                    g[y][x] = '#'
    people = rng.sample(free, NPEOPLE)
    with open("crowd_evac_plan.txt", "w") as f:
        f.write("%d %d\n" % (W, H))
        for row in g:
            f.write(''.join(row) + "\n")
    with open("crowd_evac_people.txt", "w") as f:
        f.write("%d\n" % NPEOPLE)
        for (x, y) in people:
            f.write("%d %d %d\n" % (x, y, rng.choice((2, 3, 3, 4, 4, 4))))


if __name__ == "__main__":
    main()
