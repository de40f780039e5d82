#!/usr/bin/env python3
"""Generate a genome-like FASTA file for kmer_count.

usage: gen_kmer_count.py OUTDIR

Writes OUTDIR/kmer_count_genome.fa: several records ("chromosomes" and a few
short contigs) of random sequence with ~41% GC, interspersed copies of a few
transposon-like repeat families (with point mutations), tandem repeats,
soft-masked (lower-case) stretches and runs of N.  60 bases per line.
"""
import os
import random
import sys

BASES = "ACGT"


def random_seq(rng, n, gc=0.41):
    at = (1.0 - gc) / 2.0
    cum = [at, 0.5, 0.5 + gc / 2.0]
    out = []
    for _ in range(n):
        x = rng.random()
        if x < cum[0]:
            out.append("A")
        elif x < cum[1]:
            out.append("C")
        elif x < cum[2]:
            out.append("G")
        else:
            out.append("T")
    return "".join(out)


def mutate(rng, s, rate):
    s = list(s)
    for i in range(len(s)):
        if rng.random() < rate:
            s[i] = rng.choice(BASES)
    return "".join(s)


def revcomp(s):
    return s.translate(str.maketrans("ACGTacgt", "TGCAtgca"))[::-1]


def make_record(rng, length, families):
    parts = []
    n = 0
    while n < length:
        r = rng.random()
        if r < 0.55:
            piece = random_seq(rng, rng.randint(200, 3000))
        elif r < 0.85:
            fam = rng.choice(families)
            # copies are mostly full length, sometimes truncated
            lo = 0 if rng.random() < 0.6 else rng.randint(0, len(fam) // 2)
            piece = mutate(rng, fam[lo:], rng.choice([0.002, 0.01, 0.05, 0.12]))
            if rng.random() < 0.5:
                piece = revcomp(piece)
        elif r < 0.95:
            unit = random_seq(rng, rng.randint(1, 6), gc=0.3)
            piece = mutate(rng, unit * rng.randint(10, 120), 0.02)
        else:
            piece = "N" * rng.randint(20, 400)
        if rng.random() < 0.15:
            piece = piece.lower()
        parts.append(piece)
        n += len(piece)
    return "".join(parts)[:length]


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_kmer_count.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(7741)
    families = [random_seq(rng, rng.choice([320, 900, 1800, 6000])) for _ in range(6)]
    records = [("chr1", 420000), ("chr2", 350000), ("chr3", 260000),
               ("chr4", 150000), ("contig_a", 41000), ("contig_b", 12000),
               ("contig_c", 3500), ("mito", 16500)]
    path = os.path.join(sys.argv[1], "kmer_count_genome.fa")
    with open(path, "w", newline="\n") as f:
        for name, length in records:
            seq = make_record(rng, length, families)
            f.write(">%s synthetic sequence length=%d\n" % (name, length))
            for i in range(0, len(seq), 60):
                f.write(seq[i:i + 60])
                f.write("\n")


if __name__ == "__main__":
    main()
