#!/usr/bin/env python3
"""Write schelling_grid_init.txt: an 800 x 800 initial grid with about 10%
empty cells and the rest split between groups A (52%) and B (48%), placed
at random."""
import random

SEED = 4242
ROWS = COLS = 800


def main():
    rng = random.Random(SEED)
    out = ['%d %d\n' % (ROWS, COLS)]
    for _ in range(ROWS):
        row = []
        for _ in range(COLS):
            u = rng.random()
            row.append('.' if u < 0.10 else ('A' if u < 0.10 + 0.90 * 0.52 else 'B'))
        out.append(''.join(row) + '\n')
    with open('schelling_grid_init.txt', 'w', newline='\n') as f:
        f.write(''.join(out))


if __name__ == '__main__':
    main()
