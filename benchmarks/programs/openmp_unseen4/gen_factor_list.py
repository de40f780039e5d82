#!/usr/bin/env python3
"""Generate a list of 64-bit integers to factorise: primes, smooth numbers,
semiprimes with two large factors and assorted random values.

Writes numbers.txt next to this script."""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 7781
COUNT = 3000


def is_probable_prime(n):
    if n < 2:
        return False
    small = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def random_prime(rng, bits):
    while True:
        n = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if is_probable_prime(n):
            return n


def smooth(rng, limit):
    primes = [p for p in range(2, 2000) if is_probable_prime(p)]
    n = 1
    while True:
        p = rng.choice(primes[:rng.choice([10, 40, len(primes)])])
        if n * p >= limit:
            return n
        n *= p


def main():
    rng = random.Random(SEED)
    nums = []
    for i in range(COUNT):
        kind = rng.random()
        if kind < 0.20:
            nums.append(random_prime(rng, rng.randint(20, 63)))
        elif kind < 0.45:
            nums.append(smooth(rng, 1 << 63))
        elif kind < 0.78:
            # hard semiprime: two factors of 30..32 bits
            a = rng.randint(30, 32)
            b = rng.randint(30, 32)
            nums.append(random_prime(rng, a) * random_prime(rng, b))
        elif kind < 0.88:
            # unbalanced semiprime / three factors
            a = random_prime(rng, rng.randint(12, 20))
            b = random_prime(rng, rng.randint(14, 22))
            c = random_prime(rng, rng.randint(16, 22))
            nums.append(a * b * c)
        else:
            nums.append(rng.randrange(2, 1 << 64))
    with open(os.path.join(HERE, "numbers.txt"), "w", newline="\n") as f:
        f.write("# integers to factorise, one per line\n")
        for n in nums:
            f.write("%d\n" % n)


if __name__ == "__main__":
    main()
