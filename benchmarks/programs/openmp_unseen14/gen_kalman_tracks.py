#!/usr/bin/env python3
"""Writes kalman_tracks_data.bin: simulated 2-D target tracks.

Layout (little endian):
  char[4]  "KALM"
  int32    number of tracks
  int32    steps per track
  float32  time step dt (s)
  float32  nominal measurement noise sigma (m)
  then per track, per step: float32 meas_x, meas_y, true_x, true_y

Each track moves with nearly constant velocity plus random accelerations of
a track-specific intensity (some are steady, some manoeuvre hard); about 1%
of the measurements are outliers.
"""
import math
import random
import struct
import sys
from array import array

N_TRACKS = 1600
N_STEPS = 150
DT = 1.0
SIGMA = 5.0

rng = random.Random(4242)

out = bytearray()
out += b"KALM"
out += struct.pack("<iiff", N_TRACKS, N_STEPS, DT, SIGMA)

vals = array("f")
for t in range(N_TRACKS):
    q = 10.0 ** rng.uniform(-2.5, 1.5)          # acceleration noise intensity
    acc_sd = math.sqrt(q / DT)
    x = rng.uniform(-5000.0, 5000.0)
    y = rng.uniform(-5000.0, 5000.0)
    speed = rng.uniform(5.0, 60.0)
    heading = rng.uniform(0.0, 2.0 * math.pi)
    vx = speed * math.cos(heading)
    vy = speed * math.sin(heading)
    sigma = SIGMA * rng.uniform(0.8, 1.25)      # sensors differ a little
    for k in range(N_STEPS):
        if k > 0:
            ax = rng.gauss(0.0, acc_sd)
            ay = rng.gauss(0.0, acc_sd)
            x += vx * DT + 0.5 * ax * DT * DT
            y += vy * DT + 0.5 * ay * DT * DT
            vx += ax * DT
            vy += ay * DT
        if rng.random() < 0.01:
            mx = x + rng.gauss(0.0, 10.0 * sigma)
            my = y + rng.gauss(0.0, 10.0 * sigma)
        else:
            mx = x + rng.gauss(0.0, sigma)
            my = y + rng.gauss(0.0, sigma)
        vals.extend((mx, my, x, y))

if sys.byteorder != "little":
    vals.byteswap()
out += vals.tobytes()
with open("kalman_tracks_data.bin", "wb") as f:
    f.write(out)
