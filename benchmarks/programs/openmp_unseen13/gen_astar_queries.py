#!/usr/bin/env python3
"""Writes the inputs of astar_queries: astar_terrain.map and astar_queries.txt.

astar_terrain.map (little endian): magic b"MAP1", uint32 width, uint32 height,
then width*height bytes row by row; 0 is a wall, 1..9 the cost of entering
the cell.  The terrain is smooth value noise (mostly cheap, some expensive
swamps), crossed by cost-1 roads, broken by random wall segments, a long
wall with a few gates, and three sealed rooms that cannot be entered.

astar_queries.txt: first line the number of queries, then one query per line:
"sx sy gx gy" (column, row of start and goal).  Mostly short and medium
trips, some across the whole map, a few into or out of the sealed rooms
(unreachable), a few starting or ending on a wall, one with start == goal.
"""
import random
import struct

W = H = 1024
NQ = 300


def value_noise(rnd, cells):
    """bilinear value noise on a (cells+1)^2 lattice, values in [0, 1]"""
    lat = [[rnd.random() for _ in range(cells + 1)] for _ in range(cells + 1)]
    step = W / cells
    out = []
    for y in range(H):
        fy = y / step
        iy = int(fy)
        ty = fy - iy
        ty = ty * ty * (3 - 2 * ty)
        r0, r1 = lat[iy], lat[iy + 1]
        row = []
        for x in range(W):
            fx = x / step
            ix = int(fx)
            tx = fx - ix
            tx = tx * tx * (3 - 2 * tx)
            a = r0[ix] + (r0[ix + 1] - r0[ix]) * tx
            b = r1[ix] + (r1[ix + 1] - r1[ix]) * tx
            row.append(a + (b - a) * ty)
        out.append(row)
    return out


def main():
    rnd = random.Random(4242)
    n1 = value_noise(rnd, 16)
    n2 = value_noise(rnd, 64)
    grid = bytearray(W * H)
    for y in range(H):
        a, b = n1[y], n2[y]
        off = y * W
        for x in range(W):
            v = 0.7 * a[x] + 0.3 * b[x]
            c = 1 + int(9.0 * v * v * v)
            grid[off + x] = 9 if c > 9 else c

    # roads
    for _ in range(10):
        if rnd.random() < 0.5:
            y = rnd.randrange(H)
            for x in range(W):
                grid[y * W + x] = 1
        else:
            x = rnd.randrange(W)
            for y in range(H):
                grid[y * W + x] = 1

    # random wall segments
    for _ in range(150):
        length = rnd.randrange(20, 200)
        thick = rnd.randrange(1, 3)
        x0, y0 = rnd.randrange(W), rnd.randrange(H)
        horizontal = rnd.random() < 0.5
        for t in range(length):
            for s in range(thick):
                x, y = (x0 + t, y0 + s) if horizontal else (x0 + s, y0 + t)
                if 0 <= x < W and 0 <= y < H:
                    grid[y * W + x] = 0

    # a long wall across the map with four gates
    wx = 600
    gates = sorted(rnd.randrange(20, H - 20) for _ in range(4))
    for y in range(H):
        if any(abs(y - g) < 3 for g in gates):
            grid[y * W + wx] = 1
            grid[y * W + wx + 1] = 1
        else:
            grid[y * W + wx] = 0
            grid[y * W + wx + 1] = 0

    # sealed rooms: a closed wall rectangle, inside cleared to cost 2
    rooms = []
    for (rx, ry, rw, rh) in ((100, 800, 40, 30), (850, 150, 25, 50), (400, 420, 60, 60)):
        for y in range(ry, ry + rh):
            for x in range(rx, rx + rw):
                edge = y in (ry, ry + rh - 1) or x in (rx, rx + rw - 1)
                grid[y * W + x] = 0 if edge else 2
        rooms.append((rx + 1, ry + 1, rw - 2, rh - 2))

    def in_room(x, y):
        for (rx, ry, rw, rh) in rooms:
            if rx - 1 <= x <= rx + rw and ry - 1 <= y <= ry + rh:
                return True
        return False

    def free_cell(cx=None, cy=None, radius=None):
        while True:
            if cx is None:
                x, y = rnd.randrange(W), rnd.randrange(H)
            else:
                x = cx + rnd.randint(-radius, radius)
                y = cy + rnd.randint(-radius, radius)
                if not (0 <= x < W and 0 <= y < H):
                    continue
            if grid[y * W + x] != 0 and not in_room(x, y):
                return x, y

    def room_cell():
        rx, ry, rw, rh = rooms[rnd.randrange(len(rooms))]
        return rx + rnd.randrange(rw), ry + rnd.randrange(rh)

    def wall_cell():
        while True:
            x, y = rnd.randrange(W), rnd.randrange(H)
            if grid[y * W + x] == 0:
                return x, y

    kinds = (["short"] * 150 + ["medium"] * 110 + ["long"] * 26 +
             ["into_room"] * 3 + ["out_of_room"] * 4 + ["wall"] * 3 + ["same"] * 1 +
             ["room_to_room"] * 3)
    assert len(kinds) == NQ
    rnd.shuffle(kinds)
    queries = []
    for kind in kinds:
        if kind == "short":
            s = free_cell()
            g = free_cell(s[0], s[1], 40)
        elif kind == "medium":
            s = free_cell()
            g = free_cell(s[0], s[1], 220)
        elif kind == "long":
            s = free_cell()
            g = free_cell()
        elif kind == "into_room":
            s = free_cell()
            g = room_cell()
        elif kind == "out_of_room":
            s = room_cell()
            g = free_cell()
        elif kind == "room_to_room":
            s = room_cell()
            g = room_cell()
        elif kind == "wall":
            s = free_cell()
            g = wall_cell()
            if rnd.random() < 0.5:
                s, g = g, s
        else:
            s = free_cell()
            g = s
        queries.append((s[0], s[1], g[0], g[1]))

    with open("astar_terrain.map", "wb") as fh:
        fh.write(b"MAP1" + struct.pack("<II", W, H))
        fh.write(grid)
    with open("astar_queries.txt", "w") as fh:
        fh.write("%d\n" % len(queries))
        for q in queries:
            fh.write("%d %d %d %d\n" % q)


if __name__ == "__main__":
    main()
