#!/usr/bin/env python3
"""Write denominations.txt and targets.txt for coin_ways.

A made-up currency with a few dozen coin and note values (no 1-unit coin,
so some small amounts cannot be paid) and a list of amounts to pay.
Fixed seed, so the files are identical on every run.
"""
import random


def main():
    rng = random.Random(31337)
    values = {2, 3, 5, 7}
    base = 10
    while len(values) < 36:
        for mult in (1, 2, 5):
            v = base * mult + rng.choice((0, 0, 0, 1, 3, 7))
            values.add(v)
        base *= 3
        if base > 60000:
            base = rng.randint(11, 97)
    den = sorted(values)[:36]
    with open("denominations.txt", "w") as f:
        f.write("# coin and note values of the test currency\n")
        for i in range(0, len(den), 8):
            f.write(" ".join(str(d) for d in den[i:i + 8]) + "\n")
    targets = [1, 4, 11, 99, 1000, 4321]
    targets += sorted(rng.randint(10000, 250000) for _ in range(10))
    targets.append(300000)
    with open("targets.txt", "w") as f:
        f.write("# amounts to pay\n")
        f.write("\n".join(str(t) for t in targets) + "\n")


if __name__ == "__main__":
    main()
