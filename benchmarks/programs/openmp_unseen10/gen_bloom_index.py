#!/usr/bin/env python3
"""Write words.txt (word list to index) and queries.txt (words to look up).

words.txt: one lower-case word per line, all distinct.
queries.txt: a line "#present N", N words that are in words.txt, then a line
"#absent M" and M words that are not in words.txt.
"""
import random

N_WORDS = 1_150_000
N_PRESENT = 500_000
N_ABSENT = 500_000
rng = random.Random(715517)

letters = "etaoinshrdlcumwfgypbvkjxqz"
freq = [127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40, 28, 28, 24, 24, 22, 20,
        20, 19, 15, 10, 8, 2, 2, 1, 1]
lengths = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
len_w = [1, 6, 24, 34, 22, 8, 3, 1, 0.5, 0.5]


def make_word():
    n = rng.choices(lengths, len_w)[0]
    return "".join(rng.choices(letters, freq, k=n))


seen = set()
words = []
while len(words) < N_WORDS:
    w = make_word()
    if w not in seen:
        seen.add(w)
        words.append(w)

with open("words.txt", "w", newline="\n") as f:
    f.write("\n".join(words))
    f.write("\n")

absent = []
while len(absent) < N_ABSENT:
    w = make_word()
    if w not in seen:
        absent.append(w)
present = [rng.choice(words) for _ in range(N_PRESENT)]

with open("queries.txt", "w", newline="\n") as f:
    f.write("#present %d\n" % N_PRESENT)
    f.write("\n".join(present))
    f.write("\n#absent %d\n" % N_ABSENT)
    f.write("\n".join(absent))
    f.write("\n")
