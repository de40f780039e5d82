#!/usr/bin/env python3
"""Write a source description for rb_sor: a few charged plates, point
charges, fixed boundary values and probe points on the unit square."""
import random
import sys

SEED = 4242


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "plate.src"
    rng = random.Random(SEED)
    lines = ["# sources for rb_sor: -laplace(u) = f on the unit square",
             "# point x y q | rect x0 y0 x1 y1 density | edge side value | probe x y"]
    lines.append("edge left 1.0")
    lines.append("edge right 0.0")
    lines.append("edge bottom 0.25")
    lines.append("edge top -0.5")
    for _ in range(6):
        x0, y0 = rng.uniform(0.05, 0.8), rng.uniform(0.05, 0.8)
        w, h = rng.uniform(0.03, 0.15), rng.uniform(0.03, 0.15)
        lines.append("rect %.4f %.4f %.4f %.4f %.3f"
                     % (x0, y0, x0 + w, y0 + h, rng.choice([-1, 1]) * rng.uniform(20, 80)))
    for _ in range(25):
        lines.append("point %.4f %.4f %.4f"
                     % (rng.uniform(0.02, 0.98), rng.uniform(0.02, 0.98), rng.uniform(-2.0, 2.0)))
    for k in range(8):
        lines.append("probe %.3f %.3f" % (0.1 + 0.1 * k, rng.uniform(0.1, 0.9)))
    lines.append("probe 0.500 0.500")
    with open(out, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
