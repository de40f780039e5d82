#!/usr/bin/env python3
"""Generate inputs for firbank.c: a speech-like mono 16-bit WAV and a band file.

The signal (16 kHz, 44 s) alternates "voiced" stretches (a glottal pulse
train with slowly gliding pitch shaped by three moving formant resonances),
"fricative" noise bursts, low hum, short tones and pauses, so that the
loudest band changes from second to second.  The band file describes a
12-band filter bank whose filters have different lengths (longer filters
for the narrow low bands).  Usage: gen_firbank.py OUTDIR
"""
import math
import os
import random
import struct
import sys

RATE = 16000
SECONDS = 44


def resonator(freq, bw):
    r = math.exp(-math.pi * bw / RATE)
    a1 = 2 * r * math.cos(2 * math.pi * freq / RATE)
    a2 = -r * r
    return a1, a2


def build(seed):
    rng = random.Random(seed)
    n = RATE * SECONDS
    out = []
    t = 0
    hum_phase = 0.0
    while t < n:
        kind = rng.choices(("voiced", "fricative", "pause", "tone"), (0.5, 0.2, 0.2, 0.1))[0]
        length = min(n - t, int(RATE * rng.uniform(0.15, 0.9)))
        amp = rng.uniform(0.15, 0.6)
        seg = [0.0] * length
        if kind == "voiced":
            f0 = rng.uniform(90, 260)
            f0_end = f0 * rng.uniform(0.8, 1.25)
            formants = [(rng.uniform(300, 900), 90), (rng.uniform(900, 2400), 120),
                        (rng.uniform(2300, 3600), 160)]
            states = [[0.0, 0.0] for _ in formants]
            coefs = [resonator(f, bw) for f, bw in formants]
            gains = [1.0, 0.5, 0.25]
            phase = 0.0
            for i in range(length):
                f = f0 + (f0_end - f0) * i / length
                phase += f / RATE
                pulse = 1.0 if phase >= 1.0 else 0.0
                if phase >= 1.0:
                    phase -= 1.0
                v = 0.0
                for k in range(3):
                    a1, a2 = coefs[k]
                    s = pulse + a1 * states[k][0] + a2 * states[k][1]
                    states[k][1] = states[k][0]
                    states[k][0] = s
                    v += gains[k] * s
                env = math.sin(math.pi * i / length)
                seg[i] = 0.02 * amp * env * v
        elif kind == "fricative":
            a1, a2 = resonator(rng.uniform(3500, 6500), 1500)
            s1 = s2 = 0.0
            for i in range(length):
                s = rng.gauss(0, 1) + a1 * s1 + a2 * s2
                s2, s1 = s1, s
                env = math.sin(math.pi * i / length) ** 2
                seg[i] = 0.05 * amp * env * s
        elif kind == "tone":
            f = rng.choice((440.0, 1000.0, 2500.0, 5000.0))
            for i in range(length):
                seg[i] = 0.5 * amp * math.sin(2 * math.pi * f * i / RATE)
        else:
            for i in range(length):
                seg[i] = 0.002 * rng.gauss(0, 1)
        for i in range(length):
            hum_phase += 2 * math.pi * 50.0 / RATE
            v = seg[i] + 0.01 * math.sin(hum_phase) + 0.001 * rng.gauss(0, 1)
            out.append(max(-32768, min(32767, int(round(v * 32767)))))
        t += length
    return out


def write_wav(path, samples):
    data = struct.pack("<%dh" % len(samples), *samples)
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVE"
    header += b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 2, 2, 16)
    header += b"data" + struct.pack("<I", len(data))
    with open(path, "wb") as f:
        f.write(header + data)


BANDS = [
    ("hum", 20, 90, 301),
    ("low", 90, 180, 201),
    ("pitch", 180, 300, 151),
    ("f1a", 300, 500, 121),
    ("f1b", 500, 800, 101),
    ("f2a", 800, 1200, 81),
    ("f2b", 1200, 1800, 65),
    ("f2c", 1800, 2500, 51),
    ("f3", 2500, 3500, 41),
    ("hiss1", 3500, 4800, 33),
    ("hiss2", 4800, 6200, 27),
    ("air", 6200, 7800, 21),
]


def write_bands(path):
    lines = ["# firbank filter bank: name low_hz high_hz taps\n",
             "bands %d\n" % len(BANDS)]
    for name, lo, hi, taps in BANDS:
        lines.append("%s %d %d %d\n" % (name, lo, hi, taps))
    with open(path, "w", newline="\n") as f:
        f.writelines(lines)


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_firbank.py OUTDIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    write_wav(os.path.join(out, "firbank_speech.wav"), build(4242))
    write_bands(os.path.join(out, "firbank_bands.txt"))


if __name__ == "__main__":
    main()
