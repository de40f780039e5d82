#!/usr/bin/env python3
"""Writes seq_a.fa and seq_b.fa: a random DNA sequence and a mutated copy of it."""
import random

rng = random.Random(20240611)
BASES = "ACGT"


def write_fasta(path, name, seq):
    with open(path, "w", newline="\n") as f:
        f.write(">" + name + "\n")
        for k in range(0, len(seq), 70):
            f.write(seq[k:k + 70] + "\n")


a = [rng.choice(BASES) for _ in range(8200)]
b = []
for c in a:
    r = rng.random()
    if r < 0.08:            # substitution
        b.append(rng.choice(BASES))
    elif r < 0.11:          # deletion
        continue
    elif r < 0.14:          # insertion
        b.append(c)
        b.append(rng.choice(BASES))
    else:
        b.append(c)
# a differing tail region
b = b[:7000] + [rng.choice(BASES) for _ in range(600)]

write_fasta("seq_a.fa", "sample_A synthetic reference", "".join(a))
write_fasta("seq_b.fa", "sample_B mutated copy", "".join(b))
