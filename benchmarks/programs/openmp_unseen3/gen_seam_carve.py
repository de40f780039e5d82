#!/usr/bin/env python3
"""Write a synthetic 640x480 colour PPM scene for seam_carve."""
import math
import os
import random
import sys


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_seam_carve.py OUTPUT_DIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(9001)
    W, H = 640, 480
    horizon = 300
    # a few objects: (cx, cy, r, colour)
    blobs = []
    for _ in range(14):
        blobs.append((rng.randrange(W), rng.randrange(120, H), rng.randrange(12, 60),
                      (rng.randrange(40, 230), rng.randrange(40, 230), rng.randrange(40, 230))))
    towers = [(rng.randrange(W - 40), rng.randrange(15, 40), rng.randrange(80, 220))
              for _ in range(6)]
    pix = bytearray(W * H * 3)
    for y in range(H):
        for x in range(W):
            if y < horizon:
                t = y / horizon
                r, g, b = 90 + 80 * t, 140 + 70 * t, 230 - 20 * t
                # soft clouds
                r += 25 * math.sin(x * 0.02 + y * 0.05) * math.sin(y * 0.03)
            else:
                t = (y - horizon) / (H - horizon)
                r, g, b = 60 + 40 * t, 120 - 30 * t, 50 + 10 * t
                r += 10 * math.sin(x * 0.3) * math.sin(y * 0.2)
            for tx, tw, th in towers:
                if tx <= x < tx + tw and horizon - th <= y < horizon:
                    r, g, b = 110, 105, 100
                    if (x - tx) % 8 < 3 and (y - horizon + th) % 12 < 5:
                        r, g, b = 230, 220, 120
            for cx, cy, rad, col in blobs:
                if (x - cx) ** 2 + (y - cy) ** 2 <= rad * rad:
                    r, g, b = col
            n = rng.randrange(-6, 7)
            i = (y * W + x) * 3
            pix[i] = max(0, min(255, int(r) + n))
            pix[i + 1] = max(0, min(255, int(g) + n))
            pix[i + 2] = max(0, min(255, int(b) + n))
    with open(os.path.join(out, "seam_carve_scene.ppm"), "wb") as f:
        f.write(b"P6\n# synthetic scene for seam_carve\n%d %d\n255\n" % (W, H))
        f.write(bytes(pix))


if __name__ == "__main__":
    main()
