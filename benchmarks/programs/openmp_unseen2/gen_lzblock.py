#!/usr/bin/env python3
"""Generate a mixed-content corpus for lzblock.c (about 920 KB).

The file is a concatenation of sections of different character:
English-like prose, server log lines, CSV telemetry, C-like source text,
random binary, and highly repetitive filler.  Output: corpus.bin
"""
import os
import random
import sys

WORDS = ("the of and to in is that for it as was with be by on not he this are or "
         "his from at which but have an they you were her she there been one all "
         "would their we him when who will more no if out so said what up its about "
         "into than them can only other new some could time these two may then do "
         "first any my now such like our over man me even most made after also did "
         "many before must through back years where much your way well down should "
         "because each just those people how too little state good very make world "
         "still own see men work long get here between both life being under never "
         "day same another know while last might us great old year off come since "
         "against go came right used take three small large number system river "
         "mountain engine signal memory window garden harbour winter question").split()


def prose(rng, size):
    out = []
    total = 0
    while total < size:
        n = rng.randint(6, 22)
        ws = [WORDS[min(int(rng.paretovariate(1.1)) - 1, len(WORDS) - 1)] for _ in range(n)]
        s = " ".join(ws).capitalize() + rng.choice([". ", ". ", ", and ", "? ", ".\n\n"])
        out.append(s)
        total += len(s)
    return "".join(out).encode()[:size]


def logs(rng, size):
    out = []
    total = 0
    t = 1700000000
    paths = ["/index.html", "/api/v1/items", "/api/v1/users", "/static/app.js",
             "/static/style.css", "/login", "/search", "/img/logo.png"]
    while total < size:
        t += rng.randint(0, 3)
        s = "%d.%d.%d.%d - - [%d] \"%s %s HTTP/1.1\" %d %d\n" % (
            10, rng.randint(0, 3), rng.randint(0, 255), rng.randint(1, 254), t,
            rng.choice(["GET", "GET", "GET", "POST"]), rng.choice(paths),
            rng.choice([200, 200, 200, 304, 404, 500]), rng.randint(120, 90000))
        out.append(s)
        total += len(s)
    return "".join(out).encode()[:size]


def csv(rng, size):
    out = ["sensor,timestamp,temp,humidity,pressure\n"]
    total = len(out[0])
    temp = 20.0
    k = 0
    while total < size:
        temp += rng.gauss(0, 0.2)
        s = "S%02d,%d,%.2f,%.1f,%.1f\n" % (k % 16, 1000 + k * 5, temp,
                                           50 + rng.gauss(0, 5), 1013 + rng.gauss(0, 2))
        out.append(s)
        total += len(s)
        k += 1
    return "".join(out).encode()[:size]


def code(rng, size):
    names = ["count", "index", "buffer", "value", "result", "node", "left", "right", "len"]
    out = []
    total = 0
    depth = 1
    while total < size:
        r = rng.random()
        ind = "    " * depth
        if r < 0.15 and depth < 5:
            s = "%sfor (int %s = 0; %s < %s; %s++) {\n" % (ind, "i", "i", rng.choice(names), "i")
            depth += 1
        elif r < 0.3 and depth > 1:
            depth -= 1
            s = "    " * depth + "}\n"
        elif r < 0.45:
            s = "%sif (%s->%s == NULL)\n%s    return -1;\n" % (ind, rng.choice(names),
                                                            rng.choice(names), ind)
        else:
            s = "%s%s = %s + %s * %d;\n" % (ind, rng.choice(names), rng.choice(names),
                                           rng.choice(names), rng.randint(1, 64))
        out.append(s)
        total += len(s)
    return "".join(out).encode()[:size]


def binary(rng, size):
    return bytes(rng.getrandbits(8) for _ in range(size))


def repetitive(rng, size):
    unit = bytes(rng.getrandbits(8) % 4 + 65 for _ in range(rng.randint(3, 40)))
    data = bytearray()
    while len(data) < size:
        data += unit * rng.randint(50, 400)
        if rng.random() < 0.3:
            data += bytes([0]) * rng.randint(100, 3000)
    return bytes(data[:size])


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_lzblock.py OUTDIR\n")
        sys.exit(2)
    rng = random.Random(90210)
    kinds = [prose, logs, csv, code, binary, repetitive]
    weights = [5, 3, 2, 3, 1, 2]
    data = bytearray()
    target = 900 * 1024
    while len(data) < target:
        kind = rng.choices(kinds, weights)[0]
        size = rng.randint(12 * 1024, 70 * 1024)
        data += kind(rng, min(size, target - len(data)))
    with open(os.path.join(sys.argv[1], "corpus.bin"), "wb") as f:
        f.write(bytes(data))


if __name__ == "__main__":
    main()
