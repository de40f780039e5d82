#!/usr/bin/env python3
"""Writes matpow_mod_recurrences.txt (a prime modulus and 64 linear
recurrences of order 2..8: coefficients and initial terms) and
matpow_mod_queries.txt (200000 queries: recurrence index and term index n,
n up to 10^18, spread log-uniformly)."""
import math
import random

P = 998244353
NREC = 64
NQ = 200000


def main():
    rng = random.Random(31337)
    with open("matpow_mod_recurrences.txt", "w") as f:
        f.write("%d\n%d\n" % (P, NREC))
        for r in range(NREC):
            k = 2 + r % 7
            if r == 0:
                coef, init = [1, 1], [0, 1]          # Fibonacci
            else:
                coef = [rng.randrange(P) if rng.random() < 0.6 else rng.randint(0, 9) for _ in range(k)]
                if coef[-1] == 0:
                    coef[-1] = 1
                init = [rng.randrange(P) for _ in range(k)]
            f.write("%d %s %s\n" % (k, " ".join(map(str, coef)), " ".join(map(str, init))))
    lines = ["%d\n" % NQ]
    for q in range(NQ):
        r = rng.randrange(NREC)
        e = rng.uniform(0, math.log(1e18))
        n = int(math.exp(e))
        if rng.random() < 0.02:
            n = rng.randint(0, 10 ** 18)
        n = min(n, 10 ** 18)
        lines.append("%d %d\n" % (r, n))
    with open("matpow_mod_queries.txt", "w") as f:
        f.write("".join(lines))


if __name__ == "__main__":
    main()
