#!/usr/bin/env python3
"""Writes chain_dims.txt: the dimension sequence of a chain of matrices."""
import random

rng = random.Random(7321)
N = 891  # dimensions -> 890 matrices
dims = []
for k in range(N):
    r = rng.random()
    if r < 0.15:
        dims.append(rng.randint(2, 20))        # thin matrices
    elif r < 0.85:
        dims.append(rng.randint(50, 600))
    else:
        dims.append(rng.randint(1000, 4000))   # wide matrices
with open("chain_dims.txt", "w", newline="\n") as f:
    f.write("%d\n" % N)
    for k in range(0, N, 12):
        f.write(" ".join(str(v) for v in dims[k:k + 12]) + "\n")
