#!/usr/bin/env python3
"""Write rs_codec_input.bin: about 1 MB of mixed content (log-like text lines,
runs of zero bytes and random binary records), for the RS(255,223) codec."""
import random
import struct

SEED = 255223
OUT = "rs_codec_input.bin"
TARGET = 1_000_000

WORDS = ("sensor reading ok warn error packet frame retry link down up sync lost "
         "voltage current temp fan speed node relay block parity sector").split()


def main():
    rng = random.Random(SEED)
    out = bytearray()
    t = 1_700_000_000
    while len(out) < TARGET:
        r = rng.random()
        if r < 0.55:
            t += rng.randint(1, 90)
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9)))
            out += ("%d node%02d %s %.3f\n" % (t, rng.randint(0, 40), words,
                                                rng.uniform(-50, 150))).encode()
        elif r < 0.65:
            out += bytes(rng.randint(16, 300))
        else:
            n = rng.randint(4, 40)
            out += struct.pack("<IH", 0xC0DEF00D, n)
            for _ in range(n):
                out += struct.pack("<Hf", rng.randint(0, 65535), rng.gauss(0.0, 10.0))
    with open(OUT, "wb") as f:
        f.write(bytes(out[:TARGET]))


if __name__ == "__main__":
    main()
