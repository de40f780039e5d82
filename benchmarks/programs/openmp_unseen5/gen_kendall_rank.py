#!/usr/bin/env python3
"""Write rankings.txt: partial rankings of up to 400 items from many judges.

Judges belong to a few schools of taste; each ranks a subset of the items
(popular items are more likely to be ranked) by a noisy version of their
school's preference scores. Every ranking is listed best first.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "rankings.txt")

N_ITEMS = 400
N_RANKINGS = 2500
N_SCHOOLS = 4


def main():
    rng = random.Random(7719)
    base = [rng.gauss(0.0, 1.0) for _ in range(N_ITEMS)]
    schools = [[b + rng.gauss(0.0, 0.6) for b in base] for _ in range(N_SCHOOLS)]
    popularity = [1.0 / (1 + i) ** 0.7 for i in range(N_ITEMS)]
    perm = list(range(N_ITEMS))
    rng.shuffle(perm)
    weight = [0.0] * N_ITEMS
    for rank, item in enumerate(perm):
        weight[item] = popularity[rank]

    lines = []
    for _ in range(N_RANKINGS):
        school = schools[rng.randrange(N_SCHOOLS)]
        noise = rng.choice([0.3, 0.6, 1.0, 1.8])
        length = rng.randint(12, 72)
        chosen = set()
        while len(chosen) < length:
            chosen.update(rng.choices(range(N_ITEMS), weights=weight, k=length - len(chosen)))
        scored = sorted(chosen, key=lambda it: (-(school[it] + rng.gauss(0.0, noise)), it))
        lines.append("%d %s" % (len(scored), " ".join(str(it) for it in scored)))

    with open(OUT, "w", newline="\n") as f:
        f.write("# rankings of items 0..%d, best first: count then items\n" % (N_ITEMS - 1))
        f.write("%d %d\n" % (N_RANKINGS, N_ITEMS))
        for line in lines:
            f.write(line + "\n")


if __name__ == "__main__":
    main()
