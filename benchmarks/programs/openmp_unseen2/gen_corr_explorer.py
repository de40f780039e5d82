#!/usr/bin/env python3
"""Generate a synthetic environmental-monitoring table (CSV with header).

Each row is one hourly record; 24 numeric sensor channels are driven by a
few latent weather processes (AR(1) series) plus noise, some through
monotone non-linear transforms.  Values are rounded (producing ties) and
about 1.5% of the cells are missing ("NA").

usage: gen_corr_explorer.py OUTDIR   -> writes OUTDIR/sensors.csv
"""
import math
import os
import random
import sys

ROWS = 1900
NAMES = [
    "air_temp", "soil_temp", "dew_point", "rel_humidity", "pressure", "wind_speed",
    "gust", "wind_dir_sin", "solar_rad", "uv_index", "rain_mm", "leaf_wet",
    "pm25", "pm10", "no2", "o3", "co", "noise_db",
    "river_level", "river_temp", "turbidity", "cond_us", "ph", "battery_v",
]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_corr_explorer.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(424242)
    # latent processes: heat, moisture, wind, traffic, hydrology
    lat = [0.0] * 5
    phi = [0.97, 0.93, 0.85, 0.6, 0.995]
    rows = []
    for t in range(ROWS):
        for k in range(5):
            lat[k] = phi[k] * lat[k] + math.sqrt(1 - phi[k] ** 2) * rng.gauss(0, 1)
        day = math.sin(2 * math.pi * t / 24.0)
        heat, moist, wind, traffic, hydro = lat
        g = rng.gauss
        r = {}
        r["air_temp"] = 12 + 6 * heat + 4 * day + g(0, 0.8)
        r["soil_temp"] = 11 + 4 * heat + 1.5 * day + g(0, 0.6)
        r["dew_point"] = 6 + 3 * heat + 3 * moist + g(0, 0.9)
        r["rel_humidity"] = max(5, min(100, 70 + 12 * moist - 8 * day - 5 * heat + g(0, 4)))
        r["pressure"] = 1013 - 6 * moist - 2 * wind + g(0, 1.5)
        r["wind_speed"] = math.exp(1.0 + 0.45 * wind + g(0, 0.25))
        r["gust"] = r["wind_speed"] * (1.4 + abs(g(0, 0.2)))
        r["wind_dir_sin"] = math.sin(0.8 * wind + g(0, 0.9))
        r["solar_rad"] = max(0.0, 500 * day + 80 * heat - 60 * moist + g(0, 40))
        r["uv_index"] = max(0.0, r["solar_rad"] / 90 + g(0, 0.3))
        rain = max(0.0, 3 * moist - 2.5 + g(0, 1.0))
        r["rain_mm"] = rain
        r["leaf_wet"] = min(15, 2 * rain + 3 * max(0.0, moist) + abs(g(0, 0.5)))
        pm = math.exp(2.5 + 0.5 * traffic - 0.3 * wind + g(0, 0.3))
        r["pm25"] = pm
        r["pm10"] = pm * (1.6 + g(0, 0.15)) - 2 * rain
        r["no2"] = 20 + 9 * traffic - 3 * wind + g(0, 3)
        r["o3"] = 40 + 15 * day + 5 * heat - 4 * traffic + g(0, 4)
        r["co"] = math.exp(-1 + 0.35 * traffic + g(0, 0.2))
        r["noise_db"] = 55 + 6 * traffic + 2 * wind + g(0, 2)
        r["river_level"] = 1.2 + 0.4 * hydro + 0.05 * moist + g(0, 0.03)
        r["river_temp"] = 10 + 2 * heat + 0.5 * hydro + g(0, 0.4)
        r["turbidity"] = math.exp(1.5 + 0.6 * hydro + 0.2 * rain + g(0, 0.3))
        r["cond_us"] = 450 - 60 * hydro + g(0, 15)
        r["ph"] = 7.4 - 0.1 * hydro + g(0, 0.05)
        r["battery_v"] = 12.4 + 0.002 * r["solar_rad"] - 0.0003 * t + g(0, 0.05)
        rows.append(r)

    path = os.path.join(sys.argv[1], "sensors.csv")
    with open(path, "w", newline="\n") as f:
        f.write(",".join(NAMES) + "\n")
        for r in rows:
            cells = []
            for name in NAMES:
                if rng.random() < 0.015:
                    cells.append("NA")
                else:
                    cells.append("%.2f" % r[name])
            f.write(",".join(cells) + "\n")


if __name__ == "__main__":
    main()
