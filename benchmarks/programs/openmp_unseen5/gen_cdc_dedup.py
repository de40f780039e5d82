#!/usr/bin/env python3
"""Write the input set for cdc_dedup: a list file (cdc_files.txt) and 40
data files next to it.

  * 4 text documents, each in 7 versions (every version is the previous
    one with a few small edits: inserted, deleted and rewritten spans,
    and once in a while a moved paragraph);
  * 2 binary "disk images" made of 4 KiB blocks (random, zero, or copies
    of a few template blocks), each in 5 versions with patched blocks and
    small insertions;
  * 2 files of random bytes that share nothing with anything.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(77031)

SYL = ["ta", "ke", "ri", "mon", "sa", "lu", "ve", "dor", "pi", "sha", "an",
       "el", "or", "ti", "mo", "ne", "bru", "qua", "is", "ul", "gan", "fe"]
WORDS = ["".join(rng.choice(SYL) for _ in range(1 + rng.randrange(3)))
         for _ in range(3000)]


def text(nbytes):
    out = []
    size = 0
    while size < nbytes:
        n = rng.randint(30, 160)
        para = " ".join(WORDS[min(2999, int(rng.expovariate(0.004)))]
                        for _ in range(n))
        para = para[0].upper() + para[1:] + ".\n\n"
        out.append(para)
        size += len(para)
    return "".join(out).encode()


def edit_text(data, nedits):
    data = bytearray(data)
    for _ in range(nedits):
        kind = rng.random()
        pos = rng.randrange(len(data))
        if kind < 0.4:                       # insert a sentence
            data[pos:pos] = text(rng.randint(20, 400))[:rng.randint(20, 400)]
        elif kind < 0.7:                     # delete a span
            del data[pos:pos + rng.randint(5, 1500)]
        elif kind < 0.95:                    # rewrite a few words
            n = rng.randint(5, 120)
            data[pos:pos + n] = text(n)[:n]
        else:                                # move a block elsewhere
            n = rng.randint(2000, 20000)
            block = data[pos:pos + n]
            del data[pos:pos + n]
            dst = rng.randrange(len(data))
            data[dst:dst] = block
    return bytes(data)


def disk_image(nblocks):
    templates = [rng.randbytes(4096) for _ in range(6)]
    blocks = []
    for _ in range(nblocks):
        x = rng.random()
        if x < 0.15:
            blocks.append(bytes(4096))
        elif x < 0.35:
            blocks.append(rng.choice(templates))
        elif x < 0.55:                       # structured "table" block
            rec = rng.randbytes(16)
            blocks.append(b"".join(rec[:12] + i.to_bytes(4, "little")
                                   for i in range(256)))
        else:
            blocks.append(rng.randbytes(4096))
    return b"".join(blocks)


def edit_binary(data, nedits):
    data = bytearray(data)
    for _ in range(nedits):
        pos = rng.randrange(len(data))
        if rng.random() < 0.75:              # patch bytes in place
            n = rng.randint(1, 300)
            data[pos:pos + n] = rng.randbytes(n)[:len(data[pos:pos + n])]
        else:                                # small insertion
            data[pos:pos] = rng.randbytes(rng.randint(1, 64))
    return bytes(data)


files = []


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    files.append(name)


for d, size in enumerate([420_000, 650_000, 300_000, 800_000]):
    data = text(size)
    for v in range(7):
        if v > 0:
            data = edit_text(data, rng.randint(8, 30))
        write("cdc_doc%d_v%d.txt" % (d + 1, v + 1), data)

for d, nblocks in enumerate([260, 330]):
    data = disk_image(nblocks)
    for v in range(5):
        if v > 0:
            data = edit_binary(data, rng.randint(10, 40))
        write("cdc_img%d_v%d.bin" % (d + 1, v + 1), data)

write("cdc_random1.bin", rng.randbytes(500_000))
write("cdc_random2.bin", rng.randbytes(900_000))

# interleave the list a little so that versions are not all adjacent
order = sorted(files, key=lambda n: (n.split("_v")[-1], n))
with open(os.path.join(HERE, "cdc_files.txt"), "w") as f:
    f.write("# files to deduplicate, one per line (relative to this list)\n")
    for n in order:
        f.write(n + "\n")
