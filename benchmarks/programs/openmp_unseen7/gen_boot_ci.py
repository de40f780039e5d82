#!/usr/bin/env python3
"""Write paired samples for boot_ci: household income (k$, skewed) and
monthly grocery spending ($) for a synthetic survey of 4000 households."""
import math
import random
import sys

N = 4000
SEED = 7031


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "survey.txt"
    rng = random.Random(SEED)
    with open(out, "w", newline="\n") as f:
        f.write("# synthetic household survey\n")
        f.write("# columns: income_k  grocery_spend\n")
        for i in range(N):
            inc = math.exp(rng.gauss(3.9, 0.55))
            if rng.random() < 0.02:
                inc *= rng.uniform(3.0, 8.0)  # a few very high incomes
            size = 1 + min(6, int(rng.expovariate(0.6)))
            spend = 120.0 + 95.0 * size + 110.0 * math.log(inc) + rng.gauss(0.0, 140.0)
            if rng.random() < 0.01:
                spend += rng.uniform(400.0, 1500.0)  # outliers
            f.write("%.2f %.2f\n" % (inc, max(20.0, spend)))


if __name__ == "__main__":
    main()
