#!/usr/bin/env python3
"""Write a test recording for fft_spectrum.

usage: gen_fft_spectrum.py OUTDIR

Creates OUTDIR/fft_spectrum_signal.txt: 160000 samples (20 s at 8 kHz), one
per line.  The signal contains mains hum with harmonics, a slow up-chirp, an
amplitude-modulated tone, short clicks and white noise.
"""
import math
import os
import random
import sys

FS = 8000.0
N = 160000


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_fft_spectrum.py OUTDIR\n")
        sys.exit(2)
    os.makedirs(sys.argv[1], exist_ok=True)
    rng = random.Random(4242)
    dur = N / FS
    path = os.path.join(sys.argv[1], "fft_spectrum_signal.txt")
    with open(path, "w", newline="\n") as f:
        for i in range(N):
            t = i / FS
            v = 0.1  # small DC offset
            v += 0.5 * math.sin(2 * math.pi * 50.0 * t)
            v += 0.2 * math.sin(2 * math.pi * 150.0 * t + 0.3)
            v += 0.1 * math.sin(2 * math.pi * 250.0 * t + 1.1)
            f0, f1 = 300.0, 3300.0
            v += 0.4 * math.sin(2 * math.pi * (f0 * t + 0.5 * (f1 - f0) / dur * t * t))
            v += 0.35 * (1.0 + 0.5 * math.sin(2 * math.pi * 3.0 * t)) * math.sin(2 * math.pi * 1234.5 * t)
            v += 0.15 * math.sin(2 * math.pi * 2718.0 * t)
            if i % 4000 < 8:
                v += 0.8 * (1 if (i // 4000) % 2 == 0 else -1)
            v += rng.gauss(0.0, 0.25)
            f.write("%.4f\n" % v)


if __name__ == "__main__":
    main()
