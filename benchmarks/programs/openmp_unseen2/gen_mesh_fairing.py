#!/usr/bin/env python3
"""Generate a noisy, lumpy closed triangle mesh (genus 0) in OFF format.

The mesh is a UV sphere whose radius is modulated by a few low-frequency
bumps plus small random noise (a "scanned pebble").  Poles are triangle
fans, so vertex valences range from 6 up to the number of slices.  A few
quads are written as 4-gons to exercise the reader's fan triangulation.

usage: gen_mesh_fairing.py OUTDIR   -> writes OUTDIR/pebble.off
"""
import math
import os
import random
import sys

SLICES, STACKS = 96, 64


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_mesh_fairing.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(7331)
    verts = []

    def radius(theta, phi):
        r = 1.0
        r += 0.22 * math.sin(3 * theta) * math.cos(2 * phi)
        r += 0.08 * math.sin(5 * phi + theta)
        r += 0.05 * math.cos(7 * theta - 2 * phi)
        return r

    def add(theta, phi):
        r = radius(theta, phi) + rng.uniform(-0.012, 0.012)
        x = r * math.sin(theta) * math.cos(phi)
        y = r * math.sin(theta) * math.sin(phi)
        z = 1.3 * r * math.cos(theta)
        verts.append((x, y, z))

    add(0.0, 0.0)  # north pole, index 0
    for i in range(1, STACKS):
        theta = math.pi * i / STACKS
        for j in range(SLICES):
            add(theta, 2 * math.pi * (j + 0.5 * (i % 2)) / SLICES)
    add(math.pi, 0.0)  # south pole
    south = len(verts) - 1

    def ring(i, j):
        return 1 + (i - 1) * SLICES + (j % SLICES)

    faces = []
    for j in range(SLICES):
        faces.append((0, ring(1, j), ring(1, j + 1)))
    for i in range(1, STACKS - 1):
        for j in range(SLICES):
            a, b = ring(i, j), ring(i, j + 1)
            c, d = ring(i + 1, j), ring(i + 1, j + 1)
            if rng.random() < 0.05:
                faces.append((a, c, d, b))  # planar-ish quad, left as a 4-gon
            else:
                faces.append((a, c, d))
                faces.append((a, d, b))
    for j in range(SLICES):
        faces.append((south, ring(STACKS - 1, j + 1), ring(STACKS - 1, j)))

    path = os.path.join(sys.argv[1], "pebble.off")
    with open(path, "w", newline="\n") as f:
        f.write("OFF\n# lumpy pebble, UV-sphere topology with noise\n")
        f.write("%d %d 0\n" % (len(verts), len(faces)))
        for x, y, z in verts:
            f.write("%.6f %.6f %.6f\n" % (x, y, z))
        for fc in faces:
            f.write("%d %s\n" % (len(fc), " ".join(str(k) for k in fc)))


if __name__ == "__main__":
    main()
