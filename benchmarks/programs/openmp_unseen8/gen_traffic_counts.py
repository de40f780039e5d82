#!/usr/bin/env python3
"""Write six synthetic one-day vehicle-detector logs day1.log .. day6.log.

Each line: <seconds since midnight> <sensor id> <speed km/h> <length cm>,
sorted by time.  Fixed seed, so the files are identical on every run.
"""
import random

DAYS = 6
RECORDS_PER_DAY = 460000
SENSORS = 12

# relative traffic per hour of day: night lull, morning and evening peaks
HOUR_WEIGHT = [2, 1, 1, 1, 2, 5, 12, 20, 22, 15, 11, 11,
               12, 12, 12, 14, 18, 22, 20, 13, 9, 7, 5, 3]


def main():
    rng = random.Random(20240611)
    # per sensor: traffic share, typical car speed, speed spread
    sensors = []
    for s in range(SENSORS):
        share = rng.uniform(0.4, 2.0)
        typical = rng.choice([50, 60, 80, 100, 110, 120]) + rng.uniform(-5, 5)
        spread = rng.uniform(6, 14)
        sensors.append((share, typical, spread))
    sensor_cum = []
    acc = 0.0
    for share, _, _ in sensors:
        acc += share
        sensor_cum.append(acc)
    hour_cum = []
    acc = 0
    for w in HOUR_WEIGHT:
        acc += w
        hour_cum.append(acc)

    for day in range(1, DAYS + 1):
        hours = rng.choices(range(24), cum_weights=hour_cum, k=RECORDS_PER_DAY)
        sens = rng.choices(range(SENSORS), cum_weights=sensor_cum, k=RECORDS_PER_DAY)
        rows = []
        for h, s in zip(hours, sens):
            t = h * 3600 + rng.randrange(3600)
            _, typical, spread = sensors[s]
            if rng.random() < 0.11:
                length = rng.randint(780, 1850)
                speed = rng.gauss(min(typical, 85.0) - 3.0, spread * 0.6)
            else:
                length = rng.randint(340, 540)
                speed = rng.gauss(typical, spread)
            # congestion in the peaks slows everybody down a bit
            if HOUR_WEIGHT[h] >= 20:
                speed *= 0.8
            speed = int(max(3.0, min(230.0, speed)))
            rows.append((t, s, speed, length))
        rows.sort()
        with open("day%d.log" % day, "w") as f:
            f.write("# detector log day %d: time_s sensor speed_kmh length_cm\n" % day)
            f.write("".join("%d %d %d %d\n" % r for r in rows))


if __name__ == "__main__":
    main()
