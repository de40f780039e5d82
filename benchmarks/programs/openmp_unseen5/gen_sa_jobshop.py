#!/usr/bin/env python3
"""Write jobshop_instances.txt: a set of random job-shop scheduling instances.

Each job visits every machine exactly once in a random order, with integer
processing times. Sizes range from 6x6 up to 30x15 (jobs x machines).
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "jobshop_instances.txt")

SIZES = [(6, 6), (8, 5), (10, 5), (10, 10), (12, 8), (15, 5), (15, 10),
         (15, 15), (20, 5), (20, 10), (20, 15), (25, 10), (30, 10), (30, 15)]


def main():
    rng = random.Random(20240517)
    instances = []
    idx = 0
    while len(instances) < 60:
        jobs, machines = SIZES[idx % len(SIZES)]
        idx += 1
        lo, hi = rng.choice([(1, 99), (1, 50), (10, 80), (5, 120)])
        rows = []
        for _ in range(jobs):
            order = list(range(machines))
            rng.shuffle(order)
            rows.append([(m, rng.randint(lo, hi)) for m in order])
        name = "rnd%02d_%dx%d" % (len(instances) + 1, jobs, machines)
        instances.append((name, jobs, machines, rows))

    with open(OUT, "w", newline="\n") as f:
        f.write("# job-shop instances: name jobs machines, then one line per job\n")
        f.write("# with (machine processing_time) pairs in processing order\n")
        f.write("%d\n" % len(instances))
        for name, jobs, machines, rows in instances:
            f.write("%s %d %d\n" % (name, jobs, machines))
            for row in rows:
                f.write(" ".join("%d %d" % (m, p) for m, p in row) + "\n")


if __name__ == "__main__":
    main()
