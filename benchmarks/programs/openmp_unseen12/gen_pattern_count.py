#!/usr/bin/env python3
"""Writes the inputs of pattern_count:
  pattern_count_text.txt      about 6 MB of pseudo-English prose (Zipf-distributed
                              invented words, sentences, line breaks)
  pattern_count_patterns.txt  400 patterns of 3..60 bytes, one per line; most are
                              pieces of the text, a few are random strings
"""
import random

TEXT_BYTES = 6_000_000
N_PATTERNS = 400
SEED = 7712

def make_vocab(rng, n):
    onsets = ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t",
              "v", "w", "st", "tr", "pl", "ch", "sh", "th", "gr", "br"]
    vowels = ["a", "e", "i", "o", "u", "ea", "ou", "ai", "an", "en", "in", "on"]
    codas = ["", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "rt", "m"]
    vocab = []
    seen = set()
    while len(vocab) < n:
        syl = 1 + min(3, int(rng.expovariate(0.9)))
        w = "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                    for _ in range(syl))
        if w not in seen and len(w) >= 1:
            seen.add(w)
            vocab.append(w)
    return vocab

def main():
    rng = random.Random(SEED)
    vocab = make_vocab(rng, 6000)
    weights = [1.0 / (r + 1) ** 1.07 for r in range(len(vocab))]
    cum = []
    acc = 0.0
    for w in weights:
        acc += w
        cum.append(acc)

    lines = []
    line = []
    line_len = 0
    total = 0
    sentence_left = 0
    while total < TEXT_BYTES:
        words = rng.choices(vocab, cum_weights=cum, k=512)
        for w in words:
            if sentence_left == 0:
                sentence_left = rng.randint(5, 22)
                w = w.capitalize()
            sentence_left -= 1
            if sentence_left == 0:
                w += rng.choice([".", ".", ".", "?", "!"])
            elif rng.random() < 0.06:
                w += ","
            if line_len + len(w) + 1 > 72:
                s = " ".join(line) + "\n"
                lines.append(s)
                total += len(s)
                line = []
                line_len = 0
            line.append(w)
            line_len += len(w) + 1
    text = "".join(lines)[:TEXT_BYTES]
    with open("pattern_count_text.txt", "w", newline="\n") as f:
        f.write(text)

    # pattern lengths: many short ones, fewer long ones
    groups = [(3, 4, 0.30), (5, 8, 0.25), (9, 16, 0.20), (17, 32, 0.15), (33, 60, 0.10)]
    pats = []
    seen = set()
    while len(pats) < N_PATTERNS:
        r = rng.random()
        acc = 0.0
        for lo, hi, p in groups:
            acc += p
            if r < acc:
                break
        m = rng.randint(lo, hi)
        if rng.random() < 0.9:
            pos = rng.randrange(len(text) - m)
            p = text[pos:pos + m]
            if "\n" in p:
                continue
        else:
            p = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(m))
        if p in seen:
            continue
        seen.add(p)
        pats.append(p)
    with open("pattern_count_patterns.txt", "w", newline="\n") as f:
        for p in pats:
            f.write(p + "\n")

if __name__ == "__main__":
    main()
