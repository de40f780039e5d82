#!/usr/bin/env python3
"""Write heat_pipes_params.txt: parameters of 48 coupled pipes (fixed seed)."""
import random

def main():
    rng = random.Random(4811)
    pipes, cells = 48, 400
    out = []
    out.append("# heat_pipes parameter file")
    out.append("pipes %d" % pipes)
    out.append("cells %d" % cells)
    out.append("steps %d" % 20000)
    out.append("checkpoint %d" % 5000)
    out.append("dt %.4f" % 0.5)
    out.append("dx %.4f" % 0.01)
    out.append("coupling %.4f" % 0.35)
    out.append("left_temp %.2f" % 420.0)
    out.append("right_temp %.2f" % 285.0)
    out.append("ambient %.2f" % 300.0)
    out.append("# per pipe: diffusivity (1e-4 m^2/s units), loss rate (1/s), initial temperature")
    for p in range(pipes):
        diff = rng.uniform(0.4, 3.2)
        loss = rng.uniform(0.00002, 0.0002)
        init = rng.uniform(290.0, 330.0)
        out.append("pipe %d %.5f %.5f %.3f" % (p, diff, loss, init))
    with open("heat_pipes_params.txt", "w", newline="\n") as f:
        f.write("\n".join(out) + "\n")

if __name__ == "__main__":
    main()
