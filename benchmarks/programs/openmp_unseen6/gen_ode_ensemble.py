#!/usr/bin/env python3
"""Write the initial-condition ensemble for ode_ensemble.

Line formats (one run per line, '#' starts a comment line):
  lorenz   sigma rho beta  x0 y0 z0
  vdp      mu  x0 v0
  pendulum gamma omega0 amp omega_d  theta0 v0
"""
import random

OUT = "ode_ensemble_ics.txt"
N = 1800


def main():
    rng = random.Random(7331)
    lines = ["# ensemble of initial conditions for ode_ensemble"]
    for i in range(N):
        r = rng.random()
        if r < 0.40:
            sigma = rng.uniform(8.0, 12.0)
            rho = rng.choice([rng.uniform(0.5, 20.0), rng.uniform(24.0, 60.0)])
            beta = rng.uniform(2.0, 3.0)
            x, y, z = (rng.uniform(-15, 15), rng.uniform(-20, 20), rng.uniform(5, 40))
            lines.append("lorenz %.5f %.5f %.5f %.5f %.5f %.5f" % (sigma, rho, beta, x, y, z))
        elif r < 0.70:
            mu = 10.0 ** rng.uniform(-1.0, 2.3)
            lines.append("vdp %.5f %.5f %.5f" % (mu, rng.uniform(-3, 3), rng.uniform(-3, 3)))
        else:
            gamma = rng.uniform(0.05, 1.0)
            w0 = rng.uniform(0.5, 3.0)
            amp = rng.choice([0.0, rng.uniform(0.2, 2.0)])
            wd = rng.uniform(0.3, 2.0)
            lines.append("pendulum %.5f %.5f %.5f %.5f %.5f %.5f"
                         % (gamma, w0, amp, wd, rng.uniform(-3.1, 3.1), rng.uniform(-4, 4)))
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
