#!/usr/bin/env python3
"""Writes topk_weights.txt and five record files topk_records_0.bin .. _4.bin
(400,000 records of 16 byte-sized features each) for topk_scores."""
import random
import struct

rng = random.Random(424242)
NFEAT = 16
NFILES = 5
PER_FILE = 400000

# each feature column has its own shape: a lookup table maps uniform bytes
# onto a skewed, clipped distribution
tables = []
for c in range(NFEAT):
    mu = rng.uniform(40, 200)
    sigma = rng.uniform(10, 60)
    skew = rng.choice([0.5, 1.0, 1.5])
    t = bytearray(256)
    for u in range(256):
        q = (u + 0.5) / 256.0
        z = (q ** skew - 0.5) * 3.4
        t[u] = max(0, min(255, int(round(mu + sigma * z))))
    tables.append(bytes(t))

names = ["quality", "freshness", "popularity", "risk", "balanced", "contrast", "sparse", "penalised"]
with open("topk_weights.txt", "w", newline="\n") as f:
    f.write("# name, then 16 weights (at most 3 decimals)\n")
    for v, name in enumerate(names):
        ws = []
        for k in range(NFEAT):
            if name == "sparse" and k % 4 != 0:
                ws.append("0")
                continue
            w = rng.randint(-2000, 2000) / 1000.0
            if name == "penalised" and k >= 12:
                w = -abs(w) - 1.0
            ws.append("%.3f" % w if rng.random() < 0.7 else "%.1f" % w)
        f.write(name + " " + " ".join(ws) + "\n")

for fi in range(NFILES):
    rec = bytearray(PER_FILE * NFEAT)
    for c in range(NFEAT):
        rec[c::NFEAT] = rng.randbytes(PER_FILE).translate(tables[c])
    with open("topk_records_%d.bin" % fi, "wb") as f:
        f.write(b"TOPKREC1" + struct.pack("<II", PER_FILE, NFEAT))
        f.write(rec)
