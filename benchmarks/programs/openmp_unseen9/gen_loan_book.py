#!/usr/bin/env python3
"""Write loans.csv, the loan book read by loan_book:
principal (dollars.cents), annual rate (percent, 3 decimals), term (months),
start month (YYYY-MM)."""
import random

rng = random.Random(8675309)
N = 250_000

# base rate (percent) by origination year
BASE = {2012: 3.6, 2013: 3.9, 2014: 4.1, 2015: 3.8, 2016: 3.6, 2017: 4.0,
        2018: 4.5, 2019: 3.9, 2020: 3.1, 2021: 2.9, 2022: 5.2, 2023: 6.8, 2024: 6.6}

rows = ["principal,annual_rate,term_months,start_month"]
for _ in range(N):
    year = rng.randint(2012, 2024)
    month = rng.randint(1, 12)
    kind = rng.random()
    base = BASE[year]
    if kind < 0.42:                                   # mortgage
        term = rng.choice([180, 240, 360, 360, 360])
        principal = rng.randint(60_000_00, 950_000_00)
        rate = base + rng.uniform(-0.4, 1.2) - (0.5 if term == 180 else 0.0)
    elif kind < 0.75:                                 # auto
        term = rng.choice([36, 48, 60, 60, 72, 84])
        principal = rng.randint(4_000_00, 75_000_00)
        rate = base + rng.uniform(0.5, 5.0)
        if rng.random() < 0.04:
            rate = 0.0                                # promotional 0 %
    else:                                             # personal / student
        term = rng.choice([12, 24, 36, 60, 120])
        principal = rng.randint(1_000_00, 45_000_00)
        rate = base + rng.uniform(3.0, 16.0)
    rate = max(0.0, round(rate, 3))
    rows.append("%d.%02d,%.3f,%d,%04d-%02d" % (principal // 100, principal % 100,
                                               rate, term, year, month))

with open("loans.csv", "w", newline="\n") as f:
    f.write("\n".join(rows) + "\n")
