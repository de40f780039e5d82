#!/usr/bin/env python3
"""Generate a dungeon-like grid map and start/goal queries for grid_paths.

map.txt:     first line "W H", then H lines of W characters ('#' wall, '.' floor)
queries.txt: first line N, then N lines "sx sy gx gy" (0-based column, row)
"""
import os
import random

W, H = 700, 700
N_ROOMS = 260
N_SEALED = 14
N_HALLS = 6
N_QUERIES = 260


def main():
    rng = random.Random(4242)
    grid = [bytearray(b"#" * W) for _ in range(H)]

    def carve(x0, y0, x1, y1):
        for y in range(max(1, y0), min(H - 1, y1)):
            row = grid[y]
            for x in range(max(1, x0), min(W - 1, x1)):
                row[x] = ord(".")

    # Rooms that do not overlap (with a margin of 3 cells).
    rooms = []
    tries = 0
    while len(rooms) < N_ROOMS and tries < 20000:
        tries += 1
        w, h = rng.randint(6, 36), rng.randint(6, 36)
        x, y = rng.randint(2, W - w - 3), rng.randint(2, H - h - 3)
        if all(x + w + 3 < rx or rx + rw + 3 < x or y + h + 3 < ry or ry + rh + 3 < y
               for rx, ry, rw, rh in rooms):
            rooms.append((x, y, w, h))

    sealed = rooms[-N_SEALED:]
    open_rooms = rooms[:-N_SEALED]

    def centre(r):
        x, y, w, h = r
        return x + w // 2, y + h // 2

    def corridor(a, b):
        (ax, ay), (bx, by) = centre(a), centre(b)
        width = rng.choice((1, 1, 2, 3))
        if rng.random() < 0.5:
            carve(min(ax, bx), ay, max(ax, bx) + width, ay + width)
            carve(bx, min(ay, by), bx + width, max(ay, by) + width)
        else:
            carve(ax, min(ay, by), ax + width, max(ay, by) + width)
            carve(min(ax, bx), by, max(ax, bx) + width, by + width)

    for r in open_rooms:
        x, y, w, h = r
        carve(x, y, x + w, y + h)
    # Spanning tree over the open rooms (each joins a near earlier room) plus loops.
    for i in range(1, len(open_rooms)):
        cx, cy = centre(open_rooms[i])
        cand = sorted(range(i), key=lambda j: abs(centre(open_rooms[j])[0] - cx) +
                      abs(centre(open_rooms[j])[1] - cy))[:3]
        corridor(open_rooms[i], open_rooms[rng.choice(cand)])
    for _ in range(len(open_rooms) // 4):
        corridor(rng.choice(open_rooms), rng.choice(open_rooms))

    # A few large halls with scattered pillars.
    for _ in range(N_HALLS):
        w, h = rng.randint(60, 120), rng.randint(60, 120)
        x, y = rng.randint(2, W - w - 3), rng.randint(2, H - h - 3)
        carve(x, y, x + w, y + h)
        for _ in range(w * h // 12):
            px, py = rng.randint(x, x + w - 2), rng.randint(y, y + h - 2)
            grid[py][px] = ord("#")
            if rng.random() < 0.3:
                grid[py][px + 1] = ord("#")
                grid[py + 1][px] = ord("#")

    # Sealed vaults: a solid wall ring around a floor area, carved last.
    for x, y, w, h in sealed:
        for yy in range(y - 1, y + h + 1):
            for xx in range(x - 1, x + w + 1):
                grid[yy][xx] = ord("#")
        carve(x, y, x + w, y + h)

    floor = [(x, y) for y in range(H) for x in range(W) if grid[y][x] == ord(".")]
    queries = []
    for _ in range(N_QUERIES):
        s = rng.choice(floor)
        g = rng.choice(floor)
        queries.append("%d %d %d %d" % (s[0], s[1], g[0], g[1]))

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "map.txt"), "w") as f:
        f.write("%d %d\n" % (W, H))
        for row in grid:
            f.write(row.decode() + "\n")
    with open(os.path.join(here, "queries.txt"), "w") as f:
        f.write("%d\n" % N_QUERIES)
        f.write("\n".join(queries) + "\n")


if __name__ == "__main__":
    main()
