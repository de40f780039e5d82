#!/usr/bin/env python3
"""Writes curve_fits_series.txt: about 6000 noisy dose-response series.
Each line: n xmin xmax y_1 .. y_n, the doses being log-spaced from xmin to
xmax.  Most series follow a 4-parameter logistic curve; some have their
midpoint outside the measured range, some have outliers, some are flat noise."""
import math
import random

NSERIES = 6000


def main():
    rng = random.Random(4242)
    out = ["%d\n" % NSERIES]
    for s in range(NSERIES):
        n = int(round(math.exp(rng.uniform(math.log(20), math.log(400)))))
        xmin = 10 ** rng.uniform(-3, -1)
        xmax = xmin * 10 ** rng.uniform(2, 5)
        lxmin, lxmax = math.log(xmin), math.log(xmax)
        kind = rng.random()
        a = rng.uniform(-5, 25)
        d = rng.uniform(70, 130)
        if rng.random() < 0.5:
            a, d = d, a
        b = rng.uniform(0.4, 4.0)
        if kind < 0.70:
            lc = rng.uniform(lxmin + 0.15 * (lxmax - lxmin), lxmax - 0.15 * (lxmax - lxmin))
        elif kind < 0.88:
            # midpoint near or beyond an end of the range: poorly determined
            lc = rng.choice((lxmin, lxmax)) + rng.uniform(-1.5, 1.5)
        else:
            lc = None
        sd = abs(d - a) * rng.uniform(0.01, 0.08)
        ys = []
        for i in range(n):
            lx = lxmin + (lxmax - lxmin) * i / (n - 1)
            if lc is None:
                y = (a + d) / 2 + rng.gauss(0, abs(d - a) * 0.3)
            else:
                t = b * (lx - lc)
                t = max(-700.0, min(700.0, t))
                y = d + (a - d) / (1 + math.exp(t)) + rng.gauss(0, sd)
                if rng.random() < 0.02:
                    y += rng.choice((-1, 1)) * abs(d - a) * rng.uniform(0.3, 1.0)
            ys.append("%.4g" % y)
        out.append("%d %.6g %.6g %s\n" % (n, xmin, xmax, " ".join(ys)))
    with open("curve_fits_series.txt", "w") as f:
        f.write("".join(out))


if __name__ == "__main__":
    main()
