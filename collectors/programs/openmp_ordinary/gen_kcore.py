#!/usr/bin/env python3
"""Generate undirected edge-list graphs for k-core decomposition.

Each graph has a heavy-tailed "social" part (Chung-Lu sampling with
power-law expected degrees), a few dense communities that form the deep
cores, and banded chains hanging off the main part: a band of level k is
the k-th power of a path, which peels one vertex per round at core level k,
so the peeling needs many rounds.  Two graphs are written, a smaller and a
larger one.  Usage: gen_kcore.py OUTDIR
"""
import bisect
import os
import random
import sys


def build(rng, n_social, m_social, n_comm, band_len, band_levels):
    edges = set()

    def add(u, v):
        if u != v:
            edges.add((min(u, v), max(u, v)))

    # heavy-tailed social part
    weights = [(i + 1) ** -0.75 for i in range(n_social)]
    cum = []
    t = 0.0
    for w in weights:
        t += w
        cum.append(t)

    def pick():
        return bisect.bisect_left(cum, rng.random() * t)

    while len(edges) < m_social:
        add(pick(), pick())
    n = n_social

    # dense communities (the deep cores), wired into the social part
    for c in range(n_comm):
        size = rng.randint(30, 70)
        dens = 0.35 + 0.5 * c / max(1, n_comm - 1)
        ids = list(range(n, n + size))
        n += size
        for i in range(size):
            for j in range(i + 1, size):
                if rng.random() < dens:
                    add(ids[i], ids[j])
            for _ in range(2):
                add(ids[i], pick())

    # banded chains: level k band = k-th power of a path of band_len // k
    for k in range(1, band_levels + 1):
        length = band_len // k + rng.randint(0, 9)
        ids = list(range(n, n + length))
        n += length
        anchor = pick()
        for d in range(1, k + 1):
            add(anchor, ids[d - 1])
        for i in range(length):
            for d in range(1, k + 1):
                if i + d < length:
                    add(ids[i], ids[i + d])
    return n, edges


def write(path, seed, *params):
    rng = random.Random(seed)
    n, edges = build(rng, *params)
    # shuffle vertex ids and edge order so structure is not visible by id
    perm = list(range(n))
    rng.shuffle(perm)
    lines = [(perm[u], perm[v]) if rng.random() < 0.5 else (perm[v], perm[u])
             for (u, v) in sorted(edges)]
    rng.shuffle(lines)
    with open(path, "w", newline="\n") as f:
        f.write("# undirected graph for k-core decomposition (gen_kcore.py, "
                "seed %d)\n" % seed)
        f.write("# %d vertices, %d edges\n" % (n, len(lines)))
        for u, v in lines:
            f.write("%d %d\n" % (u, v))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_kcore.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "kcore_small.txt"), 31, 12000, 26000, 4, 1000, 16)
    write(os.path.join(out, "kcore_large.txt"), 32, 30000, 60000, 8, 1800, 22)


if __name__ == "__main__":
    main()
