#!/usr/bin/env python3
"""Write chain_params.txt, the parameter file for spring_chain."""

PARAMS = """\
# nonlinear spring chain (diatomic: alternating masses)
n_masses     384
mass_even    1.0
mass_odd     1.75
k_linear     1.0
k_cubic      6.0
rest_length  1.0
dt           0.02
amplitude    0.18
seed         982451653
checkpoints  8
"""

with open("chain_params.txt", "w", newline="\n") as f:
    f.write(PARAMS)
