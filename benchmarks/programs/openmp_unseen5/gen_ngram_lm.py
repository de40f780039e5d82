#!/usr/bin/env python3
"""Write ngram_train.txt and ngram_test.txt for ngram_lm.

The text is a synthetic "language": a Zipf-distributed vocabulary of
pseudo-words with word-to-word and pair-to-word preferences, so that a
trigram model has real structure to learn.  One sentence per line.
"""
import bisect
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20240611)

SYL = ["ka", "to", "ri", "men", "sa", "lo", "ve", "dan", "pu", "shi", "ar",
       "el", "on", "ti", "mo", "ne", "bra", "qu", "is", "ul", "gor", "fe",
       "zi", "yo", "wa", "che", "lin", "ost", "ur", "ba"]
VOCAB = 7000


def make_word(r, nsyl):
    return "".join(r.choice(SYL) for _ in range(nsyl))


words = []
seen = set()
while len(words) < VOCAB:
    n = 1 + min(3, int(len(words) ** 0.25 / 2.2)) + rng.randrange(2)
    w = make_word(rng, n)
    if w not in seen:
        seen.add(w)
        words.append(w)

cum = []
acc = 0.0
for r in range(VOCAB):
    acc += 1.0 / (r + 2.7) ** 1.07
    cum.append(acc)
total = acc


def zipf():
    return bisect.bisect_left(cum, rng.random() * total)


starters = sorted(set(zipf() for _ in range(600)))
succ1 = [[zipf() for _ in range(10)] for _ in range(VOCAB)]
succ2 = {}


def next_word(a, b):
    x = rng.random()
    if x < 0.38 and a >= 0:
        lst = succ2.get((a, b))
        if lst is None:
            lst = [zipf() for _ in range(4)]
            succ2[(a, b)] = lst
        return lst[min(3, int(rng.expovariate(1.2)))]
    if x < 0.72:
        return succ1[b][min(9, int(rng.expovariate(0.45)))]
    return zipf()


def sentence_length():
    x = rng.random()
    if x < 0.70:
        return rng.randint(4, 20)
    if x < 0.95:
        return rng.randint(21, 45)
    return rng.randint(46, 110)


def sentence():
    n = sentence_length()
    # sentences open with one of a few hundred common words
    b = starters[min(len(starters) - 1, int(rng.expovariate(0.02)))]
    a = -1
    out = [b]
    for _ in range(n - 1):
        c = next_word(a, b)
        out.append(c)
        a, b = b, c
    return out


with open(os.path.join(HERE, "ngram_train.txt"), "w") as f:
    size = 0
    while size < 2_000_000:
        line = " ".join(words[i] for i in sentence()) + "\n"
        f.write(line)
        size += len(line)

with open(os.path.join(HERE, "ngram_test.txt"), "w") as f:
    for _ in range(20000):
        toks = []
        for i in sentence():
            if rng.random() < 0.012:
                toks.append(make_word(rng, 3) + "x")   # unseen word
            else:
                toks.append(words[i])
        f.write(" ".join(toks) + "\n")
