#!/usr/bin/env python3
"""Write corpus_1.txt .. corpus_4.txt (synthetic English-like text, one
document per line) and queries.txt, the inputs of word_index."""
import random

rng = random.Random(424242)

COMMON = ("the of and to in a is that for it as was with be by on not he i this "
          "are or his from at which but have an they you were her she there one "
          "all we their been has when who will more no if out so said what up its "
          "about into than them can only other new some could time these two may "
          "then do first any my now such like our over man me even most made after "
          "also did many before must through back years where much your way well "
          "down should because each just those people how too little state good "
          "very make world still own see men work long get here between both life "
          "being under never day same another know while last might us great old "
          "year off come since against go came right used take three").split()

ONSETS = ["b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t",
          "v", "w", "z", "br", "ch", "cl", "cr", "dr", "fl", "gr", "pl", "pr", "sh",
          "sl", "st", "th", "tr", "qu", "sp", "sk", ""]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "io", "ou", "oa", "y"]
CODAS = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "ng", "rt", "x", "ll"]
SUFFIXES = ["", "", "", "s", "ed", "ing", "er", "ly", "tion", "ness", "ment", "able"]

def make_word():
    syl = rng.choice([1, 2, 2, 2, 3, 3, 4])
    w = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                for _ in range(syl))
    return w + rng.choice(SUFFIXES)

vocab = list(dict.fromkeys(COMMON))
seen = set(vocab)
while len(vocab) < 60000:
    w = make_word()
    if 2 <= len(w) <= 18 and w not in seen:
        seen.add(w)
        vocab.append(w)

# Zipf-like weights over rank
cum = []
total = 0.0
for r in range(len(vocab)):
    total += 1.0 / (r + 2.7) ** 1.07
    cum.append(total)

PUNCT_END = [".", ".", ".", ".", "?", "!", ";", ":"]

def make_line():
    n = rng.randint(3, 26)
    words = rng.choices(vocab, cum_weights=cum, k=n)
    if rng.random() < 0.06:
        # occasional repeated phrase inside a line
        words += words[:rng.randint(1, 3)]
    out = []
    for j, w in enumerate(words):
        if j == 0 or rng.random() < 0.03:
            w = w.capitalize()
        elif rng.random() < 0.004:
            w = w.upper()
        if j < len(words) - 1 and rng.random() < 0.07:
            w += ","
        out.append(w)
    line = " ".join(out) + rng.choice(PUNCT_END)
    if rng.random() < 0.02:
        line = '"' + line + '"'
    return line

TARGET = 5_600_000
for fi in range(1, 5):
    parts = []
    size = 0
    while size < TARGET:
        if rng.random() < 0.05:
            parts.append("")                      # paragraph break
            size += 1
        line = make_line()
        parts.append(line)
        size += len(line) + 1
    with open("corpus_%d.txt" % fi, "w", newline="\n") as f:
        f.write("\n".join(parts) + "\n")

queries = []
def pick(lo, hi):
    return vocab[rng.randrange(lo, hi)]
for _ in range(6):
    queries.append(pick(0, 40))
for _ in range(6):
    queries.append(pick(200, 3000))
for _ in range(8):
    queries.append(pick(0, 30) + " " + pick(30, 400))
for _ in range(6):
    queries.append(pick(0, 20) + " " + pick(20, 150) + " " + pick(150, 900))
for _ in range(4):
    queries.append(" ".join(pick(0, 60) for _ in range(4)))
queries.append(pick(0, 10).upper() + " " + pick(10, 50).capitalize())
queries.append(pick(0, 50) + " " + pick(0, 50) + " " + pick(0, 50))
queries.append("zzyzzx")
queries.append(pick(0, 30) + " qwertyuiop")
with open("queries.txt", "w", newline="\n") as f:
    f.write("# one query per line: documents that contain every word\n")
    f.write("\n".join(queries) + "\n")
