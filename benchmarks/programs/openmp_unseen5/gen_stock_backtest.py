#!/usr/bin/env python3
"""Write prices.csv: daily close prices for stock_backtest.

Header "date,<TICKER>,...", then one row per trading day (weekdays from
2014-01-02) with a close price per ticker, or an empty field before the
ticker's listing date (shorter histories).  Prices follow a regime-switching
random walk: calm and trending phases, occasional jumps."""
import datetime
import math
import os
import random
import string

SEED = 31337
TICKERS = 250
DAYS = 2500


def main():
    rng = random.Random(SEED)
    names = set()
    while len(names) < TICKERS:
        names.add("".join(rng.choice(string.ascii_uppercase) for _ in range(rng.choice((3, 4)))))
    names = sorted(names)

    days = []
    d = datetime.date(2014, 1, 2)
    while len(days) < DAYS:
        if d.weekday() < 5:
            days.append(d.isoformat())
        d += datetime.timedelta(days=1)

    columns = []
    for _ in names:
        # about a fifth of the tickers list later (shorter history)
        start = 0 if rng.random() < 0.8 else rng.randint(100, DAYS - 150)
        price = rng.uniform(8.0, 60.0)
        vol = rng.uniform(0.008, 0.03)
        drift = rng.uniform(-0.0002, 0.0006)
        trend = 0.0
        col = [""] * DAYS
        for t in range(start, DAYS):
            if rng.random() < 0.01:                       # regime change
                trend = rng.choice((0.0, 0.0, rng.uniform(-0.003, 0.003)))
            r = drift + trend + rng.gauss(0.0, vol)
            if rng.random() < 0.002:                      # news jump
                r += rng.gauss(0.0, 0.08)
            price *= math.exp(r)
            price = min(max(price, 1.0), 999.0)
            col[t] = "%.2f" % price
        columns.append(col)

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prices.csv")
    with open(path, "w", newline="\n") as f:
        f.write("date," + ",".join(names) + "\n")
        for t in range(DAYS):
            f.write(days[t] + "," + ",".join(c[t] for c in columns) + "\n")


if __name__ == "__main__":
    main()
