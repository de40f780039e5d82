#!/usr/bin/env python3
"""Write a ranked-ballot election for ballot_runoff.

ballot_runoff_candidates.txt: one candidate name per line (12 candidates).
ballot_runoff_ballots.bin: magic b"IRVB", uint32 candidates, uint32 ballots,
uint32 payload bytes, then a packed stream of 4-bit nibbles (high nibble
first): for every ballot its length L (3..12) followed by L distinct
candidate numbers, most preferred first.  The last byte is padded with 0.
"""
import random
import struct

SEED = 1789
BALLOTS = 2_000_000
NAMES = ["Abernathy", "Blomqvist", "Castellanos", "Dvorak", "Eriksen", "Fairweather",
         "Gallagher", "Haddad", "Ibarra", "Jovanovic", "Kowalczyk", "Lindqvist"]
# left-right positions of the candidates and popularity weights
POS = [0.05, 0.15, 0.22, 0.31, 0.40, 0.47, 0.52, 0.60, 0.69, 0.78, 0.86, 0.95]
POP = [1.2, 0.7, 1.0, 0.9, 1.1, 0.5, 1.15, 0.8, 1.0, 0.6, 1.05, 0.75]
LENGTHS = list(range(3, 13))
LEN_W = [30, 22, 15, 10, 7, 5, 4, 3, 2, 2]


def main():
    rng = random.Random(SEED)
    nc = len(NAMES)
    # pre-compute ballot templates for a grid of voter positions so the
    # generator stays fast; each ballot then perturbs one template
    templates = []
    for g in range(101):
        v = g / 100.0
        score = [POP[c] - 3.0 * abs(POS[c] - v) for c in range(nc)]
        templates.append(score)
    nibbles = bytearray()
    lengths = rng.choices(LENGTHS, LEN_W, k=BALLOTS)
    for b in range(BALLOTS):
        v = min(100, max(0, int(rng.gauss(0.5, 0.22) * 100)))
        base = templates[v]
        noisy = sorted(range(nc), key=lambda c: -(base[c] + rng.random() * 0.9))
        L = lengths[b]
        nibbles.append(L)
        nibbles.extend(noisy[:L])
    if len(nibbles) % 2:
        nibbles.append(0)
    payload = bytes((nibbles[i] << 4) | nibbles[i + 1] for i in range(0, len(nibbles), 2))
    with open("ballot_runoff_ballots.bin", "wb") as f:
        f.write(b"IRVB")
        f.write(struct.pack("<III", nc, BALLOTS, len(payload)))
        f.write(payload)
    with open("ballot_runoff_candidates.txt", "w") as f:
        for name in NAMES:
            f.write(name + "\n")


if __name__ == "__main__":
    main()
