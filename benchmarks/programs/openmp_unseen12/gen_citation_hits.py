#!/usr/bin/env python3
"""Writes citation_hits_graph.bin: a synthetic citation graph.

Paper i cites a handful of earlier papers; most citations go to papers that are
already well cited (preferential attachment), so the in-degree follows a power
law.  Format (little endian):
  4 bytes  magic "CITG"
  uint32   number of nodes n
  uint32   number of edges m
  then for each node 0..n-1: varint out-degree, followed by the cited node ids
  in increasing order, stored as varint gaps (first one is the id itself).
"""
import random
import struct

N = 300000
MEAN_REFS = 10.0
P_UNIFORM = 0.25

def varint(out, v):
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)

def main():
    rng = random.Random(20240612)
    targets = []          # one entry per edge: the cited node (for preferential picks)
    body = bytearray()
    m = 0
    for i in range(N):
        if i == 0:
            refs = []
        else:
            k = int(rng.expovariate(1.0 / MEAN_REFS)) + 1
            if k > i:
                k = i
            chosen = set()
            tries = 0
            while len(chosen) < k and tries < 4 * k:
                tries += 1
                if not targets or rng.random() < P_UNIFORM:
                    t = rng.randrange(i)
                else:
                    t = targets[rng.randrange(len(targets))]
                chosen.add(t)
            refs = sorted(chosen)
            targets.extend(refs)
        varint(body, len(refs))
        prev = 0
        for t in refs:
            varint(body, t - prev)
            prev = t
        m += len(refs)
    with open("citation_hits_graph.bin", "wb") as f:
        f.write(b"CITG")
        f.write(struct.pack("<II", N, m))
        f.write(body)

if __name__ == "__main__":
    main()
