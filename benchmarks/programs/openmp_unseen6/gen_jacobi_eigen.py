#!/usr/bin/env python3
"""Write the symmetric test matrices for jacobi_eigen.

Format: a header line "matrix LABEL N" followed by N lines holding the lower
triangle (row i has i+1 integer entries).  Lines starting with '#' are
comments.  Matrix families:
  wigner   random integers in [-9, 9]
  diagdom  random off-diagonal integers, dominant positive diagonal
  laplace  Laplacian of a random graph (always singular)
  band     banded matrix 2 on the diagonal, small integer bands
  shifted  random integers with the diagonal shifted towards an eigenvalue
"""
import random

OUT = "jacobi_matrices.txt"
COUNT = 305


def pick_size(rng):
    r = rng.random()
    if r < 0.50:
        return rng.randint(4, 30)
    if r < 0.70:
        return rng.randint(31, 80)
    return rng.randint(81, 120)


def make(rng, kind, n):
    a = [[0] * (i + 1) for i in range(n)]
    if kind == "wigner":
        for i in range(n):
            for j in range(i + 1):
                a[i][j] = rng.randint(-9, 9)
    elif kind == "diagdom":
        rowsum = [0] * n
        for i in range(n):
            for j in range(i):
                v = rng.randint(-3, 3)
                a[i][j] = v
                rowsum[i] += abs(v)
                rowsum[j] += abs(v)
        for i in range(n):
            a[i][i] = rowsum[i] + rng.randint(1, 20)
    elif kind == "laplace":
        p = rng.uniform(0.05, 0.4)
        deg = [0] * n
        for i in range(n):
            for j in range(i):
                if rng.random() < p:
                    a[i][j] = -1
                    deg[i] += 1
                    deg[j] += 1
        for i in range(n):
            a[i][i] = deg[i]
    elif kind == "band":
        w = rng.randint(1, 4)
        for i in range(n):
            a[i][i] = 2 * w + rng.randint(0, 2)
            for j in range(max(0, i - w), i):
                a[i][j] = -rng.randint(0, 2)
    else:
        shift = rng.randint(-20, 20)
        for i in range(n):
            for j in range(i):
                a[i][j] = rng.randint(-5, 5)
            a[i][i] = shift + rng.randint(-2, 2)
    return a


def main():
    rng = random.Random(4242)
    kinds = ["wigner", "diagdom", "laplace", "band", "shifted"]
    out = ["# symmetric integer matrices, lower triangle by rows"]
    for m in range(COUNT):
        kind = rng.choice(kinds)
        n = pick_size(rng)
        a = make(rng, kind, n)
        out.append("matrix %s-%03d %d" % (kind, m + 1, n))
        for row in a:
            out.append(" ".join(str(v) for v in row))
    with open(OUT, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
