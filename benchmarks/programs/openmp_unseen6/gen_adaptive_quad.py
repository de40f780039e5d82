#!/usr/bin/env python3
"""Write the integrand list for adaptive_quad.

Each line is "kind a b c lo hi tol".  The kinds are
  osc      sin(a*x + b) / (x + c)
  peak     exp(-a*(x-b)^2) + c
  sqrt     sqrt(|x-b|) * cos(a*x) + c
  log      log(|x-b| + c) * (1 + a*x)
  lorentz  c / ((x-b)^2 + a^2)
"""
import random

OUT = "adaptive_quad_cases.txt"
N = 5000


def main():
    rng = random.Random(20240611)
    lines = ["# kind a b c lo hi tol"]
    kinds = ["osc", "peak", "sqrt", "log", "lorentz"]
    weights = [3, 2, 2, 1, 2]
    for _ in range(N):
        kind = rng.choices(kinds, weights)[0]
        lo = round(rng.uniform(-2.0, 1.0), 4)
        if kind == "osc":
            lo = round(abs(lo), 4)
        hi = round(lo + rng.uniform(0.5, 12.0), 4)
        tol = 10.0 ** rng.choice([-6, -7, -8, -9, -10, -11])
        if kind == "osc":
            a = rng.uniform(1.0, 200.0)
            b = rng.uniform(0.0, 3.14159)
            c = 10.0 ** rng.uniform(-3, 0)
        elif kind == "peak":
            a = 10.0 ** rng.uniform(0, 6)
            b = rng.uniform(lo, hi)
            c = rng.uniform(0.0, 0.5)
        elif kind == "sqrt":
            a = rng.uniform(0.0, 20.0)
            b = rng.uniform(lo, hi)
            c = rng.uniform(-1.0, 1.0)
        elif kind == "log":
            a = rng.uniform(-0.5, 0.5)
            b = rng.uniform(lo, hi)
            c = 10.0 ** rng.uniform(-8, -1)
        else:
            a = 10.0 ** rng.uniform(-4, 0)
            b = rng.uniform(lo, hi)
            c = rng.uniform(0.1, 2.0)
        lines.append("%s %.6g %.6g %.6g %.4f %.4f %.0e" % (kind, a, b, c, lo, hi, tol))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
