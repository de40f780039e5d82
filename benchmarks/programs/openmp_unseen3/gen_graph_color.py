#!/usr/bin/env python3
"""Write a power-law (preferential attachment) edge list for graph_color."""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_graph_color.py OUTPUT_DIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1312)
    n = 24000
    edges = []
    targets = []  # every edge end once: sampling from it is degree-proportional
    core = 8
    for u in range(core):
        for v in range(u + 1, core):
            edges.append((u, v))
            targets += [u, v]
    for v in range(core, n):
        k = rng.choice((2, 3, 3, 4, 4, 5, 6))
        chosen = set()
        while len(chosen) < k:
            if rng.random() < 0.1:
                chosen.add(rng.randrange(v))
            else:
                chosen.add(rng.choice(targets))
        for u in sorted(chosen):
            edges.append((u, v) if rng.random() < 0.5 else (v, u))
            targets += [u, v]
    # relabel vertices so that hubs are not all at small ids
    perm = list(range(n))
    rng.shuffle(perm)
    edges = [(perm[a], perm[b]) for a, b in edges]
    rng.shuffle(edges)
    with open(os.path.join(out, "graph_color_edges.txt"), "w", newline="\n") as f:
        f.write("%d %d\n" % (n, len(edges)))
        for a, b in edges:
            f.write("%d %d\n" % (a, b))


if __name__ == "__main__":
    main()
