#!/usr/bin/env python3
"""Write journal_01.txt .. journal_03.txt: three months of a warehouse
transaction journal (receipts and issues); the first month opens with the
opening-stock receipts."""
import random

MONTHS = 3
LINES_PER_MONTH = 300000
WAREHOUSES = ["W%02d" % k for k in range(1, 9)]
PREFIXES = ["HX", "KT", "MB", "PL", "RZ", "SV", "TF"]

def main():
    rng = random.Random(88213)
    items = []
    for _ in range(2500):
        code = "%s-%05d" % (rng.choice(PREFIXES), rng.randrange(100000))
        cost = round(rng.lognormvariate(2.6, 1.0), 2)
        cost = max(cost, 0.05)
        popularity = rng.paretovariate(1.3)
        home = rng.sample(WAREHOUSES, rng.randint(1, 3))
        items.append((code, cost, popularity, home))
    weights = [it[2] for it in items]
    for month in range(1, MONTHS + 1):
        with open("journal_%02d.txt" % month, "w", newline="\n") as f:
            f.write("# item warehouse qty unit-price  (month %d)\n" % month)
            if month == 1:
                f.write("# opening stock\n")
                for code, cost, popularity, home in items:
                    for wh in home:
                        qty = 20 + int(40 * min(popularity, 12.0))
                        f.write("%s %s %d %.2f\n" % (code, wh, qty, cost))
                f.write("# movements\n")
            # prices drift a little from month to month
            drift = 1.0 + 0.02 * (month - 1)
            picks = rng.choices(range(len(items)), weights=weights, k=LINES_PER_MONTH)
            for idx in picks:
                code, cost, _, home = items[idx]
                wh = rng.choice(home)
                if rng.random() < 0.41:
                    qty = rng.randint(5, 120)
                    price = cost * drift * rng.uniform(0.95, 1.05)
                else:
                    qty = -rng.randint(1, 60)
                    price = cost * drift * rng.uniform(1.3, 1.8)
                f.write("%s %s %d %.2f\n" % (code, wh, qty, price))

if __name__ == "__main__":
    main()
