#!/usr/bin/env python3
"""Writes bwt_blocks_text.txt: about 4 MB of ASCII text.

Most of it is prose-like word salad (Zipf-distributed invented words), mixed
with highly repetitive stretches: heartbeat log lines, long runs of one
identical log message, boilerplate paragraphs repeated with a section number,
and near-constant table rows.
"""
import random

TARGET = 4000000
rng = random.Random(7713)

SYL = ["ka", "to", "ri", "men", "sa", "lo", "ver", "an", "el", "is", "tra", "po",
       "qu", "de", "ne", "ul", "mo", "ra", "ti", "ko", "li", "ber", "sen", "ga",
       "or", "fi", "nu", "pe", "ha", "wi", "st", "ch"]


def make_word():
    return "".join(rng.choice(SYL) for _ in range(rng.choice((1, 1, 2, 2, 2, 3, 3, 4))))


vocab = []
seen = set()
while len(vocab) < 3000:
    w = make_word()
    if w not in seen:
        seen.add(w)
        vocab.append(w)
weights = [1.0 / (r + 1) ** 1.05 for r in range(len(vocab))]
cum = []
acc = 0.0
for w in weights:
    acc += w
    cum.append(acc)


def prose(nbytes):
    out = []
    size = 0
    col = 0
    words = rng.choices(vocab, cum_weights=cum, k=nbytes // 4 + 16)
    wi = 0
    while size < nbytes:
        n = rng.randint(5, 22)
        sent = words[wi:wi + n]
        wi += n
        if wi + 30 >= len(words):
            words = rng.choices(vocab, cum_weights=cum, k=nbytes // 4 + 16)
            wi = 0
        sent[0] = sent[0].capitalize()
        if n > 9 and rng.random() < 0.4:
            sent[n // 2] += ","
        text = " ".join(sent) + rng.choice((".", ".", ".", "?", "!", ";"))
        for tok in text.split(" "):
            if col + len(tok) + 1 > 72:
                out.append("\n")
                size += 1
                col = 0
            elif col > 0:
                out.append(" ")
                size += 1
                col += 1
            out.append(tok)
            size += len(tok)
            col += len(tok)
        if rng.random() < 0.12:
            out.append("\n\n")
            size += 2
            col = 0
    out.append("\n")
    return "".join(out)


def log_lines(nbytes, day):
    out = []
    size = 0
    t = rng.randint(0, 20000)
    worker = rng.randint(1, 8)
    while size < nbytes:
        t += 5
        q = rng.choice((0, 0, 0, 0, 1, 2))
        line = "2024-03-%02d %02d:%02d:%02d INFO [worker-%d] heartbeat ok, queue=%d\n" % (
            day, (t // 3600) % 24, (t // 60) % 60, t % 60, worker, q)
        out.append(line)
        size += len(line)
    return "".join(out)


def boilerplate(nbytes):
    para = prose(rng.randint(3000, 9000)).strip()
    out = []
    size = 0
    sec = rng.randint(1, 50)
    while size < nbytes:
        s = "Section %d.\n%s\n\n" % (sec, para)
        sec += 1
        out.append(s)
        size += len(s)
    return "".join(out)


def table(nbytes):
    out = []
    size = 0
    row = rng.randint(1, 999)
    while size < nbytes:
        status = "OK" if rng.random() < 0.97 else "RETRY"
        s = "| %6d | 0.000 | 0.000 | 1.000 | %-5s |\n" % (row, status)
        row += 1
        out.append(s)
        size += len(s)
    return "".join(out)


def spam(nbytes):
    """Runs of identical repeated log messages (a stuck process)."""
    msgs = ["WARN [disk-monitor] /var/spool almost full, retrying\n",
            "ERROR connection refused (peer 10.0.3.17:5432)\n",
            "DEBUG poll: nothing to do\n",
            "==========================================================\n"]
    out = []
    size = 0
    minute = rng.randint(0, 1000)
    while size < nbytes:
        m = rng.choice(msgs)
        reps = rng.randint(50, 1500)
        s = "-- %05d --\n" % minute + m * reps
        minute += rng.randint(1, 9)
        out.append(s)
        size += len(s)
    return "".join(out)


parts = []
total = 0
while total < TARGET:
    # a stretch of prose, then one repetitive stretch
    parts.append(prose(rng.randint(20000, 100000)))
    kind = rng.randrange(4)
    if kind == 0:
        parts.append(log_lines(rng.randint(10000, 60000), rng.randint(1, 28)))
    elif kind == 1:
        parts.append(spam(rng.randint(20000, 80000)))
    elif kind == 2:
        parts.append(boilerplate(rng.randint(20000, 80000)))
    else:
        parts.append(table(rng.randint(8000, 40000)))
    total += len(parts[-2]) + len(parts[-1])

data = "".join(parts)[:TARGET]
with open("bwt_blocks_text.txt", "w", newline="\n") as f:
    f.write(data)
