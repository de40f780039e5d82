#!/usr/bin/env python3
"""Writes the configuration file read by vec_stats.c.

usage: gen_vec_stats.py [OUTPUT]   (default vec_config.txt)
"""
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "vec_config.txt"
rng = random.Random(5150)

weights = [round(rng.uniform(0.6, 1.6), 3) for _ in range(7)]

with open(out, "w", newline="\n") as f:
    f.write("# vec_stats configuration\n")
    f.write("# clip limits for the combined signal z\n")
    f.write("clip -2.75 2.75\n")
    f.write("# histogram range (values outside go to the end bins)\n")
    f.write("hist -3.2 3.2\n")
    f.write("# relaxation of x towards z per pass\n")
    f.write("mix 0.3\n")
    f.write("# noise channel amplitude and slow drift of x\n")
    f.write("noise 0.45\n")
    f.write("drift 2.5\n")
    f.write("# per-pass axpy weights (cycled)\n")
    f.write("weights " + " ".join(f"{w:.3f}" for w in weights) + "\n")
