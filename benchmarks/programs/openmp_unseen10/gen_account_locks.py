#!/usr/bin/env python3
"""Write accounts.csv and journal_1.csv .. journal_3.csv for account_locks.

accounts.csv: header "account,opening_cents", then 20,000 accounts 0..19999.
journal_N.csv: header "from,to,cents", then 400,000 transfers each (1.2 million
in all).  Account popularity is skewed, so a few accounts are busy.
"""
import random

N_ACCOUNTS = 20000
N_FILES = 3
PER_FILE = 400000
rng = random.Random(31337)

with open("accounts.csv", "w", newline="\n") as f:
    f.write("account,opening_cents\n")
    for a in range(N_ACCOUNTS):
        if rng.random() < 0.05:
            bal = rng.randint(5_000_000, 200_000_000)
        else:
            bal = rng.randint(0, 2_500_000)
        f.write("%d,%d\n" % (a, bal))

# popularity: a random permutation of accounts with weights ~ 1/(rank+10)
perm = list(range(N_ACCOUNTS))
rng.shuffle(perm)
cum = []
total = 0.0
for rank in range(N_ACCOUNTS):
    total += 1.0 / (rank + 10)
    cum.append(total)

for k in range(1, N_FILES + 1):
    src = rng.choices(perm, cum_weights=cum, k=PER_FILE)
    lines = ["from,to,cents"]
    for s in src:
        d = rng.randrange(N_ACCOUNTS)
        while d == s:
            d = rng.randrange(N_ACCOUNTS)
        if rng.random() < 0.5:
            s, d = d, s
        u = rng.random()
        if u < 0.6:
            amt = rng.randint(100, 9999)
        elif u < 0.95:
            amt = rng.randint(10000, 250000)
        else:
            amt = rng.randint(250000, 5000000)
        lines.append("%d,%d,%d" % (s, d, amt))
    with open("journal_%d.csv" % k, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
