#!/usr/bin/env python3
"""Synthesise a monophonic test recording for yin_pitch.

Writes a 16 kHz mono 16-bit PCM WAV file with short melodic phrases made of
harmonic notes (random harmonic spectra, attack/release envelopes, vibrato
on the longer notes), pauses between phrases, a couple of unvoiced noise
bursts and a low-level noise floor throughout.
"""
import math
import os
import random
import struct
import sys

RATE = 16000
SEED = 7041
TOTAL_SECONDS = 34.0

# a few scales to draw melodies from (MIDI note numbers)
SCALES = [
    [45, 47, 48, 50, 52, 53, 55, 57],            # A minor, low
    [57, 59, 60, 62, 64, 65, 67, 69, 71, 72],    # A minor / C major, mid
    [62, 64, 66, 67, 69, 71, 73, 74, 76],        # D major
    [67, 69, 71, 72, 74, 76, 78, 79],            # G major, high
]


def midi_to_hz(m):
    return 440.0 * 2.0 ** ((m - 69) / 12.0)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "melody.wav")
    rng = random.Random(SEED)
    n_total = int(TOTAL_SECONDS * RATE)
    buf = [0.0] * n_total
    two_pi = 2.0 * math.pi

    t = 0.4  # seconds: start after a short silence
    phrase = 0
    while t < TOTAL_SECONDS - 1.5:
        scale = SCALES[phrase % len(SCALES)] if phrase % 3 else rng.choice(SCALES)
        phrase += 1
        idx = rng.randrange(len(scale))
        for _ in range(rng.randint(6, 14)):
            if t > TOTAL_SECONDS - 1.0:
                break
            idx += rng.choice([-3, -2, -1, -1, 1, 1, 2, 3])
            if idx < 0:
                idx = -idx
            if idx >= len(scale):
                idx = 2 * (len(scale) - 1) - idx
            dur = rng.choice([0.12, 0.2, 0.25, 0.3, 0.4, 0.6, 0.9])
            f0 = midi_to_hz(scale[idx]) * 2.0 ** (rng.uniform(-12, 12) / 1200.0)
            amp = rng.uniform(0.15, 0.4)
            nharm = rng.randint(2, 7)
            harm = [(k, rng.uniform(0.2, 1.0) / k, rng.uniform(0, two_pi))
                    for k in range(1, nharm + 1)]
            # keep harmonics below Nyquist
            harm = [h for h in harm if h[0] * f0 < 0.45 * RATE]
            vib_depth = rng.uniform(15, 45) if dur >= 0.4 else 0.0   # cents
            vib_rate = rng.uniform(4.5, 6.5)
            s0 = int(t * RATE)
            n = int(dur * RATE)
            attack = int(0.02 * RATE)
            release = int(0.04 * RATE)
            phase = 0.0
            for i in range(n):
                j = s0 + i
                if j >= n_total:
                    break
                tt = i / RATE
                f = f0 * 2.0 ** (vib_depth * math.sin(two_pi * vib_rate * tt) / 1200.0)
                phase += two_pi * f / RATE
                if i < attack:
                    env = i / attack
                elif i > n - release:
                    env = (n - i) / release
                else:
                    env = 1.0 - 0.3 * (i / n)
                v = 0.0
                for k, a, ph in harm:
                    v += a * math.sin(k * phase + ph)
                buf[j] += amp * env * v
            gap = rng.choice([0.0, 0.0, 0.02, 0.05])
            t += dur + gap
        # pause between phrases; sometimes a breathy noise burst in it
        pause = rng.uniform(0.3, 1.0)
        if rng.random() < 0.35:
            s0 = int((t + 0.05) * RATE)
            n = int(0.2 * RATE)
            for i in range(n):
                if s0 + i < n_total:
                    buf[s0 + i] += 0.08 * rng.gauss(0, 1) * math.sin(math.pi * i / n)
        t += pause

    # noise floor and conversion to 16-bit
    peak = max(abs(v) for v in buf) or 1.0
    gain = 0.85 / peak if peak > 0.85 else 1.0
    frames = bytearray()
    for v in buf:
        s = v * gain + rng.gauss(0, 0.002)
        s = max(-1.0, min(1.0, s))
        frames += struct.pack("<h", int(round(s * 32767)))

    with open(out, "wb") as f:
        f.write(b"RIFF")
        f.write(struct.pack("<I", 36 + len(frames)))
        f.write(b"WAVE")
        f.write(b"fmt ")
        f.write(struct.pack("<IHHIIHH", 16, 1, 1, RATE, RATE * 2, 2, 16))
        f.write(b"data")
        f.write(struct.pack("<I", len(frames)))
        f.write(frames)


if __name__ == "__main__":
    main()
