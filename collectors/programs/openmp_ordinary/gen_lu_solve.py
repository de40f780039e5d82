#!/usr/bin/env python3
"""Write a dense test system for lu_solve.

usage: gen_lu_solve.py OUTDIR

Creates OUTDIR/lu_solve_system.txt: first line n, then n rows of n small
integers (the matrix A), then one line with the n entries of b.  The
right-hand side is b = A * (1, 2, ..., n) / n, so the exact solution is
x[i] = (i + 1) / n.
"""
import os
import random
import sys

N = 680


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_lu_solve.py OUTDIR\n")
        sys.exit(2)
    os.makedirs(sys.argv[1], exist_ok=True)
    rng = random.Random(20240611)
    rows = [[rng.randint(-9, 9) for _ in range(N)] for _ in range(N)]
    xs = [(i + 1) / N for i in range(N)]
    b = [sum(a * x for a, x in zip(r, xs)) for r in rows]
    path = os.path.join(sys.argv[1], "lu_solve_system.txt")
    with open(path, "w", newline="\n") as f:
        f.write("%d\n" % N)
        for r in rows:
            f.write(" ".join(str(v) for v in r))
            f.write("\n")
        f.write(" ".join("%.10g" % v for v in b))
        f.write("\n")


if __name__ == "__main__":
    main()
