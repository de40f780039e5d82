#!/usr/bin/env python3
"""Generate a small directed citation-style graph for simrank.c.

Papers arrive in order; each new paper cites a few earlier ones, chosen
mostly by preferential attachment (popular papers get cited more) and
partly from its own "topic" neighbourhood.  Output: citations.txt with a
header line "n m" followed by m lines "citing cited".
"""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_simrank.py OUTDIR\n")
        sys.exit(2)
    outdir = sys.argv[1]
    rng = random.Random(20240611)
    n = 1600
    topics = 12
    topic = [rng.randrange(topics) for _ in range(n)]
    by_topic = [[] for _ in range(topics)]
    pool = []          # one entry per (citation + 1): preferential attachment
    edges = []
    for v in range(n):
        if v > 0:
            k = min(v, 1 + int(rng.expovariate(1.0 / 4.5)))
            chosen = set()
            tries = 0
            while len(chosen) < k and tries < 50:
                tries += 1
                r = rng.random()
                if r < 0.55 and pool:
                    u = rng.choice(pool)
                elif r < 0.9 and by_topic[topic[v]]:
                    u = rng.choice(by_topic[topic[v]])
                else:
                    u = rng.randrange(v)
                if u != v:
                    chosen.add(u)
            for u in sorted(chosen):
                edges.append((v, u))
                pool.append(u)
        pool.append(v)
        by_topic[topic[v]].append(v)
    with open(os.path.join(outdir, "citations.txt"), "w", newline="\n") as f:
        f.write("%d %d\n" % (n, len(edges)))
        for a, b in edges:
            f.write("%d %d\n" % (a, b))


if __name__ == "__main__":
    main()
