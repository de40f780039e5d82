#!/usr/bin/env python3
"""Write contracts.txt: a book of vanilla equity options for binomial_tree.

Columns: spot strike rate volatility maturity call|put american|european.
Fixed seed, so the file is identical on every run.
"""
import random

CONTRACTS = 80


def main():
    rng = random.Random(4242)
    underlyings = [(rng.uniform(20, 400), rng.uniform(0.12, 0.65)) for _ in range(12)]
    lines = ["# option book: spot strike rate vol maturity_years type style"]
    for _ in range(CONTRACTS):
        spot, vol = rng.choice(underlyings)
        moneyness = rng.choice([0.7, 0.8, 0.9, 0.95, 1.0, 1.0, 1.05, 1.1, 1.25, 1.5])
        strike = round(spot * moneyness, 2)
        rate = rng.choice([0.0, 0.01, 0.025, 0.04, 0.05, 0.07])
        vol_c = round(vol * rng.uniform(0.85, 1.2), 3)
        maturity = rng.choice([0.083, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0])
        kind = "put" if rng.random() < 0.55 else "call"
        style = "american" if rng.random() < 0.6 else "european"
        lines.append("%.2f %.2f %.3f %.3f %.3f %s %s"
                     % (spot, strike, rate, vol_c, maturity, kind, style))
    with open("contracts.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
