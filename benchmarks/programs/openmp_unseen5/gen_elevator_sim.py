#!/usr/bin/env python3
"""Write buildings.txt for elevator_sim: 300 building configurations."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(4411)

PATTERNS = ["office", "residential", "hotel", "hospital"]
POLICIES = ["nearest", "zoned", "roundrobin", "leastload"]

lines = ["# elevator_sim building list",
         "# name floors cars capacity floor_time(s) pattern policy population"]
for b in range(300):
    x = rng.random()
    if x < 0.45:
        floors = rng.randint(5, 15)
    elif x < 0.85:
        floors = rng.randint(16, 35)
    else:
        floors = rng.randint(36, 70)
    pattern = rng.choice(PATTERNS)
    policy = POLICIES[b % 4] if rng.random() < 0.7 else rng.choice(POLICIES)
    per_floor = {"office": (30, 70), "residential": (12, 35),
                 "hotel": (15, 40), "hospital": (25, 55)}[pattern]
    population = floors * rng.randint(*per_floor)
    # roughly one car per 180-320 people, a few buildings badly short of cars;
    # tall buildings get bigger and faster cars
    cars = max(1, min(12, round(population / rng.uniform(180, 320))))
    if rng.random() < 0.08:
        cars = max(1, cars // 2)
    if floors > 30:
        capacity = rng.choice([16, 20, 24])
        floor_time = round(rng.uniform(0.9, 1.4), 2)
    else:
        capacity = rng.choice([8, 10, 13, 16, 20])
        floor_time = round(rng.uniform(1.4, 2.4), 2)
    name = "%s-%03d" % (pattern[:3].upper(), b + 1)
    lines.append("%s %d %d %d %.2f %s %s %d" % (name, floors, cars, capacity,
                                               floor_time, pattern, policy,
                                               population))

with open(os.path.join(HERE, "buildings.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
