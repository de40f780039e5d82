#!/usr/bin/env python3
"""Write tridiag_params.txt, the parameter file for tridiag_batch."""

PARAMS = """\
# batch of independent tridiagonal systems
# coefficients are generated from the seed; each system has a known
# solution from which its right-hand side is built
seed            20250611
systems         80000
min_size        64
max_size        256
offdiag_max     1.0
diag_margin     0.02
poisson_share   0.25
poisson_shift   0.001
"""

with open("tridiag_params.txt", "w", newline="\n") as f:
    f.write(PARAMS)
