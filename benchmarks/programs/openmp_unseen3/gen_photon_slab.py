#!/usr/bin/env python3
"""Write the layer description for photon_slab (a skin-like tissue stack)."""
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_photon_slab.py OUTPUT_DIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(4711)
    rows = [
        # thickness mm, mua 1/mm, mus 1/mm, g
        (0.02, 0.50, 40.0, 0.85),   # stratum corneum
        (0.08, 0.30, 30.0, 0.80),   # epidermis
        (0.15, 0.25, 22.0, 0.85),   # papillary dermis
    ]
    # reticular dermis split into a few sub-layers with slightly varying optics
    for _ in range(4):
        rows.append((round(rng.uniform(0.25, 0.45), 3),
                     round(rng.uniform(0.02, 0.06), 4),
                     round(rng.uniform(15.0, 25.0), 2),
                     round(rng.uniform(0.78, 0.9), 3)))
    rows.append((0.8, 0.01, 10.0, 0.75))  # subcutaneous fat
    with open(os.path.join(out, "photon_slab_layers.txt"), "w", newline="\n") as f:
        f.write("# layered slab: thickness_mm mua_per_mm mus_per_mm g\n")
        for r in rows:
            f.write("%.3f %.4f %.2f %.3f\n" % r)


if __name__ == "__main__":
    main()
