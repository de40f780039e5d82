#!/usr/bin/env python3
"""Writes knn_graph_points.bin: 15,000 points in 8 dimensions for knn_graph.

Format (little endian): magic b"PTS1", uint32 point count, uint32 dimension,
then count*dimension float32 coordinates, point by point.
The points come from 24 Gaussian clusters of different sizes and spreads
plus about 5% uniform background noise in the unit cube scaled by 10.
"""
import random
import struct

N, D = 15000, 8


def main():
    rnd = random.Random(20240611)
    centers = []
    for _ in range(24):
        c = [rnd.uniform(0.0, 10.0) for _ in range(D)]
        spread = rnd.uniform(0.15, 1.2)
        weight = rnd.uniform(0.5, 3.0)
        centers.append((c, spread, weight))
    total_w = sum(w for _, _, w in centers)
    pts = []
    for _ in range(N):
        if rnd.random() < 0.05:
            p = [rnd.uniform(0.0, 10.0) for _ in range(D)]
        else:
            u = rnd.uniform(0.0, total_w)
            acc = 0.0
            for c, s, w in centers:
                acc += w
                if u <= acc:
                    break
            p = [c[d] + rnd.gauss(0.0, s) for d in range(D)]
        pts.append(p)
    with open("knn_graph_points.bin", "wb") as fh:
        fh.write(b"PTS1" + struct.pack("<II", N, D))
        for p in pts:
            fh.write(struct.pack("<%df" % D, *p))


if __name__ == "__main__":
    main()
