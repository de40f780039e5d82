#!/usr/bin/env python3
"""Writes factor_a.txt and factor_b.txt: two large decimal integers."""
import random

rng = random.Random(99173)


def number(ndigits):
    first = str(rng.randint(1, 9))
    rest = "".join(rng.choice("0123456789") for _ in range(ndigits - 1))
    return first + rest


def write(path, s):
    with open(path, "w", newline="\n") as f:
        for k in range(0, len(s), 100):
            f.write(s[k:k + 100] + "\n")


write("factor_a.txt", number(487231))
write("factor_b.txt", number(452917))
