#!/usr/bin/env python3
"""Write contact_network.txt: a heavy-tailed contact network (preferential
attachment) for epidemic_sir.  Format: first line "<nodes> <edges>", then one
undirected edge "u v" per line (0-based node ids)."""
import os
import random

N = 30000
M = 4          # edges added per new person
SEED = 20240517


def main():
    rng = random.Random(SEED)
    edges = []
    targets = []   # each node appears once per incident edge
    # small seed clique
    core = M + 1
    for u in range(core):
        for v in range(u + 1, core):
            edges.append((u, v))
            targets += [u, v]
    for u in range(core, N):
        # households / small-world flavour: sometimes fewer, sometimes more contacts
        m = M if rng.random() < 0.7 else rng.choice((2, 3, 5, 6))
        chosen = set()
        while len(chosen) < m:
            chosen.add(targets[rng.randrange(len(targets))])
        for v in sorted(chosen):
            edges.append((u, v))
            targets += [u, v]
    # relabel people so that hubs are not the lowest ids
    perm = list(range(N))
    rng.shuffle(perm)
    edges = [(perm[u], perm[v]) for u, v in edges]
    rng.shuffle(edges)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "contact_network.txt")
    with open(path, "w", newline="\n") as f:
        f.write("%d %d\n" % (N, len(edges)))
        for u, v in edges:
            f.write("%d %d\n" % (u, v))


if __name__ == "__main__":
    main()
