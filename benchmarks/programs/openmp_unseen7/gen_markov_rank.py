#!/usr/bin/env python3
"""Writes a transition-count matrix for markov_rank.c.

The chain models user navigation between pages of a site split into
sections: most moves stay inside a section, a few cross to other sections,
so the chain mixes slowly.

usage: gen_markov_rank.py [OUTPUT]   (default markov_counts.txt)
"""
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "markov_counts.txt"
rng = random.Random(20240611)

SECTIONS = ["home", "news", "sport", "shop", "help", "forum", "blog", "docs", "jobs"]
PER_SECTION = 40
N = len(SECTIONS) * PER_SECTION

names = []
for s in SECTIONS:
    for k in range(PER_SECTION):
        names.append(f"{s}/p{k:03d}")

rows = []
for i in range(N):
    sec = i // PER_SECTION
    base = sec * PER_SECTION
    row = [0] * N
    row[i] = rng.randint(5, 40)                 # reloads keep the chain aperiodic
    # links inside the section, with a few popular hub pages
    for _ in range(rng.randint(6, 18)):
        j = base + min(int(rng.expovariate(0.12)), PER_SECTION - 1)
        row[j] += rng.randint(1, 60)
    # rare jumps to other sections (mostly to their landing page)
    for _ in range(rng.randint(0, 3)):
        other = rng.randrange(len(SECTIONS))
        if other != sec:
            j = other * PER_SECTION + (0 if rng.random() < 0.7 else rng.randrange(PER_SECTION))
            row[j] += rng.randint(1, 3)
    if i % 97 == 13:
        row = [0] * N                           # a page never observed leaving
    rows.append(row)

with open(out, "w", newline="\n") as f:
    f.write("# page-to-page transition counts from access logs\n")
    f.write(f"states {N}\n")
    for name, row in zip(names, rows):
        f.write(name + " " + " ".join(str(c) for c in row) + "\n")
