#!/usr/bin/env python3
"""Write scenarios.txt: 96 bank-branch scenarios for queue_sim.

Each non-comment line: group arrival_rate service_rate tellers customers
(rates per minute).  Groups of 12 scenarios share a branch type; customer
counts range from 20,000 to 1,000,000.
"""
import math
import random

rng = random.Random(96024)
groups = [
    # name, tellers range, load range (arrival / (tellers * service))
    ("rural", (1, 2), (0.55, 0.85)),
    ("suburb", (2, 4), (0.60, 0.95)),
    ("mall", (3, 6), (0.70, 1.05)),
    ("campus", (2, 5), (0.50, 0.90)),
    ("station", (4, 8), (0.80, 1.10)),
    ("downtown", (6, 12), (0.75, 1.05)),
    ("market", (3, 7), (0.85, 1.20)),
    ("hq", (8, 16), (0.60, 1.00)),
]
lines = ["# group arrival_rate service_rate tellers customers"]
k = 0
for name, (tlo, thi), (llo, lhi) in groups:
    for _ in range(12):
        tellers = rng.randint(tlo, thi)
        service = round(rng.uniform(0.12, 0.40), 4)   # customers per minute per teller
        load = rng.uniform(llo, lhi)
        arrival = round(load * tellers * service, 4)
        if k == 0:
            customers = 20000
        elif k == 50:
            customers = 1000000
        else:
            customers = int(round(math.exp(rng.uniform(math.log(20000), math.log(1000000))), -2))
        lines.append("%s %.4f %.4f %d %d" % (name, arrival, service, tellers, customers))
        k += 1
with open("scenarios.txt", "w", newline="\n") as f:
    f.write("\n".join(lines) + "\n")
