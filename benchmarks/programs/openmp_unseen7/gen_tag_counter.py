#!/usr/bin/env python3
"""Writes a synthetic event log with hashtags for tag_counter.c.

usage: gen_tag_counter.py [OUTPUT]   (default events.log)
"""
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "events.log"
rng = random.Random(99173)

TARGET_BYTES = 4_600_000

topics = ["deploy", "rollback", "db", "cache", "auth", "login", "payment", "billing",
          "timeout", "latency", "disk", "memory", "cpu", "network", "dns", "tls",
          "queue", "kafka", "redis", "postgres", "nginx", "api", "frontend", "mobile",
          "search", "index", "backup", "cron", "alert", "oncall", "incident", "security",
          "scan", "audit", "gdpr", "email", "sms", "push", "upload", "cdn", "k8s", "pod",
          "node", "autoscale", "quota", "ratelimit", "retry", "canary", "feature-flag",
          "migration", "schema", "replica", "failover", "healthcheck", "metrics", "logs",
          "tracing", "config", "secrets", "vault", "ldap", "sso", "session", "cookie",
          "checkout", "cart", "inventory", "shipping", "refund", "fraud", "report", "export"]
modifiers = ["", "", "", "-eu", "-us", "-apac", "-prod", "-staging", "-v2", "_slow",
             "-error", "-warn", "-ok", "-spike", "-drop"]
vocab = []
for t in topics:
    for m in modifiers:
        vocab.append(t + m)
vocab = sorted(set(vocab))
rng.shuffle(vocab)
weights = [1.0 / (k + 1) ** 1.05 for k in range(len(vocab))]
cum = []
acc = 0.0
for w in weights:
    acc += w
    cum.append(acc)


def pick_topic():
    x = rng.random() * acc
    lo, hi = 0, len(cum) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return vocab[lo]


def random_case(s):
    r = rng.random()
    if r < 0.08:
        return s.upper()
    if r < 0.2:
        return s.capitalize()
    return s


hosts = [f"{role}-{k:02d}" for role in ("web", "app", "db", "worker", "edge") for k in range(12)]
levels = ["INFO"] * 6 + ["WARN"] * 3 + ["ERROR", "DEBUG"]
verbs = ["started", "finished", "failed", "retrying", "slow", "recovered", "queued",
         "rejected", "scaled", "paged", "acknowledged", "closed"]
nouns = ["job", "request", "batch", "session", "transfer", "sync", "build", "check",
         "import", "rotation", "handshake", "query"]

lines = []
size = 0
t = 1_717_000_000
while size < TARGET_BYTES:
    t += rng.randint(0, 3)
    hh = (t // 3600) % 24
    mm = (t // 60) % 60
    ss = t % 60
    day = 1 + (t // 86400) % 28
    parts = [f"2024-06-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}Z",
             f"host={rng.choice(hosts)}", f"level={rng.choice(levels)}"]
    words = [rng.choice(nouns), rng.choice(verbs)]
    ntags = min(int(rng.expovariate(0.25)), 14)
    for _ in range(ntags):
        r = rng.random()
        if r < 0.80:
            tag = "#" + random_case(pick_topic())
        elif r < 0.93:
            tag = f"#ticket-{rng.randint(1000, 9999)}"
        elif r < 0.985:
            tag = f"#build{rng.randint(1, 3000)}"
        else:
            tag = "#" + "".join(rng.choice("abcdef0123456789") for _ in range(rng.randint(30, 52)))
        words.insert(rng.randint(0, len(words)), tag)
    if rng.random() < 0.05:
        words.append("issue#%d" % rng.randint(1, 500))      # not a tag (no word start)
    if rng.random() < 0.03:
        words.append("&#x27;quoted&#x27;")                # HTML entity, not a tag
    if rng.random() < 0.02:
        words.append("# comment")                          # bare '#'
    parts.append('msg="' + " ".join(words) + '"')
    line = " ".join(parts)
    lines.append(line)
    size += len(line) + 1

with open(out, "w", newline="\n") as f:
    f.write("\n".join(lines) + "\n")
