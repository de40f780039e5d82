#!/usr/bin/env python3
"""Writes scene.txt: a ground plane with spheres, boxes and tori."""
import random

rng = random.Random(4242)
lines = [
    "# synthetic SDF test scene",
    "camera 0.0 3.2 -13.0   0.0 1.2 0.0   50",
    "light -6.0 10.0 -7.0",
    "plane 0.0",
]
kinds = ["sphere", "box", "torus"]
for row in range(3):
    for col in range(5):
        x = -6.0 + col * 3.0 + rng.uniform(-0.4, 0.4)
        z = -2.0 + row * 3.5 + rng.uniform(-0.4, 0.4)
        kind = kinds[(row + col + rng.randint(0, 2)) % 3]
        if kind == "sphere":
            r = rng.uniform(0.6, 1.2)
            lines.append("sphere %.3f %.3f %.3f %.3f" % (x, r, z, r))
        elif kind == "box":
            hx, hy, hz = (rng.uniform(0.4, 1.0) for _ in range(3))
            lines.append("box %.3f %.3f %.3f %.3f %.3f %.3f" % (x, hy, z, hx, hy, hz))
        else:
            big, small = rng.uniform(0.7, 1.1), rng.uniform(0.2, 0.35)
            lines.append("torus %.3f %.3f %.3f %.3f %.3f" % (x, small + rng.uniform(0.0, 0.8), z, big, small))
# a few floating spheres higher up
for k in range(3):
    lines.append("sphere %.3f %.3f %.3f %.3f" % (rng.uniform(-5, 5), rng.uniform(3.5, 5.0),
                                                  rng.uniform(2, 8), rng.uniform(0.4, 0.8)))
with open("scene.txt", "w", newline="\n") as f:
    f.write("\n".join(lines) + "\n")
