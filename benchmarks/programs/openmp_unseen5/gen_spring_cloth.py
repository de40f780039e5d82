#!/usr/bin/env python3
"""Write cloth_params.txt for spring_cloth: a square piece of cloth held at
three points, falling onto a sphere.  (Nothing random here, but the file is
written the same way as the other generators.)"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

PARAMS = """\
# spring_cloth material and scene
# lengths in metres, masses in kg, time in seconds
size        2.0            # side length of the square cloth
mass        2.0            # total mass of the cloth
height      0.98           # initial height of the (horizontal) cloth
k_struct    150.0          # stiffness of structural springs (N/m)
k_shear     40.0           # stiffness of shear (diagonal) springs
k_bend      10.0           # stiffness of bend springs (two cells apart)
spring_damping 0.004       # damping along each spring (N s/m)
air_damping 0.3            # drag on every particle, per unit mass (1/s)
dt          0.0004         # time step
gravity     0.0 -9.81 0.0
sphere      0.1 0.45 -0.05 0.5   # centre x y z, radius
friction    0.4            # fraction of tangential velocity lost on contact
# pinned points, as fractions of the grid (row, column)
pin 0.0 0.0
pin 0.0 1.0
pin 1.0 0.5
"""

with open(os.path.join(HERE, "cloth_params.txt"), "w") as f:
    f.write(PARAMS)
