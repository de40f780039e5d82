#!/usr/bin/env python3
"""Generate words.txt and hashes.txt for dict_attack.

words.txt:  one lowercase word per line
hashes.txt: one account per line, "name:salt:hash" where hash is 16 hex digits of
            h = FNV-1a-64(salt + password), then ROUNDS-1 times
            h = FNV-1a-64(salt + 8 little-endian bytes of h)
Accounts come from a handful of legacy systems; each system has its own salt.
"""
import os
import random

N_WORDS = 20000
N_ACCOUNTS = 300
N_SYSTEMS = 4
ROUNDS = 4            # must match the <rounds> argument of dict_attack

LEET = {"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"}
MAX_LEET = 8


def fnv1a64(data, h=0xCBF29CE484222325):
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def pw_hash(salt, pw, rounds):
    h = fnv1a64(salt.encode() + pw.encode())
    for _ in range(rounds - 1):
        h = fnv1a64(salt.encode() + h.to_bytes(8, "little"))
    return h


def leet(word, mask):
    pos = [i for i, c in enumerate(word) if c in LEET][:MAX_LEET]
    chars = list(word)
    for bit, i in enumerate(pos):
        if mask >> bit & 1:
            chars[i] = LEET[chars[i]]
    return "".join(chars)


def make_word(rng):
    onset = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t",
             "v", "w", "z", "br", "ch", "dr", "gr", "kl", "pl", "sh", "st", "th", "tr"]
    vowel = ["a", "e", "i", "o", "u", "a", "e", "o", "y", "ai", "ea", "ou", "ie"]
    coda = ["", "", "", "n", "r", "s", "t", "l", "m", "ck", "nd", "st", "x"]
    w = "".join(rng.choice(onset) + rng.choice(vowel) + rng.choice(coda)
                for _ in range(rng.choice((1, 2, 2, 2, 3, 3, 4))))
    return w[:14]


def main():
    rng = random.Random(31337)
    seen = set()
    words = []
    while len(words) < N_WORDS:
        w = make_word(rng)
        if len(w) >= 3 and w not in seen:
            seen.add(w)
            words.append(w)

    salts = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789./") for _ in range(8))
             for _ in range(N_SYSTEMS)]
    lines = []
    for k in range(N_ACCOUNTS):
        w = rng.choice(words)
        r = rng.random()
        if r < 0.12:
            pw = w
        elif r < 0.22:
            pw = w.capitalize()
        elif r < 0.30:
            pw = w[::-1]
        elif r < 0.48:
            pw = w + str(rng.randint(0, 99))
        elif r < 0.60:
            pw = w.capitalize() + str(rng.randint(0, 99))
        elif r < 0.70:
            m = len([c for c in w if c in LEET][:MAX_LEET])
            pw = leet(w, rng.randint(1, (1 << m) - 1)) if m else w + "!"
        elif r < 0.76:
            pw = leet(w, (1 << MAX_LEET) - 1) + str(rng.randint(0, 99))
        else:
            pw = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
                         for _ in range(rng.randint(6, 12)))
        salt = salts[rng.randrange(N_SYSTEMS)]
        lines.append("user%03d:%s:%016x" % (k + 1, salt, pw_hash(salt, pw, ROUNDS)))

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "words.txt"), "w") as f:
        f.write("\n".join(words) + "\n")
    with open(os.path.join(here, "hashes.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
