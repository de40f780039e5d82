#!/usr/bin/env python3
"""Generate a synthetic weather-station CSV file for csv_stats.

usage: gen_csv_stats.py OUTDIR

Writes OUTDIR/csv_stats_readings.csv: a header line and about 26000 rows
  timestamp,station,temperature,humidity,pressure,wind
Station popularity is skewed (a few stations report very often), a few
percent of the fields are missing and a handful of lines are malformed.
"""
import math
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_csv_stats.py OUTDIR\n")
        sys.exit(2)
    outdir = sys.argv[1]
    rng = random.Random(20240611)

    nstations = 420
    # skewed popularity: weight ~ 1/(rank+3)^1.1
    ids = list(range(1, nstations + 1))
    rng.shuffle(ids)
    weights = [1.0 / (r + 3) ** 1.1 for r in range(nstations)]
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    total_w = acc

    base_temp = {s: rng.uniform(-5.0, 24.0) for s in ids}
    base_hum = {s: rng.uniform(35.0, 85.0) for s in ids}
    base_pres = {s: rng.uniform(985.0, 1030.0) for s in ids}
    windy = {s: rng.uniform(1.0, 9.0) for s in ids}

    nrows = 26000
    lines = ["timestamp,station,temperature,humidity,pressure,wind"]
    # 40 days starting 2023-03-01 00:00:00, sorted timestamps
    t = 0
    span = 40 * 86400
    step = span / nrows
    for i in range(nrows):
        t = int(i * step + rng.uniform(0, step * 0.9))
        day = 1 + t // 86400
        hh = (t % 86400) // 3600
        mm = (t % 3600) // 60
        ss = t % 60
        month = 3
        if day > 31:
            day -= 31
            month = 4
        ts = "2023-%02d-%02d %02d:%02d:%02d" % (month, day, hh, mm, ss)
        x = rng.random() * total_w
        lo, hi = 0, nstations - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if cum[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        st = ids[lo]
        diurnal = -math.cos((hh + mm / 60.0 - 3.0) / 24.0 * 2 * math.pi)
        temp = base_temp[st] + 6.0 * diurnal + rng.gauss(0, 2.0) + 0.08 * (t / 86400.0)
        hum = min(100.0, max(3.0, base_hum[st] - 10.0 * diurnal + rng.gauss(0, 6.0)))
        pres = base_pres[st] + 8.0 * math.sin(t / 86400.0 / 3.0) + rng.gauss(0, 1.5)
        wind = max(0.0, rng.gammavariate(2.0, windy[st] / 2.0))
        fields = [ts, "WS-%04d" % st, "%.1f" % temp, "%.1f" % hum,
                  "%.1f" % pres, "%.1f" % wind]
        for j in range(2, 6):
            if rng.random() < 0.03:
                fields[j] = ""
        r = rng.random()
        if r < 0.0008:
            lines.append("# sensor reset at " + ts)
            continue
        if r < 0.0016:
            lines.append(",".join(fields[:3]))  # truncated line
            continue
        if r < 0.0022:
            fields[2] = "n/a"
        lines.append(",".join(fields))

    path = os.path.join(outdir, "csv_stats_readings.csv")
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines))
        f.write("\n")


if __name__ == "__main__":
    main()
