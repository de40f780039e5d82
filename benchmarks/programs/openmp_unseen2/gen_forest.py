#!/usr/bin/env python3
"""Generate a tabular classification data set for forest.c.

A fictional "soil sample" survey: 10 numeric measurements and a land-use
class decided by a non-linear rule on some of them, with label noise and
a few uninformative columns.  Output: soil.csv (header + 3200 rows).
"""
import math
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_forest.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(31337)
    cols = ["ph", "moisture", "nitrogen", "phosphorus", "potassium",
            "organic", "clay", "elevation", "slope", "sensor_id"]
    classes = ["forest", "pasture", "cropland", "wetland"]
    rows = []
    for _ in range(3200):
        ph = rng.gauss(6.5, 0.9)
        moist = rng.uniform(5, 60)
        nitro = rng.lognormvariate(3.0, 0.5)
        phos = rng.gauss(30, 10)
        pot = rng.gauss(150, 40)
        org = rng.uniform(0.5, 9.0)
        clay = rng.uniform(5, 55)
        elev = rng.uniform(0, 1200)
        slope = abs(rng.gauss(0, 9))
        sensor = rng.randrange(40)
        if moist > 45 and elev < 300:
            c = 3
        elif org > 5.5 and ph < 6.4 + 0.001 * elev:
            c = 0
        elif nitro * (1 + phos / 60.0) > 28 and slope < 8:
            c = 2
        elif math.sin(pot / 25.0) + clay / 40.0 > 0.6:
            c = 1
        else:
            c = 0 if elev > 700 else 1
        if rng.random() < 0.07:
            c = rng.randrange(4)
        rows.append((ph, moist, nitro, phos, pot, org, clay, elev, slope, sensor, classes[c]))
    with open(os.path.join(sys.argv[1], "soil.csv"), "w", newline="\n") as f:
        f.write(",".join(cols) + ",landuse\n")
        for r in rows:
            f.write("%.2f,%.1f,%.2f,%.1f,%.0f,%.2f,%.1f,%.0f,%.1f,%d,%s\n" % r)


if __name__ == "__main__":
    main()
