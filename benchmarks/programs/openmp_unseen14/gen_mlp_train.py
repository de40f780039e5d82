#!/usr/bin/env python3
"""Writes mlp_train_data.csv: 4000 labelled samples, 16 features, 4 classes.

The label is the argmax of four smooth nonlinear score functions of the
features plus a little noise, so a small MLP can learn it but not perfectly.
"""
import math
import random

N_SAMPLES = 4000
N_FEAT = 16
N_CLASS = 4

rng = random.Random(20240614)

# hidden "teacher" network: 4 classes, each score a sum of 3 tanh ridges
ridges = []
for k in range(N_CLASS):
    terms = []
    for _ in range(3):
        w = [rng.gauss(0.0, 0.6) for _ in range(N_FEAT)]
        b = rng.gauss(0.0, 0.5)
        a = rng.uniform(0.5, 1.5)
        terms.append((a, w, b))
    ridges.append(terms)

with open("mlp_train_data.csv", "w", newline="\n") as f:
    f.write(",".join("x%d" % i for i in range(N_FEAT)) + ",label\n")
    for _ in range(N_SAMPLES):
        x = [rng.gauss(0.0, 1.0) for _ in range(N_FEAT)]
        scores = []
        for k in range(N_CLASS):
            s = 0.0
            for a, w, b in ridges[k]:
                s += a * math.tanh(sum(wi * xi for wi, xi in zip(w, x)) + b)
            s += rng.gauss(0.0, 0.5)
            scores.append(s)
        label = max(range(N_CLASS), key=lambda k: scores[k])
        f.write(",".join("%.5f" % v for v in x) + ",%d\n" % label)
