#!/usr/bin/env python3
"""Write mst_boruvka_graph.bin: a road-network-like graph on a 400 x 300 grid
of junctions (120,000 vertices, ~500,000 edges): grid streets with gaps,
diagonals and local shortcuts, weights = scaled length times a random
congestion factor (many equal weights).  One walled-off district and a few
hundred unconnected junctions make it a forest; a few self-loops and
parallel edges are included as real edge lists have them."""
import random
import struct

SEED = 777
W, H = 400, 300
N = W * H


def main():
    rng = random.Random(SEED)

    def vid(x, y):
        return y * W + x

    def district(x, y):
        return 340 <= x < 390 and 230 <= y < 290

    isolated = set(rng.sample(range(N), 300))
    edges = []

    def add(x1, y1, x2, y2, base):
        if not (0 <= x2 < W and 0 <= y2 < H):
            return
        a, b = vid(x1, y1), vid(x2, y2)
        if a in isolated or b in isolated:
            return
        if district(x1, y1) != district(x2, y2):
            return
        w = int(base * rng.uniform(0.5, 3.0)) // 10 * 10 + rng.randrange(10)
        if rng.random() < 0.5:
            a, b = b, a
        edges.append((a, b, w))

    for y in range(H):
        for x in range(W):
            if rng.random() < 0.92:
                add(x, y, x + 1, y, 1000)
            if rng.random() < 0.92:
                add(x, y, x, y + 1, 1000)
            if rng.random() < 0.45:
                add(x, y, x + 1, y + 1, 1414)
            if rng.random() < 0.45:
                add(x, y, x + 1, y - 1, 1414)
            for _ in range(2):
                if rng.random() < 0.55:
                    dx, dy = rng.randint(-4, 4), rng.randint(-4, 4)
                    if dx or dy:
                        add(x, y, x + dx, y + dy, int(1000 * (dx * dx + dy * dy) ** 0.5))
    # a few self-loops and parallel edges
    for _ in range(50):
        v = rng.randrange(N)
        edges.append((v, v, rng.randrange(1000)))
    for _ in range(2000):
        a, b, w = edges[rng.randrange(len(edges))]
        edges.append((b, a, w + rng.randrange(-5, 100)))
    rng.shuffle(edges)

    # store each edge at its first endpoint: per vertex a count, then
    # (neighbour uint32, weight uint16) records
    by_vertex = [[] for _ in range(N)]
    for a, b, w in edges:
        by_vertex[a].append((b, min(max(0, w), 65535)))
    out = [b'WGRA', struct.pack('<II', N, len(edges))]
    for lst in by_vertex:
        out.append(struct.pack('<H', len(lst)))
        for b, w in lst:
            out.append(struct.pack('<IH', b, w))
    with open('mst_boruvka_graph.bin', 'wb') as f:
        f.write(b''.join(out))


if __name__ == '__main__':
    main()
