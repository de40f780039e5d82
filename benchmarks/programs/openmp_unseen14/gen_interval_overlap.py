#!/usr/bin/env python3
"""Write interval_overlap_ref.bed (300,000 reference intervals, e.g. genes or
peaks, clustered along the chromosomes with lognormal lengths and a few very
long ones) and interval_overlap_query.bed (125,000 query intervals, partly near
the reference clusters, partly uniform, a few on a chromosome with no
references)."""
import math
import random

SEED = 1414
N_REF = 300000
N_QUERY = 125000
# 12 chromosomes (a small plant-like genome, scaled down), Ensembl-style names
CHROMS = ['%d' % i for i in range(1, 13)]
# chromosome lengths in bp
LENGTHS = {}


def main():
    rng = random.Random(SEED)
    for i, c in enumerate(CHROMS):
        LENGTHS[c] = int(3000000 * (1.0 - 0.5 * i / len(CHROMS)))
    total = sum(LENGTHS.values())

    # clusters (gene-dense regions) per chromosome
    clusters = {}
    for c in CHROMS:
        k = max(4, LENGTHS[c] // 20000)
        clusters[c] = [(rng.randrange(LENGTHS[c]), rng.uniform(1000, 20000))
                       for _ in range(k)]

    def pick_chrom():
        x = rng.randrange(total)
        for c in CHROMS:
            if x < LENGTHS[c]:
                return c
            x -= LENGTHS[c]
        return CHROMS[-1]

    def ref_length():
        r = rng.random()
        if r < 0.0002:
            return rng.randint(800000, 2000000)      # very long (e.g. huge genes)
        if r < 0.02:
            return int(rng.lognormvariate(math.log(5000), 0.8))
        return int(rng.lognormvariate(math.log(150), 0.9)) + 20

    with open('interval_overlap_ref.bed', 'w', newline='\n') as f:
        f.write('# chrom\tstart\tend\n')
        lines = []
        for _ in range(N_REF):
            c = pick_chrom()
            L = LENGTHS[c]
            if rng.random() < 0.8:
                center, spread = rng.choice(clusters[c])
                s = int(rng.gauss(center, spread))
            else:
                s = rng.randrange(L)
            n = ref_length()
            s = min(max(0, s), L - 2)
            e = min(L, s + max(1, n))
            lines.append('%s\t%d\t%d\n' % (c, s, e))
        f.write(''.join(lines))

    with open('interval_overlap_query.bed', 'w', newline='\n') as f:
        lines = []
        for _ in range(N_QUERY):
            if rng.random() < 0.002:
                c = 'Mt'
                s = rng.randrange(16000)
                lines.append('%s\t%d\t%d\n' % (c, s, s + rng.randint(10, 500)))
                continue
            c = pick_chrom()
            L = LENGTHS[c]
            if rng.random() < 0.5:
                center, spread = rng.choice(clusters[c])
                s = int(rng.gauss(center, 2 * spread))
            else:
                s = rng.randrange(L)
            r = rng.random()
            if r < 0.01:
                n = rng.randint(50000, 300000)
            elif r < 0.3:
                n = rng.randint(1, 50)                  # point-like (SNP) queries
            else:
                n = int(rng.lognormvariate(math.log(300), 1.0)) + 1
            s = min(max(0, s), L - 2)
            e = min(L, s + n)
            lines.append('%s\t%d\t%d\n' % (c, s, e))
        f.write(''.join(lines))


if __name__ == '__main__':
    main()
