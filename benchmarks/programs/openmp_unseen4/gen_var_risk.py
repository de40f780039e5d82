#!/usr/bin/env python3
"""Write the inputs of var_risk:

returns.csv     daily returns in percent, one row per trading day:
                date,ASSET1,ASSET2,...
portfolios.txt  one portfolio per line: NAME N TICKER:VALUE ... (VALUE is the
                position in dollars; negative for short positions)
"""
import datetime
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
N_ASSETS = 300
N_DAYS = 1500
N_PORTFOLIOS = 2000
N_SECTORS = 11


def ticker(i, rng):
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return "".join(rng.choice(letters) for _ in range(rng.choice([3, 4, 4]))) + "%d" % (i % 10)


def main():
    rng = random.Random(99173)
    names = []
    seen = set()
    while len(names) < N_ASSETS:
        t = ticker(len(names), rng)
        if t not in seen:
            seen.add(t)
            names.append(t)
    sector = [rng.randrange(N_SECTORS) for _ in range(N_ASSETS)]
    beta = [rng.uniform(0.4, 1.6) for _ in range(N_ASSETS)]
    sload = [rng.uniform(0.3, 1.2) for _ in range(N_ASSETS)]
    idio = [rng.uniform(0.6, 2.8) for _ in range(N_ASSETS)]

    # business days from 2018-01-02
    days = []
    d = datetime.date(2018, 1, 2)
    while len(days) < N_DAYS:
        if d.weekday() < 5:
            days.append(d.isoformat())
        d += datetime.timedelta(days=1)

    rows = ["date," + ",".join(names)]
    vol = 0.8
    for t in range(N_DAYS):
        # volatility clustering with occasional stress episodes
        vol = 0.94 * vol + 0.06 * 0.8 + (rng.random() < 0.004) * rng.uniform(1.5, 3.5)
        nu = 4.0
        fat = math.sqrt(nu / rng.gammavariate(nu / 2.0, 2.0))
        mkt = 0.03 + vol * rng.gauss(0.0, 1.0) * fat
        sec = [vol * 0.6 * rng.gauss(0.0, 1.0) for _ in range(N_SECTORS)]
        vals = []
        for a in range(N_ASSETS):
            e = idio[a] * rng.gauss(0.0, 1.0)
            if rng.random() < 0.002:
                e += rng.choice([-1, 1]) * rng.uniform(5.0, 18.0)   # earnings-type jump
            r = beta[a] * mkt + sload[a] * sec[sector[a]] + e
            r = max(r, -60.0)
            vals.append("%.3f" % r)
        rows.append(days[t] + "," + ",".join(vals))
    with open(os.path.join(HERE, "returns.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")

    lines = ["# name holdings ticker:value_usd ..."]
    for p in range(N_PORTFOLIOS):
        u = rng.random()
        if u < 0.5:
            k = rng.randint(5, 40)
        elif u < 0.85:
            k = rng.randint(40, 100)
        else:
            k = rng.randint(100, 150)
        assets = rng.sample(range(N_ASSETS), k)
        short_share = 0.0 if rng.random() < 0.6 else rng.uniform(0.05, 0.4)
        size = rng.choice([1e4, 5e4, 1e5, 5e5])
        parts = []
        for a in assets:
            v = size * rng.lognormvariate(0.0, 0.8)
            if rng.random() < short_share:
                v = -v
            parts.append("%s:%.0f" % (names[a], v))
        lines.append("PF%04d %d %s" % (p + 1, k, " ".join(parts)))
    with open(os.path.join(HERE, "portfolios.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
