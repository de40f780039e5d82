#!/usr/bin/env python3
"""Write the item list for knapsack_rows.

knapsack_rows_items.txt: '#' comment lines, then "count N", then N lines
"id weight value" (positive integers).
"""
import random

SEED = 8675309
N = 2000


def main():
    rng = random.Random(SEED)
    with open("knapsack_rows_items.txt", "w") as f:
        f.write("# knapsack_rows item list: id weight value\n")
        f.write("count %d\n" % N)
        for i in range(N):
            kind = rng.random()
            if kind < 0.6:  # ordinary items, value loosely tied to weight
                w = rng.randint(50, 600)
                v = max(1, int(w * rng.uniform(0.6, 1.6)) + rng.randint(-25, 25))
            elif kind < 0.9:  # heavy items
                w = rng.randint(600, 3000)
                v = int(w * rng.uniform(0.8, 1.3))
            else:  # small valuable items
                w = rng.randint(5, 75)
                v = rng.randint(50, 200)
            f.write("%d %d %d\n" % (i + 1, w, v))


if __name__ == "__main__":
    main()
