#!/usr/bin/env python3
"""Write a frequency dictionary and a typo-ridden text for spellcheck."""
import itertools
import os
import random
import sys

ONSETS = ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w",
          "br", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "ch", "sp", "str"]
VOWELS = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "io", "y"]
CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rt", "ss"]
SUFFIXES = ["", "", "", "s", "ed", "ing", "er", "ly", "ness", "ment", "tion", "able"]
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def make_word(rng):
    n = rng.choice((1, 2, 2, 2, 3, 3, 4))
    w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(n))
    return w + rng.choice(SUFFIXES)


def typo(rng, w):
    for _ in range(1 if rng.random() < 0.85 else 2):
        i = rng.randrange(len(w))
        op = rng.randrange(4)
        if op == 0 and len(w) > 2:
            w = w[:i] + w[i + 1:]
        elif op == 1 and i + 1 < len(w):
            w = w[:i] + w[i + 1] + w[i] + w[i + 2:]
        elif op == 2:
            w = w[:i] + rng.choice(LETTERS) + w[i + 1:]
        else:
            w = w[:i] + rng.choice(LETTERS) + w[i:]
    return w


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen_spellcheck.py OUTPUT_DIR\n")
        sys.exit(2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(271828)
    vocab = []
    seen = set()
    while len(vocab) < 36000:
        w = make_word(rng)
        if 2 <= len(w) <= 20 and w not in seen:
            seen.add(w)
            vocab.append(w)
    freqs = [max(1, int(2_000_000 / (r + 1) ** 1.05)) + rng.randrange(3) for r in range(len(vocab))]
    with open(os.path.join(out, "spellcheck_dict.txt"), "w", newline="\n") as f:
        f.write("# word frequency\n")
        order = sorted(range(len(vocab)), key=lambda i: vocab[i])
        for i in order:
            f.write("%s %d\n" % (vocab[i], freqs[i]))
    cum = list(itertools.accumulate(1.0 / (r + 1) ** 0.9 for r in range(len(vocab))))
    # text: sentences of Zipf-distributed words, about a third of them mistyped (OCR-like quality)
    lines = []
    size = 0
    line = []
    while size < 1_380_000:
        nwords = rng.randrange(5, 18)
        sent = []
        for w in rng.choices(vocab, cum_weights=cum, k=nwords):
            if rng.random() < 0.34:
                w = typo(rng, w)
            sent.append(w)
        sent[0] = sent[0].capitalize()
        s = " ".join(sent) + rng.choice((".", ".", ".", "!", "?"))
        if rng.random() < 0.1:
            k = rng.randrange(1, len(sent) + 1)
            s = " ".join(sent[:k]) + ", " + " ".join(sent[k:]) + "."
        line.append(s)
        if sum(len(x) + 1 for x in line) > 70:
            t = " ".join(line) + "\n"
            lines.append(t)
            size += len(t)
            line = []
    with open(os.path.join(out, "spellcheck_text.txt"), "w", newline="\n") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main()
