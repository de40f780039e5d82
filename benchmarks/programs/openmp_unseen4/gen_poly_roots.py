#!/usr/bin/env python3
"""Generate polys.txt: a set of real polynomials for poly_roots.

Format: first line is the number of polynomials; then one polynomial per
line: the degree d followed by the d+1 coefficients, highest power first.
"""
import cmath
import math
import os
import random

N_POLYS = 4000


def expand(roots):
    """Coefficients (highest first) of prod (x - r) for the given roots."""
    c = [complex(1.0)]
    for r in roots:
        nxt = c + [0j]
        for i in range(1, len(nxt)):
            nxt[i] -= r * c[i - 1]
        c = nxt
    return [v.real for v in c]


def random_roots(rng, deg, rmin, rmax, mult=1):
    roots = []
    while len(roots) < deg:
        m = mult if rng.random() < 0.5 else 1
        if deg - len(roots) >= 2 * m and rng.random() < 0.6:
            r = rng.uniform(rmin, rmax)
            a = rng.uniform(0.1, math.pi - 0.1)
            z = cmath.rect(r, a)
            roots += [z, z.conjugate()] * m
        else:
            m = min(m, deg - len(roots))
            x = rng.uniform(rmin, rmax) * rng.choice((-1, 1))
            roots += [complex(x)] * m
    return roots[:deg]


def main():
    rng = random.Random(20240611)
    lines = [str(N_POLYS)]
    for _ in range(N_POLYS):
        kind = rng.random()
        if kind < 0.40:
            deg = rng.randint(3, 40)
            coef = [rng.uniform(-1.0, 1.0) for _ in range(deg + 1)]
            if abs(coef[0]) < 0.05:
                coef[0] = 0.5
        elif kind < 0.75:
            deg = rng.randint(3, 24)
            coef = expand(random_roots(rng, deg, 0.2, 4.0))
            s = rng.uniform(0.5, 3.0)
            coef = [s * v for v in coef]
        elif kind < 0.90:
            deg = rng.randint(4, 16)
            coef = expand(random_roots(rng, deg, 0.5, 2.5, mult=rng.randint(2, 3)))
        else:
            deg = rng.randint(3, 40)
            coef = [float(rng.randint(-9, 9)) for _ in range(deg + 1)]
            if coef[0] == 0.0:
                coef[0] = 1.0
            if coef[-1] == 0.0:
                coef[-1] = -1.0
        lines.append(str(deg) + " " + " ".join(repr(float(v)) for v in coef))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "polys.txt")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
