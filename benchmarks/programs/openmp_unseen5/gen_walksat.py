#!/usr/bin/env python3
"""Write sat_instances.cnf: a batch of random 3-SAT instances for walksat.

Format: first line "instances <K>", then for each instance a comment line
"c <name>", a header "p cnf <vars> <clauses>" and one clause per line as
three non-zero literals terminated by 0 (DIMACS style)."""
import os
import random

SEED = 777123
COUNT = 200
SIZES = (60, 80, 100, 120, 150, 180, 220, 260)


def main():
    rng = random.Random(SEED)
    out = ["instances %d" % COUNT]
    for k in range(COUNT):
        n = rng.choice(SIZES)
        ratio = round(rng.uniform(3.80, 4.60), 2)
        m = int(round(ratio * n))
        out.append("c rand3-n%d-r%.2f-%03d" % (n, ratio, k))
        out.append("p cnf %d %d" % (n, m))
        for _ in range(m):
            vs = rng.sample(range(1, n + 1), 3)
            lits = [v if rng.random() < 0.5 else -v for v in vs]
            out.append("%d %d %d 0" % tuple(lits))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sat_instances.cnf")
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
